;; What Clojure's answer depends on Java for: String.split's limit, the
;; exact words parse-boolean takes, the message of an overflow, and the
;; full Unicode case mappings of String.toUpperCase and toLowerCase, and
;; that a string is not a Clojure collection.

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

;; A 64-bit overflow is Clojure's ArithmeticException "long overflow".
(assert.eq (try (* 9223372036854775807 2) (catch ArithmeticException e (ex-message e))) "long overflow")
(assert.eq (try (inc 9223372036854775807) (catch Exception e (.getMessage e))) "long overflow")
(assert.eq (try (- -9223372036854775808 1) (catch ArithmeticException e (ex-message e))) "long overflow")

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

;; empty of a string is nil: a Java string is not a Clojure collection.
(assert.eq (empty "abc") nil)
(assert.eq (empty "") nil)
(assert.eq (empty [1 2]) [])
(assert.eq (empty nil) nil)

;; %c takes a character and prints nil as null; a number is a long, which
;; Java's Formatter refuses for %c, as Clojure does for (format "%c" 65).
(assert.eq (format "%5c|%-3c|" nil \a) " null|a  |")
(assert.eq (format "%c" (char 65)) "A")
(assert.fails (fn [] (format "%c" 65)) "c != java.lang.Long")
(assert.fails (fn [] (format "%c" 65.0)) "c != java.lang.Double")
(assert.fails (fn [] (format "%c" "ab")) "c != java.lang.String")
