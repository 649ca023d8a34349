(def all-citations 
  (concat
    (mapcat #(get % "citations") timeline-entries)
    (mapcat #(get % "citations") observed-facts)
    (mapcat #(get % "supporting_citations") hypotheses)
    (mapcat #(get % "contradicting_citations") hypotheses)
    (mapcat #(get % "citations") open-questions)))

(def citation-check (incident.evidence/resolve-citations "dual-cause-payments" all-citations))
(println "Citation check result:" citation-check)
(println "Total citations checked:" (get citation-check "checked"))
(println "Unresolved citations:" (get citation-check "unresolved"))
(println "Mismatched citations:" (get citation-check "mismatched"))
nil)