(let [sources (incident.evidence/list-sources "dual-cause-payments")]
  (println "Sources:" (get sources "sources"))
  sources)