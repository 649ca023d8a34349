(let [sources (incident.evidence/list-sources "dual-cause-payments")]
  (println "Sources response:" (keys sources))
  (println "Incident title:" (get sources "title"))
  (println "Sources list:" (get sources "sources"))
  sources)