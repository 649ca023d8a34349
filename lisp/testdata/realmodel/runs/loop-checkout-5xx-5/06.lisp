(let [alert-records (filter #(= "alerts" (get-in % ["record" "source"])) records)]
  (println "Alert records:" (count alert-records))
  (doseq [r alert-records]
    (let [rec (get r "record")]
      (println "ID:" (get rec "evidence_id") "Title:" (get rec "title"))
      (println "Body:" (get rec "body"))))
  nil)