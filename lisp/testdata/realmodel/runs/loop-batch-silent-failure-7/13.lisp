(return
  {"incident_id" "batch-silent-failure"
   "status" "report"
   "summary" "The reconciliation job for 2026-01-15 reported success (exit status 0) but produced no output file. The failure went undetected for eight days due to lack of monitoring. A library update deployed nine hours before the run may have introduced silent failure behavior. Critical evidence (logs and input data) was lost due to seven-day retention policies."
   "timeline" timeline
   "observed_facts" observed-facts
   "hypotheses" hypotheses
   "open_questions" open-questions})