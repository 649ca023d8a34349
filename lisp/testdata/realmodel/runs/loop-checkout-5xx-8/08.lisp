(let [chat-records (filter #(= (get % "source") "chat") all-records)
      sorted-chats (sort-by #(get % "observed_at") chat-records)]
  (doseq [chat sorted-chats]
    (println "Chat:" (get chat "evidence_id") "at" (get chat "observed_at") "-" (get chat "title"))
    (println "Body:" (get chat "body"))
    (println "---"))
  nil)