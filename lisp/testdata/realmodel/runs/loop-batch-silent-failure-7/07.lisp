(defn get-citation [record]
  (when (get record "found")
    (let [rec (get record "record")]
      {"evidence_id" (get rec "evidence_id")
       "content_digest" (get rec "content_digest")})))

(def citations (filterv identity (map get-citation records)))
(println "Created" (count citations) "citations")
nil)