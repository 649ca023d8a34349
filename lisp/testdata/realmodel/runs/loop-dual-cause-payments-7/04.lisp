(def records (mapv #(incident.evidence/get-record "dual-cause-payments" %) evidence-ids))
(println "Fetched" (count records) "records")
(println "First record keys:" (keys (get (first records) "record")))
records)