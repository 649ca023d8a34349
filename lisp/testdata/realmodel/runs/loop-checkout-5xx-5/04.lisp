(let [deploy-records (filter #(= "deployments" (get-in % ["record" "source"])) records)]
  (println "Deployment records:" (count deploy-records))
  (doseq [r deploy-records]
    (let [rec (get r "record")]
      (println "ID:" (get rec "evidence_id") "Title:" (get rec "title"))
      (println "Body:" (get rec "body"))))
  nil)