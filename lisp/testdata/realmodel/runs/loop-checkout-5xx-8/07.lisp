(let [trace-record (first (filter #(= (get % "evidence_id") "trace-5f21") all-records))]
  (println "Trace:" (get trace-record "evidence_id") "at" (get trace-record "observed_at") "-" (get trace-record "title"))
  (println "Body:" (get trace-record "body"))
  trace-record)