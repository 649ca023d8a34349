;; Records Clojure 1.11's answer to every probe of probes.txt in one JVM,
;; writing oracle.tsv, one line a probe:
;;   probe TAB = TAB the value's pr-str
;;   probe TAB ! TAB the exception's class
;;   probe TAB timeout        (no answer within the probe's time)
;; Each probe is read and evaluated in a namespace with clojure.string,
;; clojure.set and clojure.walk aliased as str, set and walk, its printing
;; swallowed, on a thread of its own that is stopped after 5 s. An object
;; prints with its class only (its identity hash dropped), and a function
;; anywhere in a value as #object[fn], so two recordings are the same file.
;; Run from this directory: clojure oracle.clj
(require 'clojure.string 'clojure.set 'clojure.walk)

(def probe-ns
  (binding [*ns* (create-ns 'genprobe)]
    (refer-clojure)
    (alias 'str 'clojure.string)
    (alias 'set 'clojure.set)
    (alias 'walk 'clojure.walk)
    *ns*))

(defn normalize
  "The printed value without identities: an exception prints as #error
  (its stack trace differs run to run), an object as its class, a
  function as #object[fn]; a newline (inside a pattern) as \\n."
  [text]
  (-> (if (re-find #"#error \{" text) "#error" text)
      (clojure.string/replace #"#object\[[^\s\]]+\$[^\s\]]* 0x[0-9a-f]+ \"[^\"]*\"\]" "#object[fn]")
      ;; the same inside a printed string, its quotes escaped
      (clojure.string/replace #"#object\[[^\s\]]+\$[^\s\]]* 0x[0-9a-f]+ \\\"[^\"\\]*\\\"\]" "#object[fn]")
      ;; (str f): the class and the identity hash
      (clojure.string/replace #"[\w.]+\$[\w$]+@[0-9a-f]+" "#object[fn]")
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
                               ["=" (normalize (pr-str v))]))
                           (catch Throwable e
                             ;; a probe Clojure refuses to compile is
                             ;; marked so: no catch in the program takes it
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
