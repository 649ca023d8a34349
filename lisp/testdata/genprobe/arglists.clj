;; Writes arglists.tsv: each function var of vars.txt, a tab, its :arglists
;; as Clojure 1.11 prints them. gen.py reads it (with table.txt) to know
;; each exact function's arities and parameter names.
(require 'clojure.string 'clojure.set 'clojure.walk)
(doseq [line (clojure.string/split-lines (slurp "../coverage/vars.txt"))
        :let [[v kind] (clojure.string/split line #" ")]
        :when (= kind "fn")]
  (let [m (meta (resolve (symbol v)))]
    (println (str v "\t" (pr-str (:arglists m))))))
