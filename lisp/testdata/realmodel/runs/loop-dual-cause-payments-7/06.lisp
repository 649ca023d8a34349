(println "Record 10 (chat-5512):" (get (nth records 9) "record"))
(println "Record 11 (log-68210):" (get (nth records 10) "record"))
(println "Record 12 (chat-5540):" (get (nth records 11) "record"))
nil)