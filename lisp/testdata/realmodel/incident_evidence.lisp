;; The incident.evidence API the recorded programs call, as user definitions
;; the replay loads before the first turn. The recorded runtime exposed these
;; four functions in an incident.evidence namespace; the replay rewrites
;; `incident.evidence/name` in a program to `user/name` and these definitions
;; turn the positional arguments into the one argument map each evidence tool
;; takes. Tool answers are the recorded ones (see README.md).

(defn list-sources [incident-id]
  (tool/evidence.list_sources {"incident_id" incident-id}))

(defn search [incident-id query source limit]
  (tool/evidence.search
    (cond-> {"incident_id" incident-id}
      (some? query) (assoc "query" query)
      (some? source) (assoc "source" source)
      (some? limit) (assoc "limit" limit))))

(defn get-record [incident-id evidence-id]
  (tool/evidence.get {"incident_id" incident-id "evidence_id" evidence-id}))

;; Checks each citation against the stored record: unresolved when no record
;; has the id, mismatched when the digest differs.
(defn resolve-citations [incident-id citations]
  (let [verdict (fn [citation]
                  (let [id (get citation "evidence_id")
                        found (get-record incident-id id)]
                    (cond
                      (not (true? (get found "found"))) [:unresolved id]
                      (not= (get citation "content_digest")
                            (get-in found ["record" "content_digest"])) [:mismatched id]
                      :else [:resolved id])))
        verdicts (mapv verdict citations)
        ids-of (fn [kind] (vec (for [[k id] verdicts :when (= k kind)] id)))]
    {"checked" (count verdicts)
     "unresolved" (ids-of :unresolved)
     "mismatched" (ids-of :mismatched)}))
