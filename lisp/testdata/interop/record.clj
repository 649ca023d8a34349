;; Records what Clojure gives for each case of cases.edn, as interop.jsonl.
;; Run from this directory: clojure record.clj > interop.jsonl
;; (Debian's clojure 1.11; the imports are what a model's program relies on.)
(import '(java.time LocalDate DayOfWeek) '(java.time.temporal ChronoUnit))
(require '[clojure.edn :as edn] '[clojure.string :as str])
(defn json-str [s] (if (nil? s) "null" (pr-str s)))
(doseq [[id expr rewrite] (edn/read-string (slurp "cases.edn"))]
  (let [expected (try (binding [*ns* (the-ns 'user)] (pr-str (eval (read-string expr))))
                      (catch Throwable e nil))]
    (println (str "{\"id\": " (json-str id) ", \"expr\": " (json-str expr)
                  ", \"rewrite\": " (json-str rewrite)
                  ", \"expected\": " (if expected (json-str expected) "{\"error\": true}") "}"))))
