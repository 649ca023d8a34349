(let [search-result (incident.evidence/search "dual-cause-payments" nil nil nil)]
  (println "Total matched records:" (get search-result "matched"))
  (println "Truncated?" (get search-result "truncated"))
  (println "Records count:" (count (get search-result "records")))
  (println "First few records:" (take 3 (get search-result "records")))
  search-result)