;; Records Clojure's answer to each program of programs.txt, one
;; tab-separated line each: the program, then "=" and the printed value,
;; or "!" and the class of the exception it throws (the cause of a
;; CompilerException, which only wraps it). A value is printed within 2 s
;; or recorded as "!timeout". Run from this directory:
;;   python3 gen.py && clojure oracle.clj > answers.tsv
(require '[clojure.string :as str])
(defn cause [e]
  (if (and (instance? clojure.lang.Compiler$CompilerException e) (.getCause e)) (recur (.getCause e)) e))
(doseq [line (str/split-lines (slurp "programs.txt"))]
  (let [answer (future (try (str "=" (binding [*print-length* 1000] (pr-str (load-string line))))
                            (catch Throwable e (str "!" (.getName (class (cause e)))))))
        answer (deref answer 2000 "!timeout")]
    (println (str line "\t" answer))))
(shutdown-agents)
