(let [last-record (last sorted-records)]
  (println "=== LAST RECORD ===")
  (println "ID:" (get last-record "evidence_id"))
  (println "Time:" (get last-record "observed_at"))
  (println "Source:" (get last-record "source"))
  (println "Title:" (get last-record "title"))
  (println "Body:" (get last-record "body"))
  (println "Digest:" (get last-record "content_digest")))
nil)