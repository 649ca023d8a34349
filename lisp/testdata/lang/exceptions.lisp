;; Errors have Clojure's exception classes, caught by Java's hierarchy,
;; and ex-message gives the message Clojure's exception carries. Every
;; expected value here was checked against Clojure 1.11.

;; case and condp with no matching clause: IllegalArgumentException.
(assert.eq (try (case 1 2 3) (catch IllegalArgumentException e (ex-message e))) "No matching clause: 1")
(assert.eq (try (case :k :j 1) (catch IllegalArgumentException e (ex-message e))) "No matching clause: :k")
(assert.eq (try (case "a" "b" 1) (catch IllegalArgumentException e (ex-message e))) "No matching clause: a")
(assert.eq (try (condp = 5 1 :a) (catch IllegalArgumentException e (ex-message e))) "No matching clause: 5")
(assert.eq (try (case 1 2 3) (catch ArithmeticException e :arith) (catch Exception e (str (class e))))
           "class java.lang.IllegalArgumentException")

;; A number-format error is an IllegalArgumentException too.
(assert.eq (try (Integer/parseInt "abc") (catch IllegalArgumentException e (ex-message e))) "For input string: \"abc\"")
(assert.eq (try (Long/parseLong "x") (catch NumberFormatException e (ex-message e))) "For input string: \"x\"")
(assert.eq (try (Double/parseDouble "") (catch NumberFormatException e :nfe)) :nfe)
(assert.eq (try (Integer/parseInt "x") (catch java.lang.NumberFormatException e (str (type e))))
           "class java.lang.NumberFormatException")
(assert.eq (try (Integer/parseInt "x") (catch ArithmeticException e :arith) (catch RuntimeException e :runtime)) :runtime)

;; Arithmetic and arity.
(assert.eq (try (mod 5 0) (catch IllegalArgumentException e :iae) (catch ArithmeticException e :arith)) :arith)
(assert.eq (try (quot 5 0) (catch Exception e :caught)) :caught)
(assert.eq (try ((fn [x] x)) (catch IllegalArgumentException e :iae)) :iae)
(assert.eq (try ((fn [x] x)) (catch ClassCastException e :cce) (catch Throwable e :throwable)) :throwable)

;; ex-info is an ExceptionInfo, a RuntimeException.
(assert.eq (try (throw (ex-info "boom" {:a 1})) (catch IllegalArgumentException e :iae) (catch RuntimeException e [(ex-message e) (ex-data e)]))
           ["boom" {:a 1}])
(assert.eq (try (throw (ex-info "m" {})) (catch clojure.lang.ExceptionInfo e (str (class e)))) "class clojure.lang.ExceptionInfo")
(assert.eq (try (throw (ex-info "m" {})) (catch Throwable e (ex-message e))) "m")

;; assert throws an AssertionError, an Error: Exception does not catch it.
(assert.eq (try (assert false) (catch Exception e :exception) (catch Throwable t [:throwable (ex-message t)]))
           [:throwable "Assert failed: false"])
(assert.eq (try (assert (= 1 2) "nope") (catch AssertionError e (ex-message e))) "Assert failed: nope\n(= 1 2)")
(assert.eq (try (assert false) (catch Error e :error)) :error)

;; Type errors are caught by the general classes.
(assert.eq (try (+ 1 nil) (catch Exception e :caught)) :caught)
(assert.eq (try (inc "a") (catch ClassCastException e :cce)) :cce)

;; (.getMessage e) is ex-message.
(assert.eq (try (throw (ex-info "boom" {})) (catch Exception e (.getMessage e))) "boom")
(assert.eq (try (case 1 2 3) (catch Exception e (.getMessage e))) "No matching clause: 1")

;; ex-info's third argument is the cause: ex-cause and .getCause read it.
(assert.eq (ex-message (ex-cause (ex-info "outer" {} (ex-info "inner" {:k 1})))) "inner")
(assert.eq (ex-data (ex-cause (ex-info "outer" {} (ex-info "inner" {:k 1})))) {:k 1})
(assert.eq (ex-cause (ex-info "a" {})) nil)
(assert.eq (ex-cause nil) nil)
(assert.eq (ex-cause 1) nil)
(assert.eq (try (try (/ 1 0) (catch ArithmeticException e (throw (ex-info "wrapped" {} e))))
                (catch Exception e [(ex-message e) (.getMessage (.getCause e))]))
           ["wrapped" "Divide by zero"])
(assert.fails #(ex-info "a" {} 5) "cause")

;; str of an exception is Java's toString, ex-info's with its data.
(assert.eq (try (/ 1 0) (catch Exception e (str e))) "java.lang.ArithmeticException: Divide by zero")
(assert.eq (try (throw (ex-info "boom" {:a 1 :s "x"})) (catch Exception e (str "Error: " e))) "Error: clojure.lang.ExceptionInfo: boom {:a 1, :s \"x\"}")
(assert.eq (try (throw (ex-info nil {})) (catch Exception e [(ex-message e) (str e)])) [nil "clojure.lang.ExceptionInfo: null {}"])
(assert.eq (try (throw (IllegalArgumentException. "bad")) (catch Exception e (format "failed: %s" e))) "failed: java.lang.IllegalArgumentException: bad")
(assert.eq (try (+ 9223372036854775807 1) (catch ArithmeticException e (str e))) "java.lang.ArithmeticException: long overflow")
;; ex-info takes a map, as Clojure's: nil data is an IllegalArgumentException.
(assert.eq (try (ex-info "m" nil) (catch IllegalArgumentException e (ex-message e))) "Additional data must be non-nil.")
(assert.fails #(ex-info "m") "Wrong number of args (1) passed to: clojure.core/ex-info")
