(let [sources (incident.evidence/list-sources "batch-silent-failure")]
  (println "Sources:" (get sources "sources"))
  sources)