(let [search-result (incident.evidence/search "checkout-5xx" nil nil nil)]
  (println "Total matched:" (get search-result "matched"))
  (println "Records:" (count (get search-result "records")))
  search-result)