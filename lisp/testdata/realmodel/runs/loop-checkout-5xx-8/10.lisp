(let [deploy-records (filter #(= (get % "source") "deployments") all-records)
      sorted-deploys (sort-by #(get % "observed_at") deploy-records)]
  (doseq [deploy sorted-deploys]
    (println "Deployment:" (get deploy "evidence_id") "at" (get deploy "observed_at") "-" (get deploy "title"))
    (println "Body:" (get deploy "body"))
    (println "---"))
  nil)