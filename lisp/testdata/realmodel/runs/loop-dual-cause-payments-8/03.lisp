(def all-record-summaries (get (incident.evidence/search "dual-cause-payments" nil nil nil) "records"))
(def all-evidence-ids (mapv #(get % "evidence_id") all-record-summaries))
(println "Evidence IDs:" all-evidence-ids)
nil)