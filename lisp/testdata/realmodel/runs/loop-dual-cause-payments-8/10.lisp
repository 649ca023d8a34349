(return
  {"incident_id" "dual-cause-payments"
   "status" "report"
   "summary" "Payment settlement failures resulted from two independent faults: (1) database connection pool exhaustion after worker concurrency increased without corresponding pool expansion, and (2) feature-flag service token expiry causing fail-closed behavior. The faults started four minutes apart and were remediated sequentially, with the pool fix reducing failures from 61% to 29% and the token fix resolving to 0.4%."
   "timeline" timeline-entries
   "observed_facts" observed-facts
   "hypotheses" hypotheses
   "open_questions" open-questions})