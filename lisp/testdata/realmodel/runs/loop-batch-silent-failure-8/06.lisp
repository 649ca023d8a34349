(doseq [rec record-data]
  (println "\n=== " (:evidence_id rec) " (" (:source rec) ") ===")
  (println "Title:" (:title rec))
  (println "Observed at:" (:observed_at rec))
  (println "Body:" (:body rec)))