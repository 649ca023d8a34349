(let [trace-records (filter #(= "traces" (get-in % ["record" "source"])) records)]
  (println "Trace records:" (count trace-records))
  (doseq [r trace-records]
    (let [rec (get r "record")]
      (println "ID:" (get rec "evidence_id") "Title:" (get rec "title"))
      (println "Body:" (get rec "body"))))
  nil)