(let [timeline [
        {"observed_at" (get deploy-2291 "observed_at")
         "statement" "checkout-api release 2026.5.14-a deployed to production"
         "citations" [(make-citation deploy-2291)]}
        {"observed_at" (get log-88120 "observed_at")
         "statement" "payments connector begins experiencing TLS handshake failures due to expired certificate at payments-gateway.internal:8443"
         "citations" [(make-citation log-88120)]}
        {"observed_at" (get log-88455 "observed_at")
         "statement" "checkout submit requests start returning 502 upstream_unavailable after payments connector retries exhausted"
         "citations" [(make-citation log-88455)]}
        {"observed_at" (get alert-4471 "observed_at")
         "statement" "alert fires for checkout-api error ratio above objective (0.184 vs 0.005) on POST /v2/checkout/submit"
         "citations" [(make-citation alert-4471)]}
        {"observed_at" (get alert-4472 "observed_at")
         "statement" "alert fires for checkout-api latency objective burn with p99 latency rising to 10400ms (client timeout) on POST /v2/checkout/submit"
         "citations" [(make-citation alert-4472)]}
        {"observed_at" (get trace-5f21 "observed_at")
         "statement" "sampled trace shows payments.authorize span timing out after 10388ms with no upstream response"
         "citations" [(make-citation trace-5f21)]}
        {"observed_at" (get log-90013 "observed_at")
         "statement" "payments connector TLS handshakes succeed again after certificate rotation takes effect"
         "citations" [(make-citation log-90013)]}
        {"observed_at" (get deploy-2292 "observed_at")
         "statement" "checkout-api rolled back to 2026.5.13-c, six minutes after error ratio returned to baseline"
         "citations" [(make-citation deploy-2292)]}
      ]
      
      observed_facts [
        {"statement" "Release 2026.5.14-a contained only email template changes and a CSV export library dependency bump"
         "citations" [(make-citation deploy-2291)]}
        {"statement" "No code path in release 2026.5.14-a is reachable from POST /v2/checkout/submit"
         "citations" [(make-citation deploy-2291)]}
        {"statement" "TLS handshake failures began at 09:11:47Z with error 'certificate verify failed: certificate has expired'"
         "citations" [(make-citation log-88120)]}
        {"statement" "The payments-gateway.internal leaf certificate expired at 09:11:40Z"
         "citations" [(make-citation chat-1204)]}
        {"statement" "Certificate rotation took effect at 09:57:50Z"
         "citations" [(make-citation chat-1204)]}
        {"statement" "Error ratio returned to baseline (0.004) at 09:58:10Z"
         "citations" [(make-citation alert-4471)]}
        {"statement" "The rollback completed at 10:04:18Z, after recovery"
         "citations" [(make-citation deploy-2292)]}
        {"statement" "Sampled trace shows no span entered email template or CSV export code paths"
         "citations" [(make-citation trace-5f21)]}
      ]
      
      hypotheses [
        {"confidence" "high"
         "statement" "The incident was caused by an expired certificate on payments-gateway.internal, not by release 2026.5.14-a"
         "supporting_citations" [(make-citation log-88120) (make-citation chat-1186) (make-citation chat-1204) (make-citation trace-5f21)]
         "contradicting_citations" [(make-citation chat-1180)]}
        {"confidence" "medium"
         "statement" "The temporal proximity of the release (09:09:52Z) and certificate expiration (09:11:40Z) led to incorrect attribution"
         "supporting_citations" [(make-citation deploy-2291) (make-citation log-88120) (make-citation chat-1180)]
         "contradicting_citations" []}
      ]
      
      open_questions [
        {"question" "Who owns the renewal automation for the payments-gateway.internal certificate?"
         "missing_evidence" "Documentation or runbook identifying certificate renewal ownership"
         "citations" [(make-citation chat-1204)]}
        {"question" "What was the customer impact estimate during the incident?"
         "missing_evidence" "Impact assessment in INC-7742 or incident channel"
         "citations" [(make-citation (find-record-by-id "ticket-7742"))]}
      ]
      
      summary "A spike in 5xx errors and latency for checkout submit was caused by an expired certificate on payments-gateway.internal, not by the coincidentally timed release 2026.5.14-a. The certificate expired at 09:11:40Z, causing TLS handshake failures starting at 09:11:47Z. Recovery occurred after certificate rotation at 09:57:50Z. An unnecessary rollback was performed after recovery."
      
      report {
        "incident_id" "checkout-5xx"
        "status" "report"
        "summary" summary
        "timeline" timeline
        "observed_facts" observed_facts
        "hypotheses" hypotheses
        "open_questions" open_questions
      }]
  
  (println "Report structure built")
  (return report))