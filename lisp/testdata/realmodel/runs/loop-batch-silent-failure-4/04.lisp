(def records (mapv #(incident.evidence/get-record "batch-silent-failure" %) record-ids))
(println "Fetched" (count records) "records")
(println "First record keys:" (keys (get (first records) "record")))
nil)