(defn get-record-body [evidence-id]
  (let [record (first (filter #(= evidence-id (get % "evidence_id")) records))]
    (when (and record (get record "found"))
      (get-in record ["record" "body"]))))

(println "Deployment record:" (get-record-body "deploy-0440"))
(println "Alert record:" (get-record-body "alert-0000"))
(println "Log record:" (get-record-body "log-90001"))
nil)