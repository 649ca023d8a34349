(doseq [r records]
  (let [found (get r "found")
        record (get r "record")]
    (when found
      (println "=== ID:" (get record "evidence_id") "===")
      (println "Title:" (get record "title"))
      (println "Source:" (get record "source"))
      (println "Observed at:" (get record "observed_at"))
      (println "Body:" (get record "body"))
      (println "Digest:" (get record "content_digest"))
      (println))))