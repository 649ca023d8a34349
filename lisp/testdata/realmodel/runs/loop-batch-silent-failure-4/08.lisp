(def citations (mapv (fn [r] {"evidence_id" (get r "evidence_id") "content_digest" (get r "content_digest")}) all-record-info))
(def verify-result (incident.evidence/resolve-citations "batch-silent-failure" citations))
(println "Citation verification:" verify-result)
nil)