(defn extract-record-info [record]
  (let [found (get record "found")
        evidence-id (get record "evidence_id")
        rec (get record "record")]
    (if found
      {:evidence_id evidence-id
       :observed_at (get rec "observed_at")
       :source (get rec "source")
       :title (get rec "title")
       :body (get rec "body")
       :content_digest (get rec "content_digest")}
      {:evidence_id evidence-id :found false})))

(def record-infos (mapv extract-record-info records))
(println "First record body preview:" (get-in (first record-infos) [:body]))
nil)