;; Records Clojure's answer to each probe of probes.txt, one tab-separated
;; line each: the probe, then pr-str of its value, or ERR and the
;; exception's class. Run from this directory:
;;   python3 gen.py && clojure probe.clj > grid.tsv
(require '[clojure.string :as str])
(doseq [line (str/split-lines (slurp "probes.txt"))]
  (println (str line "\t" (try (pr-str (eval (read-string line)))
                               (catch Throwable e (str "ERR " (.getName (class (or (.getCause e) e)))))))))
