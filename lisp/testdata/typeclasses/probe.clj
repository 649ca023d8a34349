;; Records the Java exception class Clojure 1.11 throws for each probe of
;; probes.txt, one tab-separated line each: the probe, then the class's
;; name, or "value" when the probe gives a value. Run from this directory:
;;   python3 gen.py && clojure probe.clj > classes.tsv
(require '[clojure.string :as str] '[clojure.set :as set] '[clojure.walk :as walk])
(doseq [line (str/split-lines (slurp "probes.txt"))]
  (let [answer (try (pr-str (eval (read-string line))) "value"
                    (catch Throwable e (.getName (class e))))]
    (println (str line "\t" answer))))
