(let [search-result (incident.evidence/search "checkout-5xx" nil nil nil)]
  (println "Total matched:" (get search-result "matched"))
  (println "Truncated:" (get search-result "truncated"))
  (def all-summaries (get search-result "records"))
  (println "Record count:" (count all-summaries))
  all-summaries)