(let [recs-by-id (into {} (map #(vector (:evidence_id %) %) record-data))]
  (println "chat-2225 full body:" (get-in recs-by-id ["chat-2225" :body]))
  (println "\nchat-2240 full body:" (get-in recs-by-id ["chat-2240" :body]))
  (println "\nticket-1109 full body:" (get-in recs-by-id ["ticket-1109" :body])))