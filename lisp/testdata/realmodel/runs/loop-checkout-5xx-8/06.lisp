(let [alert-records (filter #(= (get % "source") "alerts") all-records)
      sorted-alerts (sort-by #(get % "observed_at") alert-records)]
  (doseq [alert sorted-alerts]
    (println "Alert:" (get alert "evidence_id") "at" (get alert "observed_at") "-" (get alert "title"))
    (println "Body:" (get alert "body"))
    (println "---"))
  nil)