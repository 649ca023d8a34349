(def observed-facts
  [{:statement "Configuration change at 15:55:00Z raised settlement-worker concurrency from 8 to 32 workers while database connection pool size remained at 20."
    :evidence_ids ["deploy-5510"]}
   {:statement "Database connection pool exhausted from 15:58:10Z with pool size 20, checked-out 20, queue depth rising, causing pool_timeout errors after 5000ms affecting approximately 0.38 of attempts."
    :evidence_ids ["log-66120"]}
   {:statement "Service token for flags.internal expired at 15:59:00Z on 2026-02-11 after 90 days, issued on 2025-11-13, with renewal not automated."
    :evidence_ids ["cred-0091"]}
   {:statement "Calls to flags.internal returning 401 invalid_token from 15:59:02Z, causing worker to fail closed when unable to read settlement_v2_enabled flag, affecting approximately 0.31 of attempts."
    :evidence_ids ["log-66450"]}
   {:statement "Settlement failure ratio reached 0.61 against objective of 0.02, triggering alert at 16:00:44Z that did not clear until 18:12:30Z."
    :evidence_ids ["alert-7001"]}
   {:statement "Connection pool raised to 64 at 17:20:15Z, stopping pool_timeout errors and reducing settlement failure ratio from 0.61 to 0.29."
    :evidence_ids ["log-67800"]}
   {:statement "Replacement token for flags.internal installed at 18:12:10Z, stopping 401 responses and reducing settlement failure ratio from 0.29 to 0.004."
    :evidence_ids ["log-68210"]}
   {:statement "The pool exhaustion and token expiry started four minutes apart and neither explains the other."
    :evidence_ids ["chat-5512"]}])

(println "Observed facts count:" (count observed-facts))
nil)