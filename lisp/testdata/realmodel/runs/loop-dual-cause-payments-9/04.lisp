(def records (mapv #(incident.evidence/get-record "dual-cause-payments" %) evidence-ids))
(println "Fetched" (count records) "records")
nil)