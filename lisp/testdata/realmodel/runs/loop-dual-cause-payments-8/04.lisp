(def all-records 
  (mapv (fn [evidence-id]
          (let [result (incident.evidence/get-record "dual-cause-payments" evidence-id)]
            (if (get result "found")
              (get result "record")
              (println "WARNING: Record not found:" evidence-id))))
        all-evidence-ids))
(println "Fetched" (count (filter some? all-records)) "records")
nil)