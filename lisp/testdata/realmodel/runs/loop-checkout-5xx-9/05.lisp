(let [record (first records)]
  (println "First record keys:" (keys (get record "record")))
  (println "First record source:" (get-in record ["record" "source"]))
  (println "First record title:" (get-in record ["record" "title"]))
  (println "First record body preview:" (subs (get-in record ["record" "body"]) 0 200)))