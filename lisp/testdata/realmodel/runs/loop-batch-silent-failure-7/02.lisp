(let [search-result (incident.evidence/search "batch-silent-failure" nil nil nil)]
  (println "Total matched:" (get search-result "matched"))
  (println "Records:" (get search-result "records"))
  search-result)