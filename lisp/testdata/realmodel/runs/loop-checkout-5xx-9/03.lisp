(def all-records-summary (incident.evidence/search "checkout-5xx" nil nil nil))
(def record-ids (mapv #(get % "evidence_id") (get all-records-summary "records")))
(println "Record IDs:" record-ids)
nil)