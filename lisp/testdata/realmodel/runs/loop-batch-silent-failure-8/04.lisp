(doseq [record all-records]
  (let [found (get record "found")
        evidence-id (get record "evidence_id")
        rec (get record "record")]
    (when found
      (println "=== " evidence-id " ===")
      (println "Title:" (get rec "title"))
      (println "Source:" (get rec "source"))
      (println "Observed at:" (get rec "observed_at"))
      (println "Body preview:" (subs (get rec "body") 0 (min 200 (count (get rec "body")))))
      (println))))