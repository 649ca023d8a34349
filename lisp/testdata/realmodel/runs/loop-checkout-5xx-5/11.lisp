(def hypotheses
  [{:confidence "high"
    :statement "The checkout API 5xx spike was caused by the payments-gateway.internal certificate expiring at 09:11:40Z, not by the release deployed at 09:09:52Z"
    :supporting_citations [(get-citation (first (filter #(= "chat-1204" (get-in % ["record" "evidence_id"])) records)))
                          (get-citation (first (filter #(= "log-88120" (get-in % ["record" "evidence_id"])) records)))
                          (get-citation (first (filter #(= "log-88455" (get-in % ["record" "evidence_id"])) records)))
                          (get-citation (first (filter #(= "deploy-2291" (get-in % ["record" "evidence_id"])) records)))]
    :contradicting_citations [(get-citation (first (filter #(= "chat-1180" (get-in % ["record" "evidence_id"])) records)))]}
   {:confidence "medium"
    :statement "The recovery at 09:57:55Z was due to certificate rotation taking effect at 09:57:50Z, not due to the rollback completed at 10:04:18Z"
    :supporting_citations [(get-citation (first (filter #(= "chat-1204" (get-in % ["record" "evidence_id"])) records)))
                          (get-citation (first (filter #(= "log-90013" (get-in % ["record" "evidence_id"])) records)))
                          (get-citation (first (filter #(= "deploy-2292" (get-in % ["record" "evidence_id"])) records)))]}
   {:confidence "low"
    :statement "The release timing (two minutes before the incident) contributed to initial misdiagnosis and delayed correct root cause identification"
    :supporting_citations [(get-citation (first (filter #(= "chat-1180" (get-in % ["record" "evidence_id"])) records)))
                          (get-citation (first (filter #(= "chat-1186" (get-in % ["record" "evidence_id"])) records)))]}])

(def open-questions
  [{:question "Who owns the renewal automation for the payments-gateway.internal certificate?"
    :missing_evidence "Documentation or configuration showing certificate renewal ownership"
    :citations [(get-citation (first (filter #(= "chat-1204" (get-in % ["record" "evidence_id"])) records)))]}
   {:question "What was the customer impact estimate during the incident?"
    :missing_evidence "Impact assessment in the incident ticket or responder notes"
    :citations [(get-citation (first (filter #(= "ticket-7742" (get-in % ["record" "evidence_id"])) records)))]}
   {:question "Why does the incident ticket resolution note not mention the certificate rotation as the root cause?"
    :missing_evidence "Explanation for discrepancy between chat evidence and ticket resolution"
    :citations [(get-citation (first (filter #(= "ticket-7749" (get-in % ["record" "evidence_id"])) records)))
               (get-citation (first (filter #(= "chat-1204" (get-in % ["record" "evidence_id"])) records)))]}])

nil)