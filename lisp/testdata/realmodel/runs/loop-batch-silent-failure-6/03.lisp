(def record-ids ["deploy-0440" "alert-0000" "log-90001" "ticket-1101" "chat-2210" "chat-2218" "chat-2225" "chat-2240" "ticket-1109"])
(def records (mapv #(incident.evidence/get-record "batch-silent-failure" %) record-ids))
(println "Fetched" (count records) "records")
nil)