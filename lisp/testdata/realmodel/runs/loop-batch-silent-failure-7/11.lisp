(def open-questions [
  {"question" "What specific changes were made to the CSV writer library in release 2.1.0 that could affect error handling?"
   "missing_evidence" "Release notes or change documentation detailing the CSV writer library changes"}
  
  {"question" "Did the reconciliation job actually process any rows on 2026-01-15, or did it encounter empty input?"
   "missing_evidence" "Application logs from the 2026-01-15 run showing row counts and processing details"
   "citations" [(get-citation (find-record "chat-2218"))]}
  
  {"question" "What was the exact input data state on 2026-01-15 that might have caused different behavior?"
   "missing_evidence" "Upstream input data from 2026-01-15 for replay testing"
   "citations" [(get-citation (find-record "chat-2240"))]}
  
  {"question" "Does the CSV writer library return exit status 0 even when it fails to write output?"
   "missing_evidence" "Library documentation or source code showing error handling behavior"}
])

(println "Open questions:" (count open-questions))
nil)