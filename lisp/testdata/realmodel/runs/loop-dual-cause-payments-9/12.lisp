(def evidence-id-to-digest
  (into {}
        (map (fn [info]
               [(:evidence_id info) (:content_digest info)]))
        record-infos))

(defn make-citations [evidence-ids]
  (mapv (fn [id]
          {:evidence_id id
           :content_digest (get evidence-id-to-digest id)})
        evidence-ids))

(println "Sample citation:" (first (make-citations ["deploy-5510"])))
nil)