(return
  {"incident_id" "checkout-5xx"
   "status" "report"
   "summary" "Checkout API experienced a 5xx spike from 09:12:03Z to 09:58:10Z due to payments-gateway.internal certificate expiry at 09:11:40Z, causing TLS handshake failures in the payments connector. Recovery occurred after certificate rotation at 09:57:50Z, not from the subsequent rollback. Initial misdiagnosis attributed the incident to a coincidental release."
   "timeline" (mapv (fn [entry]
                      {"observed_at" (:observed_at entry)
                       "statement" (:statement entry)
                       "citations" (:citations entry)})
                    timeline-entries)
   "observed_facts" (mapv (fn [fact]
                           {"statement" (:statement fact)
                            "citations" (:citations fact)})
                         observed-facts)
   "hypotheses" (mapv (fn [hyp]
                       (let [base {"confidence" (:confidence hyp)
                                   "statement" (:statement hyp)
                                   "supporting_citations" (:supporting_citations hyp)}]
                         (if (:contradicting_citations hyp)
                           (assoc base "contradicting_citations" (:contradicting_citations hyp))
                           base)))
                     hypotheses)
   "open_questions" (mapv (fn [q]
                           {"question" (:question q)
                            "missing_evidence" (:missing_evidence q)
                            "citations" (:citations q)})
                         open-questions)})