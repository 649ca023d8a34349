(let [remaining-records (filter #(get % "found") records)
      chat-records (filter #(= "chat" (get-in % ["record" "source"])) remaining-records)]
  (doseq [r chat-records]
    (let [record (get r "record")]
      (println "=== ID:" (get record "evidence_id") "===")
      (println "Body:" (get record "body"))
      (println))))