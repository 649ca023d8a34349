(defn get-record-body [evidence-id]
  (let [record (first (filter #(= evidence-id (get % "evidence_id")) records))]
    (get (get record "record") "body")))

(defn get-record-digest [evidence-id]
  (let [record (first (filter #(= evidence-id (get % "evidence_id")) records))]
    (get (get record "record") "content_digest")))

(defn make-citation [evidence-id]
  {"evidence_id" evidence-id "content_digest" (get-record-digest evidence-id)})

;; Extract key facts
(println "Key events in chronological order:")
(doseq [summary all-record-summaries]
  (let [id (get summary "evidence_id")
        time (get summary "observed_at")
        title (get summary "title")]
    (println time "-" title "-" id)))
nil)