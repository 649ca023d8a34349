#!/usr/bin/env python3
"""Record the order Clojure iterates maps and sets in, for TestHashOrderOracle.

Generates programs (a fixed seed, so the same programs every time), each
building a map or set of 0-40 random keys of every kind PTC-Lisp has (nil,
booleans, integers, floats, strings, keywords, symbols, vectors, lists, maps
and sets) by one of the builders programs use, and answering with the
position in the key vector ks of each key as the collection iterates. Runs
them all under the Clojure found on PATH (Debian's clojure package, 1.11)
and writes cases.jsonl: one {"src", "want"} per program, want being pr-str
of the answer (a vector of integers, which PTC-Lisp prints the same way).
IDIOMS adds programs in the style of data tasks (top-N by frequency with
ties, group-by with many groups, distinct via a set), answering with
vectors of scalars.
The tests never run Clojure: run this again after editing it.

    python3 lisp/testdata/hashorder/oracle.py
"""
import json
import os
import random
import subprocess
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
CASES = 320


def scalar(r):
    kind = r.randrange(8)
    if kind == 0:
        return r.choice(["nil", "true", "false"])
    if kind == 1:
        return str(r.choice([r.randrange(-50, 50), r.randrange(-10**12, 10**12), r.randrange(-2**63, 2**63)]))
    if kind == 2:
        return r.choice(["%d.5" % r.randrange(-100, 100), "%d.0" % r.randrange(1, 100), "1e%d" % r.randrange(1, 300), "##Inf", "##-Inf", "0.1"])
    if kind == 3:
        return json.dumps(r.choice(["", "a", "id", "name", "Ünïcode", "日本語", "emoji😀", "x y", "k%d" % r.randrange(100)]), ensure_ascii=False)
    if kind == 4:
        return ":" + r.choice(["a", "b", "id", "name", "user/id", "x.y/z", "k%d" % r.randrange(100)])
    if kind == 5:
        return "'" + r.choice(["a", "sym", "ns/sym", "s%d" % r.randrange(100)])
    if kind == 6:
        return str(r.randrange(0, 30))
    return json.dumps("w%d" % r.randrange(60))


def key(r, depth=0):
    kind = r.randrange(10)
    if depth > 0 or kind < 7:
        return scalar(r)
    if kind == 7:
        # Vectors hold integers and lists strings, so that no vector
        # equals a list (as [1 2] equals '(1 2) in Clojure).
        return "[" + " ".join(str(r.randrange(-5, 20)) for _ in range(r.randrange(0, 4))) + "]"
    if kind == 8:
        return "'(" + " ".join(json.dumps("l%d" % r.randrange(10)) for _ in range(r.randrange(1, 4))) + ")"
    if r.randrange(2):
        ks = sorted({":" + r.choice("abcdef") for _ in range(r.randrange(0, 3))})
        return "{" + " ".join("%s %d" % (k, r.randrange(5)) for k in ks) + "}"
    return "#{" + " ".join(sorted({str(r.randrange(10)) for _ in range(r.randrange(0, 3))})) + "}"


def distinct_keys(r, n):
    seen, out = set(), []
    while len(out) < n:
        k = key(r)
        norm = k.lstrip("'")
        if norm in seen or norm in ("-0.0",):
            continue
        seen.add(norm)
        out.append(k)
    return out


MAP_BUILDERS = [
    "(zipmap ks (range))",
    "(into {} (map vector ks (range)))",
    "(apply hash-map (interleave ks (range)))",
    "LITERAL",
    "(reduce (fn [m k] (assoc m k 1)) {} ks)",
    "(frequencies (concat ks (take 5 ks)))",
    "(dissoc (zipmap ks (range)) (first ks) (last ks))",
    "(merge (zipmap (take 5 ks) (range)) (zipmap (drop 3 ks) (range)))",
    "(group-by identity ks)",
    "(select-keys (zipmap ks (range)) (reverse ks))",
    "(update-vals (zipmap ks (range)) inc)",
    "(into {} (filter (fn [[k v]] (even? v)) (zipmap ks (range))))",
]
SET_BUILDERS = [
    "(set ks)",
    "(into #{} ks)",
    "(apply hash-set ks)",
    "LITERAL",
    "(disj (set ks) (first ks))",
    "(reduce conj #{} (reverse ks))",
    "(clojure.set/union (set (take 7 ks)) (set (drop 4 ks)))",
    "(set (distinct (concat ks ks)))",
]


