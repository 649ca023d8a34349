;; Records Clojure 1.11's answer to every probe of probes.txt in one JVM,
;; writing oracle.tsv, one line a probe:
;;   probe TAB = TAB the value's pr-str
;;   probe TAB ! TAB the exception's class
;;   probe TAB timeout        (no answer within the probe's time)
;; Each probe is evaluated in a namespace with the java.time classes a
;; model imports (LocalDate, LocalDateTime, Duration, Period, DayOfWeek,
;; ChronoUnit, DateTimeFormatter), on a thread of its own stopped after 5 s.
;; A java.time value prints as its text (PTC-Lisp holds it as the string
;; Java's toString gives), an array as a vector (PTC-Lisp's array), an
;; exception as #error, another object as its class.
;; Run from this directory: clojure oracle.clj
(def probe-ns
  (binding [*ns* (create-ns 'interopgrid)]
    (refer-clojure)
    (import '(java.time LocalDate LocalTime LocalDateTime Duration Period DayOfWeek Instant)
            '(java.time.temporal ChronoUnit) '(java.time.format DateTimeFormatter))
    *ns*))

(defn plain
  "The value with what PTC-Lisp holds otherwise made so: java.time values
  their text, arrays vectors."
  [v]
  (cond
    (and (some? v) (.isArray (class v))) (mapv plain v)
    (and (some? v) (.startsWith (.getName (class v)) "java.time.")
         (not (instance? java.time.format.DateTimeFormatter v))) (str v)
    (map-entry? v) v
    (vector? v) (mapv plain v)
    :else v))

(defn normalize [text]
  (-> (if (re-find #"#error \{" text) "#error" text)
      (clojure.string/replace #"#object\[[^\s\]]+\$[^\s\]]* 0x[0-9a-f]+ \"[^\"]*\"\]" "#object[fn]")
      (clojure.string/replace #"(#object\[[^\s\]]+) 0x[0-9a-f]+ \"(?:[^\"\\]|\\.)*\"\]" "$1]")
      (clojure.string/replace #"(#object\[[^\s\]]+) 0x[0-9a-f]+" "$1")
      (clojure.string/replace "\n" "\\n")))

(defn answer [src]
  (let [result (promise)
        work (Thread.
              (fn []
                (deliver result
                         (try
                           (binding [*ns* probe-ns *out* (java.io.StringWriter.)]
                             (let [v (eval (read-string src))]
                               ["=" (normalize (pr-str (plain v)))]))
                           (catch Throwable e
                             (if (instance? clojure.lang.Compiler$CompilerException e)
                               ["!" (str "compile:" (.getName (class (or (.getCause e) e))))]
                               ["!" (.getName (class e))]))))))]
    (.setDaemon work true)
    (.start work)
    (.join work 5000)
    (if (realized? result)
      @result
      (do (.stop work) ["timeout"]))))

(with-open [w (clojure.java.io/writer "oracle.tsv")]
  (doseq [src (clojure.string/split-lines (slurp "probes.txt"))]
    (.write w (str (clojure.string/join "\t" (cons src (answer src))) "\n"))))
