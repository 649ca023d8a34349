(let [ticket-records (filter #(= (get % "source") "tickets") all-records)
      sorted-tickets (sort-by #(get % "observed_at") ticket-records)]
  (doseq [ticket sorted-tickets]
    (println "Ticket:" (get ticket "evidence_id") "at" (get ticket "observed_at") "-" (get ticket "title"))
    (println "Body:" (get ticket "body"))
    (println "---"))
  nil)