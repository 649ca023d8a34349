(defn print-record [info]
  (println "---")
  (println "ID:" (:evidence_id info))
  (println "Time:" (:observed_at info))
  (println "Source:" (:source info))
  (println "Title:" (:title info))
  (println "Body:" (:body info)))

(doseq [info record-infos] (print-record info))
nil)