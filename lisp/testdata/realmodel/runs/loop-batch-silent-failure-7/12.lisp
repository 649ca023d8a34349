(let [all-citations (concat
                      (mapcat #(get % "citations") timeline)
                      (mapcat #(get % "citations") observed-facts)
                      (apply concat (map #(get % "supporting_citations") hypotheses))
                      (apply concat (map #(get % "contradicting_citations") hypotheses))
                      (apply concat (map #(get % "citations") (filter #(get % "citations") open-questions))))
      result (incident.evidence/resolve-citations "batch-silent-failure" all-citations)]
  (println "Citation check result:" result)
  (if (and (empty? (get result "unresolved")) (empty? (get result "mismatched")))
    (println "All citations are valid")
    (println "WARNING: Some citations are invalid")))