(def sorted-records (sort-by #(get-in % [:record "observed_at"]) record-infos))
(def timeline-entries
  (mapv (fn [info]
          {:observed_at (:observed_at info)
           :statement (:title info)
           :evidence_id (:evidence_id info)
           :content_digest (:content_digest info)})
        sorted-records))

(println "Timeline entries:" (count timeline-entries))
nil)