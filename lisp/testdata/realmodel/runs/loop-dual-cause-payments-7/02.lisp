(let [search-result (incident.evidence/search "dual-cause-payments" nil nil nil)]
  (println "Total matched records:" (get search-result "matched"))
  (println "Truncated?" (get search-result "truncated"))
  (println "Records count:" (count (get search-result "records")))
  (def all-record-summaries (get search-result "records"))
  all-record-summaries)