;; What Clojure's answer depends on Java for: String.split's limit, the
;; exact words parse-boolean takes, and Throwable.toString, which str and
;; format's %s give for a caught exception.

;; clojure.string/split with a limit: above zero at most that many parts,
;; any limit but zero keeps the trailing empty parts.
(assert.eq (split "a,b,," "," 2) ["a" "b,,"])
(assert.eq (split "a,b,," (re-pattern ",") -1) ["a" "b" "" ""])
(assert.eq (split "a,b,,c,," (re-pattern ",") 10) ["a" "b" "" "c" "" ""])
(assert.eq (split "a1b2c3" (re-pattern "\\d") 0) ["a" "b" "c"])
(assert.eq (split "a,b,," ",") ["a" "b"])
(assert.eq (split ",," ",") [])
(assert.eq (split "" ",") [""])

;; parse-boolean takes exactly "true" and "false".
(assert.eq (parse-boolean "true") true)
(assert.eq (parse-boolean "false") false)
(assert.eq (parse-boolean "TRUE") nil)
(assert.eq (parse-boolean "True") nil)
(assert.eq (parse-boolean " true") nil)

;; str of a caught exception is its class and message, and an ex-info's
;; data; format's %s the same.
(assert.eq (try (throw (ex-info "quota" {:used 5})) (catch Exception e (str e)))
           "clojure.lang.ExceptionInfo: quota {:used 5}")
(assert.eq (try (throw (Exception. "boom")) (catch Exception e (str "Error: " e)))
           "Error: java.lang.Exception: boom")
(assert.eq (try (throw (IllegalArgumentException.)) (catch Exception e (str e)))
           "java.lang.IllegalArgumentException")
(assert.eq (str (ex-info "m" {})) "clojure.lang.ExceptionInfo: m {}")
(assert.eq (format "%s" (ex-info "m" {:a "b"})) "clojure.lang.ExceptionInfo: m {:a \"b\"}")
(assert.eq (try (parse-long "x") (Long/parseLong "x") (catch NumberFormatException e (str e)))
           "java.lang.NumberFormatException: For input string: \"x\"")

;; A 64-bit overflow is Clojure's ArithmeticException "long overflow".
(assert.eq (try (* 9223372036854775807 2) (catch ArithmeticException e (ex-message e))) "long overflow")
(assert.eq (try (inc 9223372036854775807) (catch Exception e (.getMessage e))) "long overflow")
(assert.eq (try (+ 1 9223372036854775807) (catch ArithmeticException e (str e))) "java.lang.ArithmeticException: long overflow")

;; upper-case and lower-case are Java's full Unicode case mappings.
(assert.eq (upper-case "müller straße") "MÜLLER STRASSE")
(assert.eq (str/upper-case "ﬁle") "FILE")
(assert.eq (lower-case "ÀÉÎ") "àéî")
(assert.eq (lower-case "ΟΔΟΣ ΟΔΟΣ") "οδος οδος")
(assert.eq (str/capitalize "ßa") "SSa")
(assert.eq (str/capitalize "élan VITAL") "Élan vital")
(assert.eq (.toUpperCase "straße") "STRASSE")
(assert.eq (upper-case "plain ascii 1") "PLAIN ASCII 1")
(assert.eq (lower-case "İstanbul") "i̇stanbul")
