(defn get-record-body [evidence-id]
  (let [record (first (filter #(= evidence-id (get % "evidence_id")) records))]
    (when (get record "found")
      (get-in record ["record" "body"]))))

(println "deploy-0440:" (get-record-body "deploy-0440"))
(println "alert-0000:" (get-record-body "alert-0000"))
(println "log-90001:" (get-record-body "log-90001"))
nil)