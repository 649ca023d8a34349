(def hypotheses
  [{"confidence" "high"
    "statement" "The CSV writer library change in release 2.1.0 introduced a failure mode where the job exits with status 0 but produces no output"
    "supporting_citations" [{"evidence_id" "deploy-0440" "content_digest" "sha256:4faba2228fd9ec958d520359b4614451ce1b1cbad5f7fb6b30f6e9cdc745ceee"}
                           {"evidence_id" "chat-2210" "content_digest" "sha256:a06e31d65db9030a1839f4fb679e55f1953e2001ff6ed21483159329a2783d99"}]
    "contradicting_citations" [{"evidence_id" "log-90001" "content_digest" "sha256:47772f074f507f960c00a968289297fc257b37ca3b486af17a6ca82794b7491e"}]}
   {"confidence" "medium"
    "statement" "The job failure went undetected for 8 days because no monitoring was configured to check for output production"
    "supporting_citations" [{"evidence_id" "chat-2225" "content_digest" "sha256:94fb1d02526f0f85b43e7868615aebc47c2292d7600b5a9032af46b5d2864194"}
                           {"evidence_id" "alert-0000" "content_digest" "sha256:339ce872b804bcdb2d4e0e93bb8b5c3c7bc0f34cfa6965a44bba9d48672dfa96"}]
    "contradicting_citations" []}
   {"confidence" "low"
    "statement" "Input data for 2026-01-15 was corrupted or missing, causing the job to fail silently"
    "supporting_citations" [{"evidence_id" "chat-2240" "content_digest" "sha256:a799f4812f06a8849241762072888b6e12c12da7159ecdf764918eede01f6d2f"}]
    "contradicting_citations" [{"evidence_id" "ticket-1101" "content_digest" "sha256:e77e27f114bbb1f633899d8b07ea05d12f753ca8e3d27bb6774ac9e60b11178f"}]}])

(def open-questions
  [{"question" "Does the new CSV writer library in release 2.1.0 have failure modes where it exits with status 0 but produces no output?"
    "missing_evidence" "Library documentation or test results showing exit behavior"
    "citations" [{"evidence_id" "deploy-0440" "content_digest" "sha256:4faba2228fd9ec958d520359b4614451ce1b1cbad5f7fb6b30f6e9cdc745ceee"}]}
   {"question" "What exactly happened during the 2026-01-15 reconciliation run?"
    "missing_evidence" "Application logs from the 2026-01-15 run"
    "citations" [{"evidence_id" "chat-2218" "content_digest" "sha256:e6085c432d2c56870c567671aae6b43f42e9a304c66ab0516cdd300ca7257978"}]}
   {"question" "Was the input data for 2026-01-15 valid and complete?"
    "missing_evidence" "Input data validation logs or upstream extract logs for 2026-01-15"
    "citations" [{"evidence_id" "chat-2240" "content_digest" "sha256:a799f4812f06a8849241762072888b6e12c12da7159ecdf764918eede01f6d2f"}]}])

nil)