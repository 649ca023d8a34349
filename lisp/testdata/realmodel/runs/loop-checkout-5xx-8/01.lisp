(let [sources (incident.evidence/list-sources "checkout-5xx")]
  (println "Sources:" (get sources "sources"))
  sources)