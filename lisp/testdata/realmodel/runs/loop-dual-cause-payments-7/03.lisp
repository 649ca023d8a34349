(def evidence-ids (mapv #(get % "evidence_id") all-record-summaries))
evidence-ids