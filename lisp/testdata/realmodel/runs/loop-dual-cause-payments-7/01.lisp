(let [sources (incident.evidence/list-sources "dual-cause-payments")]
  (println "Sources:" (get sources "sources"))
  (println "Incident title:" (get sources "title"))
  (println "Opened at:" (get sources "opened_at"))
  sources)