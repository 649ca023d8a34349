(def summary "A nightly reconciliation job failed silently on 2026-01-15, producing no output while reporting success. The failure went undetected for 8 days due to lack of output monitoring. A library change deployed the previous day may have introduced a silent failure mode. Critical evidence was lost due to 7-day retention policies.")

(def report
  {"status" "report"
   "incident_id" "batch-silent-failure"
   "summary" summary
   "timeline" timeline-entries
   "observed_facts" observed-facts
   "hypotheses" hypotheses
   "open_questions" open-questions})

(println "Report structure keys:" (keys report))
(println "Timeline entries:" (count timeline-entries))
(println "Observed facts:" (count observed-facts))
(println "Hypotheses:" (count hypotheses))
(println "Open questions:" (count open-questions))

(return report))