(let [deploy-citation (get-citation "deploy-0440")
      alert-citation (get-citation "alert-0000")
      log-citation (get-citation "log-90001")
      ticket-1101-citation (get-citation "ticket-1101")
      chat-2210-citation (get-citation "chat-2210")
      chat-2218-citation (get-citation "chat-2218")
      chat-2225-citation (get-citation "chat-2225")
      chat-2240-citation (get-citation "chat-2240")
      ticket-1109-citation (get-citation "ticket-1109")]
  
  (return
    {"incident_id" "batch-silent-failure"
     "status" "report"
     "summary" "The nightly reconciliation job for 2026-01-15 reported success but produced no output, discovered eight days later due to lack of monitoring and log retention policies."
     "timeline" [
       {"observed_at" "2026-01-14T17:30:00Z"
        "statement" "Release 2.1.0 deployed, replacing the CSV writer library"
        "citations" [deploy-citation]}
       {"observed_at" "2026-01-15T02:14:00Z"
        "statement" "Reconciliation job for 2026-01-15 ran and reported success with exit status 0"
        "citations" [chat-2210-citation]}
       {"observed_at" "2026-01-15T02:14:00Z"
        "statement" "No monitoring alerts fired for the reconciliation job"
        "citations" [alert-citation]}
       {"observed_at" "2026-01-23T09:00:00Z"
        "statement" "Finance reported missing reconciliation output for 2026-01-15"
        "citations" [ticket-1101-citation]}
       {"observed_at" "2026-01-23T09:40:00Z"
        "statement" "Responder confirmed scheduler shows job completed successfully"
        "citations" [chat-2210-citation]}
       {"observed_at" "2026-01-23T10:05:00Z"
        "statement" "Application logs for 2026-01-15 are unavailable due to 7-day retention policy"
        "citations" [chat-2218-citation]}
       {"observed_at" "2026-01-23T10:30:00Z"
        "statement" "No monitoring was configured for the job's output or duration"
        "citations" [chat-2225-citation]}
       {"observed_at" "2026-01-23T11:15:00Z"
        "statement" "Input data for 2026-01-15 is unavailable for replay due to retention"
        "citations" [chat-2240-citation]}
       {"observed_at" "2026-01-23T14:00:00Z"
        "statement" "Output was manually regenerated from a downstream copy"
        "citations" [ticket-1109-citation]}
     ]
     "observed_facts" [
       {"statement" "Release 2.1.0 deployed on 2026-01-14 replaced the CSV writer library"
        "citations" [deploy-citation]}
       {"statement" "The reconciliation job for 2026-01-15 reported success with exit status 0"
        "citations" [chat-2210-citation]}
       {"statement" "No monitoring alerts fired for the reconciliation job on 2026-01-15"
        "citations" [alert-citation]}
       {"statement" "The reconciliation output for 2026-01-15 was missing from the shared location"
        "citations" [ticket-1101-citation]}
       {"statement" "Application logs are retained for only seven days"
        "citations" [chat-2218-citation]}
       {"statement" "No monitoring was configured to check for job output production"
        "citations" [chat-2225-citation]}
       {"statement" "The scheduler only checks exit status and does not verify output was produced"
        "citations" [chat-2210-citation]}
       {"statement" "Input data for the job is also subject to seven-day retention"
        "citations" [chat-2240-citation]}
       {"statement" "The missing output was manually regenerated from a downstream copy"
        "citations" [ticket-1109-citation]}
     ]
     "hypotheses" [
       {"confidence" "medium"
        "statement" "The CSV writer library change in release 2.1.0 caused the job to exit successfully without producing output"
        "supporting_citations" [deploy-citation chat-2210-citation]
        "contradicting_citations" []}
       {"confidence" "low"
        "statement" "The job encountered a transient input data issue that caused it to exit early without error"
        "supporting_citations" [chat-2210-citation]
        "contradicting_citations" []}
       {"confidence" "high"
        "statement" "The lack of output monitoring allowed the failure to go undetected for eight days"
        "supporting_citations" [chat-2225-citation ticket-1101-citation]
        "contradicting_citations" []}
     ]
     "open_questions" [
       {"question" "Did the CSV writer library change affect error handling or exit behavior?"
        "missing_evidence" "Release notes or documentation detailing the CSV writer library's error handling behavior"}
       {"question" "What specific condition caused the job to exit with status 0 without producing output?"
        "missing_evidence" "Application logs from the 2026-01-15 run showing the job's internal state"}
       {"question" "Was there any data in the input stream for 2026-01-15 that could have triggered an edge case?"
        "missing_evidence" "Input data from 2026-01-15 to examine for anomalies"}
       {"question" "How many other runs between 2026-01-14 and 2026-01-23 may have had similar silent failures?"
        "missing_evidence" "Audit of all reconciliation job outputs since the deployment"}
     ]
    }))