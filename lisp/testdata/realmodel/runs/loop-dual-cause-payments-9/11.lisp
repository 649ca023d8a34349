(def open-questions
  [{:question "Why is database connection pool size not derived from worker concurrency to prevent such mismatches?"
    :missing_evidence "Configuration design documentation or architecture decision records explaining the relationship between worker concurrency and connection pool sizing."
    :evidence_ids ["chat-5540"]}
   {:question "Which other service tokens are on manual renewal and may be at risk of similar expiry?"
    :missing_evidence "Inventory of service tokens with their issuance dates, expiry dates, and renewal automation status."
    :evidence_ids ["chat-5540"]}
   {:question "What was the actual settlement value at risk during the incident?"
    :missing_evidence "Financial impact assessment or transaction volume data showing monetary exposure."
    :evidence_ids ["ticket-2201"]}])

(println "Open questions count:" (count open-questions))
nil)