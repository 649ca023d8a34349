(defn extract-record-info [r]
  (let [rec (get r "record")]
    {"evidence_id" (get rec "evidence_id")
     "content_digest" (get rec "content_digest")
     "observed_at" (get rec "observed_at")
     "source" (get rec "source")
     "title" (get rec "title")
     "body" (get rec "body")}))

(def record-infos (mapv extract-record-info records))
(def sorted-records (sort-by #(get % "observed_at") record-infos))

(println "Sorted records by time:")
(doseq [r sorted-records]
  (println (get r "observed_at") (get r "source") (get r "title")))