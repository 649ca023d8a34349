(let [log-records (filter #(= "logs" (get-in % ["record" "source"])) records)]
  (println "Log records:" (count log-records))
  (doseq [r log-records]
    (let [rec (get r "record")]
      (println "ID:" (get rec "evidence_id") "Title:" (get rec "title"))
      (println "Body:" (get rec "body"))))
  nil)