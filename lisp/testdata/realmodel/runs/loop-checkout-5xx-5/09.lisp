(let [ticket-records (filter #(= "tickets" (get-in % ["record" "source"])) records)]
  (println "Ticket records:" (count ticket-records))
  (doseq [r ticket-records]
    (let [rec (get r "record")]
      (println "ID:" (get rec "evidence_id") "Title:" (get rec "title"))
      (println "Body:" (get rec "body"))))
  nil)