def program(r):
    n = r.choice([0, 1, 2, 3, 5, 8, 9, 10, r.randrange(0, 41), r.randrange(0, 41), r.randrange(0, 41)])
    ks = distinct_keys(r, n)
    pos = "(fn [k] (first (keep-indexed (fn [i x] (when (= x k) i)) ks)))"
    if r.randrange(3):
        b = r.choice(MAP_BUILDERS)
        if b == "LITERAL":
            b = "{" + " ".join("%s %d" % (k, i) for i, k in enumerate(ks)) + "}"
        walk = r.choice(["(keys c)", "(map first c)", "(vec c)", "(reduce-kv (fn [acc k v] (conj acc k)) [] c)", "(for [[k v] c] k)"])
        if walk == "(vec c)":
            walk = "(map first (vec c))"
    else:
        b = r.choice(SET_BUILDERS)
        if b == "LITERAL":
            b = "#{" + " ".join(ks) + "}"
        walk = r.choice(["(vec c)", "(seq c)", "(map identity c)", "(reduce conj [] c)", "(for [x c] x)"])
    return "(let [ks [%s] c %s] (mapv %s %s))" % (" ".join(ks), b, pos, walk)


# Programs in the style data tasks are written in, whose answer depends on
# the order a map or set iterates in. Each answers with a vector of
# scalars, which both languages print alike.
TEXT = "the quick brown fox jumps over the lazy dog the fox barks and the dog runs far away from the quick fox while a cat sleeps on the warm mat near the old barn"
IDIOMS = [
    '(let [ws (clojure.string/split "%s" #" ")] (mapv key (take 5 (sort-by val > (frequencies ws)))))' % TEXT,
    '(let [ws (clojure.string/split "%s" #" ")] (mapv first (sort-by second > (frequencies ws))))' % TEXT,
    '(let [ws (clojure.string/split "%s" #" ")] (vec (keys (frequencies ws))))' % TEXT,
    '(let [ws (clojure.string/split "%s" #" ")] (vec (set ws)))' % TEXT,
    '(let [ws (clojure.string/split "%s" #" ")] (vec (distinct (vec (set ws)))))' % TEXT,
    '(let [ws (clojure.string/split "%s" #" ")] (mapv (fn [[k v]] (str k ":" (count v))) (group-by count ws)))' % TEXT,
    '(let [ws (clojure.string/split "%s" #" ")] (mapv key (group-by #(subs %% 0 1) ws)))' % TEXT,
    '(let [ws (clojure.string/split "%s" #" ")] (first (first (sort-by val > (frequencies ws)))))' % TEXT,
    '(let [ws (clojure.string/split "%s" #" ")] (key (apply max-key val (frequencies ws))))' % TEXT,
    '(let [orders (map (fn [i] {:id i :customer (str "c" (mod (* i 7) 13)) :amount (* 10 (mod i 5))}) (range 40))] (mapv (fn [[c os]] [c (reduce + (map :amount os))]) (group-by :customer orders)))',
    '(let [orders (map (fn [i] {:id i :customer (str "c" (mod (* i 7) 13)) :amount (* 10 (mod i 5))}) (range 40))] (mapv first (take 3 (sort-by (comp - second) (map (fn [[c os]] [c (count os)]) (group-by :customer orders))))))',
    '(let [orders (map (fn [i] {:id i :region (nth [:eu :us :apac :latam :mea] (mod i 5)) :status (nth [:paid :void :open] (mod i 3))}) (range 30))] (vec (for [[r os] (group-by :region orders)] [r (count os)])))',
    '(let [orders (map (fn [i] {:id i :tag (keyword (str "t" (mod (* i 11) 17)))}) (range 50))] (vec (set (map :tag orders))))',
    '(let [m (zipmap (map #(keyword (str "k" %)) (range 12)) (range))] (vec (keys (select-keys m [:k1 :k5 :k9 :k11]))))',
    '(let [m (zipmap (map #(keyword (str "k" %)) (range 12)) (range))] (vec (vals (update-vals m inc))))',
    '(let [m (zipmap (map #(keyword (str "k" %)) (range 12)) (range))] (reduce-kv (fn [acc k v] (if (even? v) (conj acc k) acc)) [] m))',
    '(let [m (zipmap (map #(str "user" %) (range 15)) (map #(mod % 4) (range 15)))] (mapv key (sort-by val m)))',
    '(let [s (into #{} (map #(* % %) (range -10 11)))] (vec s))',
    '(let [a (set (range 0 30 3)) b (set (range 0 30 5))] [(vec (clojure.set/union a b)) (vec (clojure.set/intersection a b)) (vec (clojure.set/difference a b))])',
    '(let [emails ["a@x.com" "b@y.org" "c@x.com" "d@z.net" "e@y.org" "f@w.io" "g@v.co" "h@u.ai" "i@t.dev" "j@s.app"]] (vec (set (map #(second (clojure.string/split % #"@")) emails))))',
    '(let [inv (merge-with + {"apple" 3 "pear" 1} {"kiwi" 2 "apple" 1 "fig" 4 "plum" 2 "lime" 5 "date" 6 "yam" 1 "nut" 2})] (vec (keys inv)))',
    '(let [people [{:name "Ann" :dept "eng"} {:name "Bob" :dept "ops"} {:name "Cy" :dept "eng"} {:name "Di" :dept "hr"} {:name "Ed" :dept "fin"} {:name "Flo" :dept "ops"} {:name "Gus" :dept "mkt"} {:name "Hal" :dept "law"} {:name "Ivy" :dept "it"} {:name "Jo" :dept "qa"}]] (mapv (fn [[d ps]] (str d "=" (clojure.string/join "," (map :name ps)))) (group-by :dept people)))',
    '(let [idx (clojure.set/index #{{:a 1 :b 2} {:a 1 :b 3} {:a 2 :b 2} {:a 3 :b 1}} [:a])] (mapv (fn [[k v]] [(:a k) (count v)]) idx))',
    '(vec (keys (into {} (map (fn [w] [w (count w)]) ["alpha" "beta" "gamma" "delta" "epsilon" "zeta" "eta" "theta" "iota" "kappa"]))))',
    '(let [m (hash-map :b 2 :a 1 :c 3)] [(vec (keys m)) (first (first m))])',
    '(let [nested {:x (zipmap (range 10) (range 10)) :y #{:p :q :r :s}}] [(vec (keys (:x nested))) (vec (:y nested))])',
    '(let [counts (reduce (fn [m w] (update m w (fnil inc 0))) {} (clojure.string/split "%s" #" "))] (vec (take 6 (keys counts))))' % TEXT,
    '(vec (sort-by count (set ["bb" "aa" "cc" "d" "e" "f" "ggg" "hh" "ii" "jjj"])))',
]

RUNNER = r"""
(require 'clojure.set)
(doseq [src (read-string (slurp (first *command-line-args*)))]
  (println (pr-str (try (eval (read-string src)) (catch Throwable e (str "ERROR " (.getMessage e)))))))
"""


def main():
    r = random.Random(37)
    progs = [program(r) for _ in range(CASES)] + IDIOMS
    with tempfile.TemporaryDirectory() as d:
        src = os.path.join(d, "progs.edn")
        with open(src, "w") as f:
            f.write("[" + " ".join(json.dumps(p, ensure_ascii=False) for p in progs) + "]")
        runner = os.path.join(d, "runner.clj")
        with open(runner, "w") as f:
            f.write(RUNNER)
        out = subprocess.run(["clojure", runner, src], capture_output=True, text=True, check=True).stdout
    lines = out.splitlines()
    assert len(lines) == len(progs), (len(lines), len(progs))
    with open(os.path.join(HERE, "cases.jsonl"), "w") as f:
        for p, want in zip(progs, lines):
            assert not want.startswith('"ERROR'), (p, want)
            f.write(json.dumps({"src": p, "want": want}, ensure_ascii=False) + "\n")


if __name__ == "__main__":
    main()
