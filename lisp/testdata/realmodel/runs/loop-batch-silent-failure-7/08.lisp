(defn find-record [evidence-id]
  (first (filter #(= evidence-id (get-in % ["record" "evidence_id"])) records)))

(def timeline [
  {"observed_at" "2026-01-14T17:30:00Z"
   "statement" "Release 2.1.0 deployed, replacing the CSV writer library"
   "citations" [(get-citation (find-record "deploy-0440"))]}
  
  {"observed_at" "2026-01-15T02:14:00Z"
   "statement" "Reconciliation job for 2026-01-15 reported successful completion with exit status 0"
   "citations" [(get-citation (find-record "chat-2210"))]}
  
  {"observed_at" "2026-01-15T02:14:00Z"
   "statement" "No monitoring alerts fired for the reconciliation job"
   "citations" [(get-citation (find-record "alert-0000"))]}
  
  {"observed_at" "2026-01-22T02:14:00Z"
   "statement" "Reconciliation job for 2026-01-22 completed successfully, processing 412093 rows and writing output"
   "citations" [(get-citation (find-record "log-90001"))]}
  
  {"observed_at" "2026-01-23T09:00:00Z"
   "statement" "Finance reported missing reconciliation output for 2026-01-15; files for all other January dates present"
   "citations" [(get-citation (find-record "ticket-1101"))]}
  
  {"observed_at" "2026-01-23T09:40:00Z"
   "statement" "Scheduler showed 2026-01-15 reconciliation run as completed successfully with exit status 0"
   "citations" [(get-citation (find-record "chat-2210"))]}
  
  {"observed_at" "2026-01-23T10:05:00Z"
   "statement" "Application logs for 2026-01-15 run were not retained due to seven-day retention policy"
   "citations" [(get-citation (find-record "chat-2218"))]}
  
  {"observed_at" "2026-01-23T10:30:00Z"
   "statement" "No monitoring alerts were configured for the reconciliation job"
   "citations" [(get-citation (find-record "chat-2225"))]}
  
  {"observed_at" "2026-01-23T11:15:00Z"
   "statement" "Upstream input data for 2026-01-15 cannot be replayed due to seven-day retention"
   "citations" [(get-citation (find-record "chat-2240"))]}
  
  {"observed_at" "2026-01-23T14:00:00Z"
   "statement" "2026-01-15 output was regenerated manually from a downstream copy; root cause remains unknown"
   "citations" [(get-citation (find-record "ticket-1109"))]}
])

(println "Timeline has" (count timeline) "events")
nil)