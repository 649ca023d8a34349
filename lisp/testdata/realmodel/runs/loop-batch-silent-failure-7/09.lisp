(def observed-facts [
  {"statement" "The reconciliation job for 2026-01-15 reported exit status 0 (success)"
   "citations" [(get-citation (find-record "chat-2210"))]}
  
  {"statement" "No output file was produced for the 2026-01-15 reconciliation run"
   "citations" [(get-citation (find-record "ticket-1101"))]}
  
  {"statement" "Files for all other January dates are present in the shared location"
   "citations" [(get-citation (find-record "ticket-1101"))]}
  
  {"statement" "No monitoring alerts were configured for the reconciliation job"
   "citations" [(get-citation (find-record "chat-2225"))]}
  
  {"statement" "Application logs are retained for seven days only"
   "citations" [(get-citation (find-record "chat-2218"))]}
  
  {"statement" "Upstream input data is retained for seven days only"
   "citations" [(get-citation (find-record "chat-2240"))]}
  
  {"statement" "Release 2.1.0 replaced the CSV writer library approximately nine hours before the failed run"
   "citations" [(get-citation (find-record "deploy-0440"))]}
  
  {"statement" "The scheduler reports success based on exit status alone and does not verify output production"
   "citations" [(get-citation (find-record "chat-2210"))]}
])

(println "Observed facts:" (count observed-facts))
nil)