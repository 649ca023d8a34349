(def hypotheses-fixed [
  {"confidence" "high"
   "statement" "The CSV writer library introduced in release 2.1.0 may have failed silently without changing exit status"
   "supporting_citations" [(get-citation (find-record "deploy-0440")) (get-citation (find-record "chat-2210"))]
   "contradicting_citations" []}
  
  {"confidence" "medium"
   "statement" "The job may have encountered empty or malformed input data on 2026-01-15, causing the CSV writer to produce no output"
   "supporting_citations" [(get-citation (find-record "chat-2240"))]
   "contradicting_citations" []}
  
  {"confidence" "low"
   "statement" "A filesystem or permission issue may have prevented writing output while allowing the job to exit successfully"
   "supporting_citations" [(get-citation (find-record "ticket-1101"))]
   "contradicting_citations" [(get-citation (find-record "log-90001"))]}
])

(return
  {"incident_id" "batch-silent-failure"
   "status" "report"
   "summary" "The reconciliation job for 2026-01-15 reported success (exit status 0) but produced no output file. The failure went undetected for eight days due to lack of monitoring. A library update deployed nine hours before the run may have introduced silent failure behavior. Critical evidence (logs and input data) was lost due to seven-day retention policies."
   "timeline" timeline
   "observed_facts" observed-facts
   "hypotheses" hypotheses-fixed
   "open_questions" open-questions})