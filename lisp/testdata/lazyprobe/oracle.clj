;; Records Clojure 1.11's answer for each probe of probes.txt into
;; expected.txt: run with
;;   cd lisp/testdata/lazyprobe && java -Xmx512m -cp /usr/share/java/clojure-1.11.jar clojure.main oracle.clj
;; Each probe runs on its own thread for at most 3 s; one that does not
;; finish (an infinite sequence realized whole) or runs out of memory is
;; recorded as !limit, one that throws as !error and the exception class.
(require '[clojure.string :as str])
(defn run-probe [src]
  (let [p (promise)
        t (Thread. (fn []
                     (deliver p
                       (try (str "=" (pr-str (binding [*ns* (find-ns 'user)] (eval (read-string src)))))
                            (catch OutOfMemoryError _ "!limit")
                            (catch Throwable e (str "!error " (.getName (class e))))))))]
    (.start t)
    (let [r (deref p 3000 nil)]
      (if r r (do (.stop t) (System/gc) "!limit")))))
(let [lines (remove str/blank? (str/split-lines (slurp "probes.txt")))
      out (for [l lines] (str l "\t" (run-probe l)))]
  (spit "expected.txt" (str (str/join "\n" (doall out)) "\n")))
(System/exit 0)
