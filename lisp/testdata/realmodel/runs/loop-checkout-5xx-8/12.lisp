(let [deploy-2291 (find-record "deploy-2291")
      log-88120 (find-record "log-88120")
      log-88455 (find-record "log-88455")
      alert-4471 (find-record "alert-4471")
      alert-4472 (find-record "alert-4472")
      ticket-7742 (find-record "ticket-7742")
      chat-1180 (find-record "chat-1180")
      trace-5f21 (find-record "trace-5f21")
      chat-1186 (find-record "chat-1186")
      log-90013 (find-record "log-90013")
      chat-1204 (find-record "chat-1204")
      deploy-2292 (find-record "deploy-2292")
      ticket-7749 (find-record "ticket-7749")]
  
  (return
    {"incident_id" "checkout-5xx"
     "status" "report"
     "summary" "Checkout API experienced a 46-minute outage due to an expired TLS certificate on the payments gateway, not the coincidental deployment. The 5xx error ratio reached 0.184 (vs objective 0.005) and p99 latency rose to 10.4s. Recovery occurred after certificate rotation at 09:57:50Z, six minutes before an unnecessary rollback completed."
     "timeline" [
       {"observed_at" "2026-05-14T09:09:52Z"
        "statement" "checkout-api release 2026.5.14-a deployed with email template edits and CSV export dependency bump"
        "citations" [(make-citation deploy-2291)]}
       {"observed_at" "2026-05-14T09:11:47Z"
        "statement" "payments connector TLS handshake failures begin with 'certificate verify failed: certificate has expired' error"
        "citations" [(make-citation log-88120)]}
       {"observed_at" "2026-05-14T09:12:02Z"
        "statement" "checkout submit starts returning 502 upstream_unavailable after payments connector exhausts retries"
        "citations" [(make-citation log-88455)]}
       {"observed_at" "2026-05-14T09:12:03Z"
        "statement" "alert fires for checkout-api error ratio above objective (0.184 vs 0.005)"
        "citations" [(make-citation alert-4471)]}
       {"observed_at" "2026-05-14T09:14:41Z"
        "statement" "alert fires for checkout-api latency objective burn (p99 latency rose from 240ms to 10400ms)"
        "citations" [(make-citation alert-4472)]}
       {"observed_at" "2026-05-14T09:17:22Z"
        "statement" "responder attributes incident to the recent deployment and suggests rollback"
        "citations" [(make-citation chat-1180)]}
       {"observed_at" "2026-05-14T09:23:05Z"
        "statement" "responder disputes release attribution, noting deployment didn't touch submit path and pointing to TLS certificate failures"
        "citations" [(make-citation chat-1186)]}
       {"observed_at" "2026-05-14T09:57:55Z"
        "statement" "payments connector TLS handshakes succeed again, error rate returns to baseline"
        "citations" [(make-citation log-90013)]}
       {"observed_at" "2026-05-14T09:59:40Z"
        "statement" "payments-gateway team reports leaf certificate expired at 09:11:40Z and was rotated at 09:57:50Z"
        "citations" [(make-citation chat-1204)]}
       {"observed_at" "2026-05-14T10:04:18Z"
        "statement" "rollback to checkout-api 2026.5.13-c completes, six minutes after error ratio had already recovered"
        "citations" [(make-citation deploy-2292)]}
     ]
     "observed_facts" [
       {"statement" "Release 2026.5.14-a contained only email template edits and a CSV export library dependency bump"
        "citations" [(make-citation deploy-2291)]}
       {"statement" "No code path in release 2026.5.14-a is reachable from POST /v2/checkout/submit"
        "citations" [(make-citation deploy-2291)]}
       {"statement" "payments-gateway.internal leaf certificate expired at 09:11:40Z"
        "citations" [(make-citation chat-1204)]}
       {"statement" "TLS handshake failures to payments-gateway.internal:8443 began at 09:11:47Z with 'certificate verify failed: certificate has expired' error"
        "citations" [(make-citation log-88120)]}
       {"statement" "POST /v2/checkout/submit returned 502 upstream_unavailable after payments connector exhausted retries"
        "citations" [(make-citation log-88455)]}
       {"statement" "Sampled failing trace shows payments.authorize span took 10388ms and terminated by client timeout with no upstream response"
        "citations" [(make-citation trace-5f21)]}
       {"statement" "The 5xx ratio returned to 0.004 at 09:58:10Z, six minutes before the rollback completed"
        "citations" [(make-citation deploy-2292)]}
       {"statement" "INC-7742 resolution note reads only 'rolled back and recovered' and does not mention certificate rotation"
        "citations" [(make-citation ticket-7749)]}
     ]
     "hypotheses" [
       {"confidence" "high"
        "statement" "The checkout API outage was caused by the expired TLS certificate on payments-gateway.internal, not by release 2026.5.14-a"
        "supporting_citations" [(make-citation log-88120) (make-citation chat-1204) (make-citation deploy-2291) (make-citation trace-5f21)]
        "contradicting_citations" [(make-citation chat-1180)]}
       {"confidence" "medium"
        "statement" "The deployment and certificate expiration were coincidental in timing, leading to incorrect initial attribution"
        "supporting_citations" [(make-citation deploy-2291) (make-citation chat-1204) (make-citation chat-1186)]
        "contradicting_citations" []}
       {"confidence" "high"
        "statement" "The rollback was unnecessary as the system had already recovered from the certificate issue before rollback completion"
        "supporting_citations" [(make-citation log-90013) (make-citation deploy-2292) (make-citation chat-1204)]
        "contradicting_citations" []}
     ]
     "open_questions" [
       {"question" "Who owns the renewal automation for the payments-gateway.internal certificate?"
        "missing_evidence" "Documentation or runbook identifying certificate renewal ownership"
        "citations" [(make-citation chat-1204)]}
       {"question" "Why was no customer-impact estimate recorded during the incident?"
        "missing_evidence" "Impact assessment in INC-7742 or related documentation"
        "citations" [(make-citation ticket-7742)]}
       {"question" "Why does the resolution note not mention the actual root cause (certificate expiration)?"
        "missing_evidence" "Complete incident resolution documentation"
        "citations" [(make-citation ticket-7749) (make-citation chat-1204)]}
     ]
    }))