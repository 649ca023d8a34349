(let [log-records (filter #(= (get % "source") "logs") all-records)
      sorted-logs (sort-by #(get % "observed_at") log-records)]
  (doseq [log sorted-logs]
    (println "Log:" (get log "evidence_id") "at" (get log "observed_at") "-" (get log "title"))
    (println "Body:" (get log "body"))
    (println "---"))
  nil)