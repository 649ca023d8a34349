(return
  {"incident_id" "dual-cause-payments"
   "status" "report"
   "summary" "Payment settlement failures occurred due to two independent concurrent faults: database connection pool exhaustion from increased worker concurrency, and feature-flag service token expiry. The pool exhaustion began at 15:58:10Z, token failures began at 15:59:02Z, and together they caused 61% settlement failures. Pool enlargement at 17:20Z resolved pool exhaustion, reducing failures to 29%. Token replacement at 18:12Z resolved remaining failures, bringing failure rate to 0.4%."
   "timeline" [
     {"observed_at" "2026-02-11T15:55:00Z"
      "statement" "settlement-worker concurrency increased from 8 to 32 workers; database connection pool size remained at 20"
      "citations" [(make-citation "deploy-5510")]}
     {"observed_at" "2026-02-11T15:58:10Z"
      "statement" "database connection pool exhausted with pool size 20, checked-out 20, queue depth rising; pool_timeout errors affected approximately 38% of attempts"
      "citations" [(make-citation "log-66120")]}
     {"observed_at" "2026-02-11T15:59:00Z"
      "statement" "feature-flag service token expired; token was issued for 90 days on 2025-11-13 and renewal was not automated"
      "citations" [(make-citation "cred-0091")]}
     {"observed_at" "2026-02-11T15:59:02Z"
      "statement" "calls to flags.internal returning 401 invalid_token; affects approximately 31% of attempts, overlapping with pool_timeout failures"
      "citations" [(make-citation "log-66450")]}
     {"observed_at" "2026-02-11T16:00:44Z"
      "statement" "alert fired: settlement attempts failing reached 61% against objective of 2%"
      "citations" [(make-citation "alert-7001")]}
     {"observed_at" "2026-02-11T16:05:00Z"
      "statement" "INC-2201 opened with severity 1, title 'Settlements failing'"
      "citations" [(make-citation "ticket-2201")]}
     {"observed_at" "2026-02-11T17:20:15Z"
      "statement" "connection pool raised to 64; pool_timeout errors stopped; settlement failure ratio fell from 61% to 29%"
      "citations" [(make-citation "log-67800") (make-citation "metric-failure-ratio")]}
     {"observed_at" "2026-02-11T17:25:40Z"
      "statement" "responder expected full recovery after pool fix but observed continued 29% failure rate"
      "citations" [(make-citation "chat-5501")]}
     {"observed_at" "2026-02-11T17:41:05Z"
      "statement" "responder identified two independent faults: pool exhaustion from concurrency change and token expiry"
      "citations" [(make-citation "chat-5512")]}
     {"observed_at" "2026-02-11T18:12:10Z"
      "statement" "replacement token for flags.internal installed; 401 responses stopped; settlement failure ratio fell from 29% to 0.4%"
      "citations" [(make-citation "log-68210") (make-citation "metric-failure-ratio")]}
     {"observed_at" "2026-02-11T18:20:00Z"
      "statement" "both faults fixed; questions remain about why pool size is not derived from worker concurrency and which other service tokens are on manual renewal"
      "citations" [(make-citation "chat-5540")]}]
   "observed_facts" [
     {"statement" "The database connection pool size was 20 and was not derived from the worker count"
      "citations" [(make-citation "deploy-5510")]}
     {"statement" "Pool exhaustion affected approximately 38% of settlement attempts"
      "citations" [(make-citation "log-66120")]}
     {"statement" "Token expiry affected approximately 31% of settlement attempts"
      "citations" [(make-citation "log-66450")]}
     {"statement" "The two failure modes overlapped on some attempts"
      "citations" [(make-citation "log-66450")]}
     {"statement" "Settlement failure ratio reached 61% at 16:00Z"
      "citations" [(make-citation "alert-7001") (make-citation "metric-failure-ratio")]}
     {"statement" "Pool enlargement to 64 at 17:20Z eliminated pool_timeout errors"
      "citations" [(make-citation "log-67800")]}
     {"statement" "After pool enlargement, settlement failure ratio remained at 29%"
      "citations" [(make-citation "log-67800") (make-citation "metric-failure-ratio")]}
     {"statement" "Token replacement at 18:12Z eliminated 401 invalid_token errors"
      "citations" [(make-citation "log-68210")]}
     {"statement" "After token replacement, settlement failure ratio fell to 0.4%"
      "citations" [(make-citation "log-68210") (make-citation "metric-failure-ratio")]}
     {"statement" "The incident ticket INC-2201 recorded no settlement value at risk"
      "citations" [(make-citation "ticket-2201")]}]
   "hypotheses" [
     {"confidence" "high"
      "statement" "The concurrency increase from 8 to 32 workers caused database connection pool exhaustion because the pool size remained at 20"
      "supporting_citations" [(make-citation "deploy-5510") (make-citation "log-66120") (make-citation "chat-5512")]
      "contradicting_citations" []}
     {"confidence" "high"
      "statement" "The feature-flag service token expiry caused 401 invalid_token errors because the token renewal was not automated"
      "supporting_citations" [(make-citation "cred-0091") (make-citation "log-66450") (make-citation "chat-5512")]
      "contradicting_citations" []}
     {"confidence" "medium"
      "statement" "The combined effect of pool exhaustion (38% failure) and token expiry (31% failure) produced the observed 61% failure rate, with overlap explaining why the sum exceeds 100%"
      "supporting_citations" [(make-citation "log-66120") (make-citation "log-66450") (make-citation "metric-failure-ratio")]
      "contradicting_citations" []}
     {"confidence" "low"
      "statement" "The pool exhaustion began slightly before token expiry failures, suggesting the concurrency change triggered the incident sequence"
      "supporting_citations" [(make-citation "log-66120") (make-citation "log-66450")]
      "contradicting_citations" [(make-citation "cred-0091")]}]
   "open_questions" [
     {"question" "Why is the database connection pool size not derived from worker concurrency?"
      "missing_evidence" "Design documentation or configuration management records explaining the relationship between worker count and pool size"
      "citations" [(make-citation "chat-5540")]}
     {"question" "Which other service tokens are on manual renewal and when do they expire?"
      "missing_evidence" "Inventory of service tokens with their issuance dates, expiry dates, and renewal automation status"
      "citations" [(make-citation "chat-5540")]}
     {"question" "What was the settlement value at risk during the incident?"
      "missing_evidence" "Financial impact assessment or transaction volume data during the failure period"
      "citations" [(make-citation "ticket-2201")]}]})