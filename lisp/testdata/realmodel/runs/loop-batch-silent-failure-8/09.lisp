(let [recs-by-id (into {} (map #(vector (:evidence_id %) %) record-data))
      
      ; Timeline entries with citations
      timeline (mapv (fn [rec]
                      {:observed_at (:observed_at rec)
                       :statement (:statement rec)
                       :citations [{:evidence_id (:evidence_id rec)
                                   :content_digest (:content_digest rec)}]})
                    timeline-entries)
      
      ; Observed facts from evidence
      observed_facts [
        {:statement "Release 2.1.0 was deployed on 2026-01-14 at 17:30:00Z, replacing the CSV writer library"
         :citations [{:evidence_id "deploy-0440" :content_digest "sha256:4faba2228fd9ec958d520359b4614451ce1b1cbad5f7fb6b30f6e9cdc745ceee"}]}
        {:statement "No alerts fired for the reconciliation job on 2026-01-15"
         :citations [{:evidence_id "alert-0000" :content_digest "sha256:339ce872b804bcdb2d4e0e93bb8b5c3c7bc0f34cfa6965a44bba9d48672dfa96"}]}
        {:statement "The scheduler reported the 2026-01-15 reconciliation run completed successfully with exit status 0 at 02:14:00Z"
         :citations [{:evidence_id "chat-2210" :content_digest "sha256:a06e31d65db9030a1839f4fb679e55f1953e2001ff6ed21483159329a2783d99"}]}
        {:statement "Finance reported the nightly reconciliation output for 2026-01-15 was absent from the shared location on 2026-01-23"
         :citations [{:evidence_id "ticket-1101" :content_digest "sha256:e77e27f114bbb1f633899d8b07ea05d12f753ca8e3d27bb6774ac9e60b11178f"}]}
        {:statement "Application logs for the reconciliation job are retained for seven days, and logs for the 2026-01-15 run were no longer available"
         :citations [{:evidence_id "chat-2218" :content_digest "sha256:e6085c432d2c56870c567671aae6b43f42e9a304c66ab0516cdd300ca7257978"}]}
        {:statement "There was no alert monitoring configured for the reconciliation job"
         :citations [{:evidence_id "chat-2225" :content_digest "sha256:94fb1d02526f0f85b43e7868615aebc47c2292d7600b5a9032af46b5d2864194"}]}
        {:statement "The upstream extract data that the job reads is also on seven-day retention, preventing replay of the 2026-01-15 run"
         :citations [{:evidence_id "chat-2240" :content_digest "sha256:a799f4812f06a8849241762072888b6e12c12da7159ecdf764918eede01f6d2f"}]}
        {:statement "The 2026-01-15 output was regenerated manually from a downstream copy on 2026-01-23"
         :citations [{:evidence_id "ticket-1109" :content_digest "sha256:2d857e1f8ad6a750aeb500570c666baa89920360cd5f464fa353d0f7cfd7ece2"}]}
      ]
      
      ; Hypotheses based on evidence
      hypotheses [
        {:confidence "high"
         :statement "The CSV writer library change in release 2.1.0 may have introduced a silent failure mode where the job exits with status 0 but produces no output"
         :supporting_citations [{:evidence_id "deploy-0440" :content_digest "sha256:4faba2228fd9ec958d520359b4614451ce1b1cbad5f7fb6b30f6e9cdc745ceee"}
                               {:evidence_id "chat-2210" :content_digest "sha256:a06e31d65db9030a1839f4fb679e55f1953e2001ff6ed21483159329a2783d99"}]}
        {:confidence "medium"
         :statement "The job failure went undetected for eight days due to lack of output validation and alert monitoring"
         :supporting_citations [{:evidence_id "chat-2210" :content_digest "sha256:a06e31d65db9030a1839f4fb679e55f1953e2001ff6ed21483159329a2783d99"}
                               {:evidence_id "chat-2225" :content_digest "sha256:94fb1d02526f0f85b43e7868615aebc47c2292d7600b5a9032af46b5d2864194"}
                               {:evidence_id "ticket-1101" :content_digest "sha256:e77e27f114bbb1f633899d8b07ea05d12f753ca8e3d27bb6774ac9e60b11178f"}]}
      ]
      
      ; Open questions
      open_questions [
        {:question "What specific failure occurred in the CSV writer library that caused no output to be produced?"
         :missing_evidence "Application logs from the 2026-01-15 run showing error messages or stack traces"
         :citations [{:evidence_id "chat-2218" :content_digest "sha256:e6085c432d2c56870c567671aae6b43f42e9a304c66ab0516cdd300ca7257978"}]}
        {:question "Did the job process any data on 2026-01-15, or did it fail before processing began?"
         :missing_evidence "Input data from 2026-01-15 to test replay and determine if data quality issues contributed"
         :citations [{:evidence_id "chat-2240" :content_digest "sha256:a799f4812f06a8849241762072888b6e12c12da7159ecdf764918eede01f6d2f"}]}
        {:question "Does the new CSV writer library properly signal failures through exit status, or does it exit with status 0 on certain errors?"
         :missing_evidence "Release documentation or testing results for the CSV writer library change"
         :citations [{:evidence_id "deploy-0440" :content_digest "sha256:4faba2228fd9ec958d520359b4614451ce1b1cbad5f7fb6b30f6e9cdc745ceee"}]}
      ]
      
      ; Summary
      summary "The reconciliation job for 2026-01-15 reported success but produced no output, discovered eight days later. A deployment nine hours prior replaced the CSV writer library. No monitoring was configured to detect missing output, and logs/data retention policies prevented investigation."
      
      report {:incident_id "batch-silent-failure"
              :status "report"
              :summary summary
              :timeline timeline
              :observed_facts observed_facts
              :hypotheses hypotheses
              :open_questions open_questions}]
  
  (println "Report structure complete")
  (return report))