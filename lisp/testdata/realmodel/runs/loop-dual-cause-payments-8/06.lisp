(defn print-full-record [record]
  (println "=== FULL RECORD ===")
  (println "ID:" (get record "evidence_id"))
  (println "Time:" (get record "observed_at"))
  (println "Source:" (get record "source"))
  (println "Title:" (get record "title"))
  (println "Body:" (get record "body"))
  (println "Digest:" (get record "content_digest"))
  (println "================"))

;; Print the remaining records that were truncated
(let [remaining (drop 6 sorted-records)]
  (doseq [record remaining] (print-full-record record)))
nil)