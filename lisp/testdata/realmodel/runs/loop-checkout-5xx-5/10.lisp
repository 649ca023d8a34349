(defn get-citation [record]
  (let [rec (get record "record")]
    {"evidence_id" (get rec "evidence_id")
     "content_digest" (get rec "content_digest")}))

(def timeline-entries
  [{:observed_at "2026-05-14T09:09:52Z"
    :statement "checkout-api release 2026.5.14-a deployed to production"
    :citations [(get-citation (first (filter #(= "deploy-2291" (get-in % ["record" "evidence_id"])) records)))]}
   {:observed_at "2026-05-14T09:11:40Z"
    :statement "payments-gateway.internal leaf certificate expired"
    :citations [(get-citation (first (filter #(= "chat-1204" (get-in % ["record" "evidence_id"])) records)))]}
   {:observed_at "2026-05-14T09:11:47Z"
    :statement "payments connector TLS handshake failures begin due to expired certificate"
    :citations [(get-citation (first (filter #(= "log-88120" (get-in % ["record" "evidence_id"])) records)))]}
   {:observed_at "2026-05-14T09:12:02Z"
    :statement "checkout submit returns 502 upstream_unavailable after payments-connector retries exhausted"
    :citations [(get-citation (first (filter #(= "log-88455" (get-in % ["record" "evidence_id"])) records)))]}
   {:observed_at "2026-05-14T09:12:03Z"
    :statement "alert checkout-api-error-ratio fired with 5xx ratio 0.184 against objective 0.005"
    :citations [(get-citation (first (filter #(= "alert-4471" (get-in % ["record" "evidence_id"])) records)))]}
   {:observed_at "2026-05-14T09:14:41Z"
    :statement "alert checkout-api-latency fired with p99 latency rising to 10400ms"
    :citations [(get-citation (first (filter #(= "alert-4472" (get-in % ["record" "evidence_id"])) records)))]}
   {:observed_at "2026-05-14T09:15:00Z"
    :statement "INC-7742 opened with severity 1, title 'Checkout submit failing for all customers'"
    :citations [(get-citation (first (filter #(= "ticket-7742" (get-in % ["record" "evidence_id"])) records)))]}
   {:observed_at "2026-05-14T09:17:22Z"
    :statement "responder attributes incident to the release deployed two minutes before alert"
    :citations [(get-citation (first (filter #(= "chat-1180" (get-in % ["record" "evidence_id"])) records)))]}
   {:observed_at "2026-05-14T09:20:10Z"
    :statement "sampled trace shows payments.authorize span taking 10388ms, terminated by client timeout"
    :citations [(get-citation (first (filter #(= "trace-5f21" (get-in % ["record" "evidence_id"])) records)))]}
   {:observed_at "2026-05-14T09:23:05Z"
    :statement "responder disputes release attribution, points to payments gateway certificate expiry"
    :citations [(get-citation (first (filter #(= "chat-1186" (get-in % ["record" "evidence_id"])) records)))]}
   {:observed_at "2026-05-14T09:57:50Z"
    :statement "payments-gateway certificate rotation took effect"
    :citations [(get-citation (first (filter #(= "chat-1204" (get-in % ["record" "evidence_id"])) records)))]}
   {:observed_at "2026-05-14T09:57:55Z"
    :statement "payments connector TLS handshakes succeed again, error rate returns to baseline"
    :citations [(get-citation (first (filter #(= "log-90013" (get-in % ["record" "evidence_id"])) records)))]}
   {:observed_at "2026-05-14T09:58:10Z"
    :statement "5xx ratio returned to 0.004, alert checkout-api-error-ratio cleared"
    :citations [(get-citation (first (filter #(= "alert-4471" (get-in % ["record" "evidence_id"])) records)))]}
   {:observed_at "2026-05-14T10:04:18Z"
    :statement "rollback of checkout-api to 2026.5.13-c completed"
    :citations [(get-citation (first (filter #(= "deploy-2292" (get-in % ["record" "evidence_id"])) records)))]}])

(def observed-facts
  [{:statement "The release 2026.5.14-a deployed at 09:09:52Z contained copy edits to email templates and a CSV export library dependency bump"
    :citations [(get-citation (first (filter #(= "deploy-2291" (get-in % ["record" "evidence_id"])) records)))]}
   {:statement "No code path in release 2026.5.14-a is reachable from POST /v2/checkout/submit"
    :citations [(get-citation (first (filter #(= "deploy-2291" (get-in % ["record" "evidence_id"])) records)))]}
   {:statement "payments-gateway.internal leaf certificate expired at 09:11:40Z"
    :citations [(get-citation (first (filter #(= "chat-1204" (get-in % ["record" "evidence_id"])) records)))]}
   {:statement "payments connector experienced TLS handshake failures due to certificate verify failed: certificate has expired"
    :citations [(get-citation (first (filter #(= "log-88120" (get-in % ["record" "evidence_id"])) records)))]}
   {:statement "POST /v2/checkout/submit returned 502 upstream_unavailable after payments-connector exhausted 3 retries"
    :citations [(get-citation (first (filter #(= "log-88455" (get-in % ["record" "evidence_id"])) records)))]}
   {:statement "The 5xx ratio returned to baseline at 09:58:10Z, six minutes before the rollback completed"
    :citations [(get-citation (first (filter #(= "deploy-2292" (get-in % ["record" "evidence_id"])) records)))]}
   {:statement "The incident ticket resolution note reads only 'rolled back and recovered' and does not mention certificate rotation"
    :citations [(get-citation (first (filter #(= "ticket-7749" (get-in % ["record" "evidence_id"])) records)))]}])

nil)