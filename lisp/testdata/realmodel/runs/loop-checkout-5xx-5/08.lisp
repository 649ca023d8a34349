(let [chat-records (filter #(= "chat" (get-in % ["record" "source"])) records)]
  (println "Chat records:" (count chat-records))
  (doseq [r chat-records]
    (let [rec (get r "record")]
      (println "ID:" (get rec "evidence_id") "Title:" (get rec "title"))
      (println "Body:" (get rec "body"))))
  nil)