(let [ticket-1109 (first (filter #(= "ticket-1109" (get-in % ["record" "evidence_id"])) records))]
  (when (get ticket-1109 "found")
    (let [record (get ticket-1109 "record")]
      (println "=== ID:" (get record "evidence_id") "===")
      (println "Body:" (get record "body"))
      (println))))