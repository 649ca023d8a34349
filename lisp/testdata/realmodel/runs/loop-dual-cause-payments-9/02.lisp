(let [search-result (incident.evidence/search "dual-cause-payments" nil nil nil)]
  (println "Total matched:" (get search-result "matched"))
  (println "Truncated:" (get search-result "truncated"))
  (println "Records count:" (count (get search-result "records")))
  search-result)