(println "Continuing from truncated output...")
(def remaining-infos (drop 6 record-infos))
(doseq [info remaining-infos] (print-record info))
nil)