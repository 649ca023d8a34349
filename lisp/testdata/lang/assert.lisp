;; The assertions of the language's own tests. lang_test.go loads this file
;; before each test file of this folder; each assertion returns true, or
;; fails the top-level form it is in, naming what went wrong.

(defn assert.kind
  "the kind of collection x is: = does not tell a list from a vector"
  [x]
  (cond
    (vector? x) :vector
    (seq? x) :list
    (map? x) :map
    (set? x) :set
    :else :scalar))

(defn assert.same-kinds?
  "got and want, which are =, are collections of the same kinds at every depth"
  [got want]
  (and (= (assert.kind got) (assert.kind want))
       (case (assert.kind got)
         (:vector :list) (every? true? (map assert.same-kinds? got want))
         :map (every? (fn [[k v]] (assert.same-kinds? v (get want k))) got)
         true)))

(defn assert.eq
  "got equals want, by =, and is the same kind of collection at every depth"
  [got want]
  (if (and (= got want) (assert.same-kinds? got want))
    true
    (fail (str "got " (pr-str got) ", want " (pr-str want)))))

(defn assert.true
  "x is truthy"
  [x]
  (if x
    true
    (fail (str "got " (pr-str x) ", want a truthy value"))))

(defn assert.fails
  "calling f, a function of no arguments, fails with an error whose message contains want"
  [f want]
  (let [[outcome v] (try [:value (f)] (catch Exception e [:error (ex-message e)]))]
    (cond
      (= outcome :value) (fail (str "got " (pr-str v) ", want an error containing " (pr-str want)))
      (includes? v want) true
      :else (fail (str "failed with " (pr-str v) ", want an error containing " (pr-str want))))))
