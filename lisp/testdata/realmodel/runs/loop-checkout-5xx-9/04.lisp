(def records (mapv #(incident.evidence/get-record "checkout-5xx" %) record-ids))
(println "Fetched" (count records) "records")
nil)