(def timeline-entries
  [{"observed_at" "2026-01-14T17:30:00Z"
    "statement" "Release 2.1.0 deployed, replacing the CSV writer library"
    "citations" [{"evidence_id" "deploy-0440" "content_digest" "sha256:4faba2228fd9ec958d520359b4614451ce1b1cbad5f7fb6b30f6e9cdc745ceee"}]}
   {"observed_at" "2026-01-15T02:14:00Z"
    "statement" "Reconciliation job for 2026-01-15 ran and reported exit status 0 (success)"
    "citations" [{"evidence_id" "chat-2210" "content_digest" "sha256:a06e31d65db9030a1839f4fb679e55f1953e2001ff6ed21483159329a2783d99"}]}
   {"observed_at" "2026-01-15T02:14:00Z"
    "statement" "No monitoring alerts fired for the reconciliation job"
    "citations" [{"evidence_id" "alert-0000" "content_digest" "sha256:339ce872b804bcdb2d4e0e93bb8b5c3c7bc0f34cfa6965a44bba9d48672dfa96"}]}
   {"observed_at" "2026-01-22T02:14:00Z"
    "statement" "Reconciliation job for 2026-01-22 ran successfully, processing 412093 rows and writing output"
    "citations" [{"evidence_id" "log-90001" "content_digest" "sha256:47772f074f507f960c00a968289297fc257b37ca3b486af17a6ca82794b7491e"}]}
   {"observed_at" "2026-01-23T09:00:00Z"
    "statement" "Finance reported missing reconciliation output for 2026-01-15; files for other dates present"
    "citations" [{"evidence_id" "ticket-1101" "content_digest" "sha256:e77e27f114bbb1f633899d8b07ea05d12f753ca8e3d27bb6774ac9e60b11178f"}]}
   {"observed_at" "2026-01-23T14:00:00Z"
    "statement" "Missing output for 2026-01-15 was regenerated manually from downstream copy"
    "citations" [{"evidence_id" "ticket-1109" "content_digest" "sha256:2d857e1f8ad6a750aeb500570c666baa89920360cd5f464fa353d0f7cfd7ece2"}]}])

(def observed-facts
  [{"statement" "Release 2.1.0 deployed on 2026-01-14 replaced the CSV writer library"
    "citations" [{"evidence_id" "deploy-0440" "content_digest" "sha256:4faba2228fd9ec958d520359b4614451ce1b1cbad5f7fb6b30f6e9cdc745ceee"}]}
   {"statement" "The scheduler reported the 2026-01-15 reconciliation run completed successfully with exit status 0"
    "citations" [{"evidence_id" "chat-2210" "content_digest" "sha256:a06e31d65db9030a1839f4fb679e55f1953e2001ff6ed21483159329a2783d99"}]}
   {"statement" "No monitoring alerts were configured for the reconciliation job"
    "citations" [{"evidence_id" "chat-2225" "content_digest" "sha256:94fb1d02526f0f85b43e7868615aebc47c2292d7600b5a9032af46b5d2864194"}]}
   {"statement" "Application logs for the 2026-01-15 run were not retained due to 7-day retention policy"
    "citations" [{"evidence_id" "chat-2218" "content_digest" "sha256:e6085c432d2c56870c567671aae6b43f42e9a304c66ab0516cdd300ca7257978"}]}
   {"statement" "Input data for 2026-01-15 was not retained for replay due to 7-day retention policy"
    "citations" [{"evidence_id" "chat-2240" "content_digest" "sha256:a799f4812f06a8849241762072888b6e12c12da7159ecdf764918eede01f6d2f"}]}
   {"statement" "The reconciliation job for 2026-01-22 ran successfully and produced output"
    "citations" [{"evidence_id" "log-90001" "content_digest" "sha256:47772f074f507f960c00a968289297fc257b37ca3b486af17a6ca82794b7491e"}]}])

nil)