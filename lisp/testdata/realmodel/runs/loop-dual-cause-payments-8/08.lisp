(defn make-citation [record]
  {"evidence_id" (get record "evidence_id")
   "content_digest" (get record "content_digest")})

(def timeline-entries
  [{"observed_at" "2026-02-11T15:55:00Z"
    "statement" "Settlement-worker concurrency increased from 8 to 32 workers while database connection pool remained at 20."
    "citations" [(make-citation (first (filter #(= "deploy-5510" (get % "evidence_id")) all-records)))]}
   {"observed_at" "2026-02-11T15:58:10Z"
    "statement" "Database connection pool exhausted with pool size 20, checked-out 20, causing pool_timeout errors affecting approximately 0.38 of settlement attempts."
    "citations" [(make-citation (first (filter #(= "log-66120" (get % "evidence_id")) all-records)))]}
   {"observed_at" "2026-02-11T15:59:00Z"
    "statement" "Feature-flag service token expired; it was issued for 90 days on 2025-11-13 and its renewal was not automated."
    "citations" [(make-citation (first (filter #(= "cred-0091" (get % "evidence_id")) all-records)))]}
   {"observed_at" "2026-02-11T15:59:02Z"
    "statement" "Calls to flags.internal returning 401 invalid_token; settlement-worker fails closed when it cannot read the settlement_v2_enabled flag, affecting approximately 0.31 of attempts."
    "citations" [(make-citation (first (filter #(= "log-66450" (get % "evidence_id")) all-records)))]}
   {"observed_at" "2026-02-11T16:00:44Z"
    "statement" "Alert fired: settlement failure ratio reached 0.61 against objective of 0.02."
    "citations" [(make-citation (first (filter #(= "alert-7001" (get % "evidence_id")) all-records)))]}
   {"observed_at" "2026-02-11T16:05:00Z"
    "statement" "Incident ticket INC-2201 opened with severity 1, titled 'Settlements failing'."
    "citations" [(make-citation (first (filter #(= "ticket-2201" (get % "evidence_id")) all-records)))]}
   {"observed_at" "2026-02-11T17:20:15Z"
    "statement" "Connection pool raised to 64; pool_timeout errors stopped and settlement failure ratio fell from 0.61 to 0.29."
    "citations" [(make-citation (first (filter #(= "log-67800" (get % "evidence_id")) all-records)))
                 (make-citation (first (filter #(= "metric-failure-ratio" (get % "evidence_id")) all-records)))]}
   {"observed_at" "2026-02-11T18:12:10Z"
    "statement" "Replacement token for flags.internal installed; 401 responses stopped and settlement failure ratio fell from 0.29 to 0.004."
    "citations" [(make-citation (first (filter #(= "log-68210" (get % "evidence_id")) all-records)))]}])

(def observed-facts
  [{"statement" "The database connection pool size was not derived from the worker count and remained at 20 when worker concurrency increased to 32."
    "citations" [(make-citation (first (filter #(= "deploy-5510" (get % "evidence_id")) all-records)))]}
   {"statement" "Two distinct faults occurred: connection pool exhaustion starting at 15:58:10Z and feature-flag service token expiry starting at 15:59:00Z."
    "citations" [(make-citation (first (filter #(= "log-66120" (get % "evidence_id")) all-records)))
                 (make-citation (first (filter #(= "cred-0091" (get % "evidence_id")) all-records)))
                 (make-citation (first (filter #(= "chat-5512" (get % "evidence_id")) all-records)))]}
   {"statement" "The settlement failure ratio showed two distinct step changes: from 0.61 to 0.29 at 17:20Z (after pool fix) and from 0.29 to 0.004 at 18:12Z (after token fix)."
    "citations" [(make-citation (first (filter #(= "metric-failure-ratio" (get % "evidence_id")) all-records)))]}
   {"statement" "The alert did not clear until 18:12:30Z, approximately 2 hours and 12 minutes after it fired."
    "citations" [(make-citation (first (filter #(= "alert-7001" (get % "evidence_id")) all-records)))]}])

(def hypotheses
  [{"confidence" "high"
    "statement" "The connection pool exhaustion was caused by increasing worker concurrency from 8 to 32 while keeping the pool size at 20, creating contention for database connections."
    "supporting_citations" [(make-citation (first (filter #(= "deploy-5510" (get % "evidence_id")) all-records)))
                           (make-citation (first (filter #(= "log-66120" (get % "evidence_id")) all-records)))]
    "contradicting_citations" []}
   {"confidence" "high"
    "statement" "The feature-flag service token expiry caused settlement-worker to fail closed when it could not read the settlement_v2_enabled flag, independently contributing to settlement failures."
    "supporting_citations" [(make-citation (first (filter #(= "cred-0091" (get % "evidence_id")) all-records)))
                           (make-citation (first (filter #(= "log-66450" (get % "evidence_id")) all-records)))]
    "contradicting_citations" []}
   {"confidence" "medium"
    "statement" "The combined effect of both faults (pool exhaustion and token expiry) resulted in the observed 0.61 failure ratio, with each contributing approximately half of the failures based on the timing and remediation effects."
    "supporting_citations" [(make-citation (first (filter #(= "log-66120" (get % "evidence_id")) all-records)))
                           (make-citation (first (filter #(= "log-66450" (get % "evidence_id")) all-records)))
                           (make-citation (first (filter #(= "metric-failure-ratio" (get % "evidence_id")) all-records)))]
    "contradicting_citations" []}])

(def open-questions
  [{"question" "Why is the database connection pool size not derived from worker concurrency, and what configuration management prevents this mismatch?"
    "missing_evidence" "Configuration management documentation or design decisions explaining the relationship between worker concurrency and connection pool sizing."
    "citations" [(make-citation (first (filter #(= "deploy-5510" (get % "evidence_id")) all-records)))
                 (make-citation (first (filter #(= "chat-5540" (get % "evidence_id")) all-records)))]}
   {"question" "Which other service tokens are on manual renewal schedules and require auditing to prevent similar expiry incidents?"
    "missing_evidence" "Inventory of service tokens with their issuance dates, expiry dates, and renewal automation status."
    "citations" [(make-citation (first (filter #(= "cred-0091" (get % "evidence_id")) all-records)))
                 (make-citation (first (filter #(= "chat-5540" (get % "evidence_id")) all-records)))]}])

(println "Constructed timeline entries:" (count timeline-entries))
(println "Constructed observed facts:" (count observed-facts))
(println "Constructed hypotheses:" (count hypotheses))
(println "Constructed open questions:" (count open-questions))
nil)