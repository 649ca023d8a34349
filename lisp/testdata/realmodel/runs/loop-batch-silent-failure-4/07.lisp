(defn record-info [evidence-id]
  (let [record (first (filter #(= evidence-id (get % "evidence_id")) records))]
    (when (and record (get record "found"))
      (let [rec (get record "record")]
        {"evidence_id" (get rec "evidence_id")
         "content_digest" (get rec "content_digest")
         "observed_at" (get rec "observed_at")
         "source" (get rec "source")
         "title" (get rec "title")
         "body" (get rec "body")}))))

(def all-record-info (mapv record-info record-ids))
(println "Records sorted by time:")
(doseq [r (sort-by #(get % "observed_at") all-record-info)]
  (println (get r "observed_at") "-" (get r "source") "-" (get r "title")))
nil)