(def sorted-records 
  (sort-by #(get % "observed_at") all-records))
(defn print-record-summary [record]
  (println "---")
  (println "ID:" (get record "evidence_id"))
  (println "Time:" (get record "observed_at"))
  (println "Source:" (get record "source"))
  (println "Title:" (get record "title"))
  (println "Body preview:" (subs (get record "body") 0 (min 200 (count (get record "body"))))))
(doseq [record sorted-records] (print-record-summary record))
nil)