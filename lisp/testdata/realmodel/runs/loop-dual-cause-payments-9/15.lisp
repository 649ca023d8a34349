(def summary "Payment settlement failures occurred due to two independent, coincidental faults: 1) Database connection pool exhaustion caused by a concurrency increase from 8 to 32 workers while pool size remained at 20, and 2) Service token expiry for flags.internal causing authentication failures. The combined effect resulted in a 61% failure rate. The pool issue accounted for approximately 32% of failures and was resolved by increasing pool size to 64. The token issue accounted for approximately 28.6% of failures and was resolved by token replacement.")

(def report
  {:incident_id "dual-cause-payments"
   :status "report"
   :summary summary
   :timeline timeline
   :observed_facts observed-facts-with-citations
   :hypotheses hypotheses-with-citations
   :open_questions open-questions-with-citations})

(println "Report structure created")
(return report))