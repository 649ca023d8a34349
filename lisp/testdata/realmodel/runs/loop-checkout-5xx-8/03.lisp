(defn fetch-record [evidence-id]
  (let [result (incident.evidence/get-record "checkout-5xx" evidence-id)]
    (if (get result "found")
      (get result "record")
      (println "Record not found:" evidence-id))))

(def all-ids (mapv #(get % "evidence_id") all-summaries))
(def all-records (mapv fetch-record all-ids))
(println "Fetched" (count all-records) "records")
nil)