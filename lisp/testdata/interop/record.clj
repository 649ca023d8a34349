;; Records what Clojure gives for each case of a cases file, as JSON lines.
;; Run from this directory (Debian's clojure 1.11 and libcheshire-clojure):
;;   clojure record.clj cases.edn > interop.jsonl
;;   CLASSPATH=$(echo /usr/share/java/{cheshire,jackson-core,jackson-dataformat-cbor,jackson-dataformat-smile,tigris}.jar | tr ' ' :) \
;;     clojure record.clj json.edn > json.jsonl
;; The imports and aliases are what a model's program relies on.
(import '(java.time LocalDate LocalTime LocalDateTime Duration Period DayOfWeek Instant)
        '(java.time.temporal ChronoUnit) '(java.time.format DateTimeFormatter))
(require '[clojure.edn :as edn] '[clojure.string :as str])
(when (= (first *command-line-args*) "json.edn")
  (require '[cheshire.core :as json] 'cheshire.core))
(defn json-str [s] (if (nil? s) "null" (pr-str s)))
(doseq [[id expr rewrite] (edn/read-string (slurp (first *command-line-args*)))]
  (let [expected (try (binding [*ns* (the-ns 'user)] (pr-str (eval (read-string expr))))
                      (catch Throwable e nil))]
    (println (str "{\"id\": " (json-str id) ", \"expr\": " (json-str expr)
                  ", \"rewrite\": " (json-str rewrite)
                  ", \"expected\": " (if expected (json-str expected) "{\"error\": true}") "}"))))
