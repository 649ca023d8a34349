(let [search-result (incident.evidence/search "batch-silent-failure" nil nil nil)]
  (println "Search result:" (keys search-result))
  (println "Matched:" (get search-result "matched"))
  (println "Truncated:" (get search-result "truncated"))
  (println "Records count:" (count (get search-result "records")))
  search-result)