(defn make-citation [record]
  {"evidence_id" (get record "evidence_id")
   "content_digest" (get record "content_digest")})

(defn find-record [evidence-id]
  (first (filter #(= (get % "evidence_id") evidence-id) all-records)))

;; Create a sorted timeline of all events
(def timeline-events
  (mapv (fn [record]
          {"observed_at" (get record "observed_at")
           "evidence_id" (get record "evidence_id")
           "title" (get record "title")
           "source" (get record "source")})
        all-records))

(def sorted-timeline (sort-by #(get % "observed_at") timeline-events))

(println "Timeline events in chronological order:")
(doseq [event sorted-timeline]
  (println (get event "observed_at") "-" (get event "source") "-" (get event "title")))
nil)