(let [deploy-record (first (filter #(= (get % "evidence_id") "deploy-2291") all-records))]
  (println "Deployment record body:" (get deploy-record "body"))
  deploy-record)