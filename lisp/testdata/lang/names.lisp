;; Names resolve exactly: a namespaced name only within its namespace and
;; its aliases (docs/LANGUAGE.md, "Names"). Every expected value here was
;; checked against Clojure 1.11.

;; clojure.set's relational functions, not clojure.string's join.
(assert.eq (clojure.set/join [{:id 1 :d "a"} {:id 2 :d "b"}] [{:id 1 :n "x"} {:id 3 :n "y"}])
           #{{:id 1 :d "a" :n "x"}})
(assert.eq (set/join #{{:a 1 :b 2}} #{{:c 3} {:c 4}}) #{{:a 1 :b 2 :c 3} {:a 1 :b 2 :c 4}})
(assert.eq (clojure.set/join [{:a 1 :x 1} {:a 2 :x 2}] [{:b 1 :y 9} {:b 1 :y 8} {:b 5}] {:a :b})
           #{{:a 1 :x 1 :b 1 :y 8} {:a 1 :x 1 :b 1 :y 9}})
(assert.eq (clojure.set/join [{:a 1}] [{:b 1 :y 9} {:b 1 :y 8} {:b 5}] {:a :b})
           #{{:a 1 :b 1 :y 9} {:a 1 :b 1 :y 8}})
(assert.eq (clojure.set/join [] [{:a 1}]) #{})
(assert.eq (clojure.set/join nil nil) #{})
(assert.eq (clojure.set/join [{:a 1}] [{:a 1}]) #{{:a 1}})
(assert.eq (clojure.set/join [{:k 1 :v "l"}] [{:k 1 :v "r"}]) #{})
(assert.eq (clojure.set/index [{:a 1 :b 2} {:a 1 :b 3} {:a 2}] [:a])
           {{:a 1} #{{:a 1 :b 2} {:a 1 :b 3}}, {:a 2} #{{:a 2}}})
(assert.eq (clojure.set/index [] [:a]) {})
(assert.eq (clojure.set/project [{:a 1 :b 2} {:a 1 :b 3}] [:a]) #{{:a 1}})
(assert.eq (clojure.set/project nil [:a]) #{})
(assert.eq (clojure.set/rename [{:a 1 :b 2}] {:a :z}) #{{:b 2 :z 1}})
(assert.eq (clojure.set/union #{1} #{2}) #{1 2})
(assert.eq (set/select odd? #{1 2 3}) #{1 3})
(assert.eq (set/map-invert {:a 1}) {1 :a})
(assert.eq (clojure.set/rename-keys {:a 1} {:a :b}) {:b 1})

;; clojure.core's replace, not clojure.string's (the bare replace stays
;; clojure.string's, as the system prompt documents it).
(assert.eq (clojure.core/replace {1 :one} [1 2 1]) [:one 2 :one])
(assert.eq (clojure.core/replace [:a :b] [0 1 5]) [:a :b 5])
(assert.eq (clojure.core/replace {1 :one} #{1}) [:one])
(assert.eq (clojure.core/replace {1 :one} nil) [])
(assert.eq (clojure.core/replace {} [1 nil]) [1 nil])

;; clojure.string and clojure.walk by their names and habitual aliases.
(assert.eq (clojure.string/join "," [1 2]) "1,2")
(assert.eq (str/join [1 2]) "12")
(assert.eq (clojure.string/reverse "abc") "cba")
(assert.eq (clojure.core/reverse [1 2]) [2 1])
(assert.eq (str/upper-case "a") "A")
(assert.eq (clojure.walk/keywordize-keys {"a" {"b" 1}}) {:a {:b 1}})
(assert.eq (walk/postwalk #(if (number? %) (inc %) %) [1 [2]]) [2 [3]])
(assert.eq (clojure.core/map inc [1 2]) [2 3])
(assert.eq (clojure.core/when true 1) 1)

;; Vars whose bare names PTC-Lisp lacks, under their namespace.
(assert.eq (clojure.string/escape "a<b>&" {\< "&lt;" \> "&gt;" \& "&amp;"}) "a&lt;b&gt;&amp;")
(assert.eq (str/escape "abc" #(when (= % \b) "B")) "aBc")
(assert.eq (str/escape "" {}) "")
(assert.eq (clojure.walk/postwalk-replace {1 2} [1 [1 {1 3}]]) [2 [2 {2 3}]])
(assert.eq (walk/prewalk-replace {[1] :x} [[1] [[1]]]) [:x [:x]])
(assert.eq (walk/postwalk-replace {:a :b} {:a {:a 1}}) {:b {:b 1}})
(assert.eq (walk/postwalk-replace nil [1]) [1])

;; Namespace headers are skipped; what they declare resolves in the forms
;; after them.
(do (require '[clojure.string :as s])
    (assert.eq (s/upper-case "a") "A"))
(do (require '[clojure.string :as string] '[clojure.set :as cset])
    (assert.eq [(string/join "," [1 2]) (cset/union #{1} #{2})] ["1,2" #{1 2}]))
(do (ns user (:require [clojure.string :as string] [clojure.set :refer [join union]]))
    (assert.eq [(string/join "," [1 2]) (join [{:a 1}] [{:a 1 :b 2}]) (union #{1} #{2})]
               ["1,2" #{{:a 1 :b 2}} #{1 2}]))
(do (require 'clojure.string)
    (assert.eq (clojure.string/trim " a ") "a"))
(do (import '(java.time LocalDate))
    (assert.eq (str (LocalDate/parse "2024-01-02")) "2024-01-02"))
(assert.eq (require '[clojure.walk :as w]) nil)

;; A name of PTC-Lisp's own that Clojure lacks may be defined, and the
;; program's definition wins (these come last: later forms see them).
(defn round [x] (* 10 x))
(assert.eq (round 2.5) 25.0)
(assert.eq (map round [1 2]) [10 20])
(defn sum-by [k xs] (reduce + 100 (map k xs)))
(assert.eq (sum-by :a [{:a 1} {:a 2}]) 103)
(def log [:started])
(assert.eq (conj log :done) [:started :done])

;; A symbol with a namespace reads as ns/name: ns does not start with /,
;; and name is / or does not start with a digit; Clojure's reader calls
;; anything else an invalid token.
(assert.eq (read-string "a/b/c") (symbol "a/b" "c"))
(assert.eq (read-string "clojure.core//") (symbol "clojure.core" "/"))
(assert.eq (read-string "/") (symbol "/"))
(assert.eq (try (read-string "/etc/passwd") (catch RuntimeException e (ex-message e))) "Invalid token: /etc/passwd")
(assert.eq (try (read-string "a/") (catch RuntimeException e (ex-message e))) "Invalid token: a/")
(assert.eq (try (read-string "a/1") (catch RuntimeException e (ex-message e))) "Invalid token: a/1")
