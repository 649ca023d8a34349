(def timeline
  (mapv (fn [entry]
          {:observed_at (:observed_at entry)
           :statement (:statement entry)
           :citations (make-citations [(:evidence_id entry)])})
        (mapv (fn [info]
                {:observed_at (:observed_at info)
                 :statement (:title info)
                 :evidence_id (:evidence_id info)})
              sorted-records)))

(def observed-facts-with-citations
  (mapv (fn [fact]
          {:statement (:statement fact)
           :citations (make-citations (:evidence_ids fact))})
        observed-facts))

(def hypotheses-with-citations
  (mapv (fn [hyp]
          {:statement (:statement hyp)
           :confidence (:confidence hyp)
           :supporting_citations (make-citations (:supporting_evidence_ids hyp))
           :contradicting_citations (make-citations (:contradicting_evidence_ids hyp))})
        hypotheses))

(def open-questions-with-citations
  (mapv (fn [q]
          {:question (:question q)
           :missing_evidence (:missing_evidence q)
           :citations (make-citations (:evidence_ids q))})
        open-questions))

(println "Timeline entries:" (count timeline))
(println "Observed facts:" (count observed-facts-with-citations))
(println "Hypotheses:" (count hypotheses-with-citations))
(println "Open questions:" (count open-questions-with-citations))
nil)