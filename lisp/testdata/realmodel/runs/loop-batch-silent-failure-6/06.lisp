(defn get-citation [evidence-id]
  (let [record (first (filter #(= evidence-id (get % "evidence_id")) records))]
    (when (get record "found")
      {"evidence_id" evidence-id
       "content_digest" (get-in record ["record" "content_digest"])})))

(def citations (mapv get-citation record-ids))
(println "Citations created for all records")
nil)