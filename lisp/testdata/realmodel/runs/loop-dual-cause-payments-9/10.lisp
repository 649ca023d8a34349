(def hypotheses
  [{:statement "The concurrency increase from 8 to 32 workers caused database connection pool exhaustion because pool size (20) was insufficient for the increased worker count."
    :confidence "high"
    :supporting_evidence_ids ["deploy-5510" "log-66120" "log-67800"]
    :contradicting_evidence_ids []}
   {:statement "The service token expiry caused authentication failures to flags.internal, preventing workers from reading the settlement_v2_enabled flag and causing failures on approximately 31% of attempts."
    :confidence "high"
    :supporting_evidence_ids ["cred-0091" "log-66450" "log-68210"]
    :contradicting_evidence_ids []}
   {:statement "The two faults (pool exhaustion and token expiry) were independent and coincidental, occurring four minutes apart, with combined effect explaining the 61% failure rate."
    :confidence "high"
    :supporting_evidence_ids ["log-66120" "log-66450" "chat-5512" "metric-failure-ratio"]
    :contradicting_evidence_ids []}
   {:statement "The failure ratio reduction from 0.61 to 0.29 after pool fix indicates pool exhaustion accounted for approximately 32% of failures (0.61 - 0.29)."
    :confidence "medium"
    :supporting_evidence_ids ["log-67800" "metric-failure-ratio"]
    :contradicting_evidence_ids []}
   {:statement "The failure ratio reduction from 0.29 to 0.004 after token replacement indicates token expiry accounted for approximately 28.6% of failures (0.29 - 0.004)."
    :confidence "medium"
    :supporting_evidence_ids ["log-68210" "metric-failure-ratio"]
    :contradicting_evidence_ids []}])

(println "Hypotheses count:" (count hypotheses))
nil)