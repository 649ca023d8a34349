(def record-summaries (incident.evidence/search "batch-silent-failure" nil nil nil))
(def record-ids (mapv #(get % "evidence_id") (get record-summaries "records")))
(println "Record IDs:" record-ids)
nil)