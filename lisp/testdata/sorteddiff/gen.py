"""Writes programs.txt: small programs over sorted collections, comparators
of every answer kind and keys of every kind, and self-referencing lazy
sequences. Deterministic: the same seed gives the same file.

    python3 gen.py && clojure oracle.clj > answers.tsv
"""
import random

SEED = 20261201
COUNT = 600

# Keys by kind: the kinds Clojure's compare orders (numbers, strings,
# keywords, symbols, booleans, nil, characters, vectors of them) and those
# it refuses (lists, lazy sequences, maps, sets, vectors holding them).
KEYS = {
    "int": ["0", "1", "2", "-3", "42"],
    "double": ["1.0", "0.5", "-2.5", "2.0"],
    "bigint": ["1N", "10000000000000000000000N", "-7N"],
    "string": ['"a"', '"b"', '"ab"', '""'],
    "keyword": [":a", ":b", ":x/a", ":c"],
    "symbol": ["'a", "'b", "'x/a"],
    "boolean": ["true", "false"],
    "nil": ["nil"],
    "char": ["\\a", "\\b"],
    "vector": ["[1 2]", "[1]", "[2 1]", "[]", "[1 3]", "[:a 1]", '["a"]'],
    "vector-of-list": ["['(1)]", "[(list 1 2)]", "[1 '(2)]"],
    "vector-of-lazy": ["[(map inc [0 1])]", "[1 (range 2)]"],
    "vector-of-map": ["[{:a 1}]", "[#{1}]"],
    "list": ["'(1 2)", "(list 1)", "'()"],
    "lazy": ["(map inc [0 1])", "(range 2)"],
    "map": ["{:a 1}", "{}"],
    "set": ["#{1}", "#{}"],
}
ORDERED = ["int", "double", "bigint", "string", "keyword", "symbol", "boolean", "nil", "char", "vector"]

# Comparators by answer kind: numbers of every size and type, booleans,
# nil and a keyword, consistent and constant.
COMPARATORS = [
    "compare", "(fn [a b] (compare b a))", "<", ">",
    "(fn [a b] 1)", "(fn [a b] -1)", "(fn [a b] 0)",
    "(fn [a b] 0.5)", "(fn [a b] -1.5)", "(fn [a b] 2.5)",
    "(fn [a b] 4294967296)", "(fn [a b] -4294967297)", "(fn [a b] 10000000000000000000000N)",
    "(fn [a b] 2147483648)", "(fn [a b] 1.0E10)",
    "(fn [a b] true)", "(fn [a b] false)", "(fn [a b] nil)", "(fn [a b] :x)", "(fn [a b] \"1\")",
    "(fn [a b] (- (count (str a)) (count (str b))))",
    "(fn [a b] (< (count (str a)) (count (str b))))",
]

SELF_REFERENCING = [
    "(let [a (atom nil) s (lazy-seq (cons 1 @a))] (reset! a s) (take 5 s))",
    "(let [a (volatile! nil) s (lazy-seq (cons 1 @a))] (vreset! a s) (take 5 s))",
    "(do (def a (atom nil)) (def s (lazy-seq (cons 1 @a))) (reset! a s) (take 5 s))",
    "(let [a (atom {}) s (lazy-seq (cons 1 (:s @a)))] (swap! a assoc :s s) (take 5 s))",
    "(let [a (atom nil) d (delay @a) s (lazy-seq (cons 1 @d))] (reset! a s) (take 5 s))",
    "(let [a (atom nil) s (lazy-seq (cons 1 (map inc @a)))] (reset! a s) (take 5 s))",
    "(let [a (atom nil) s (lazy-seq (cons 0 (map + @a (cons 1 @a))))] (reset! a s) (vec (take 6 s)))",
    "(let [a (atom nil) s (map inc (lazy-seq (cons 1 @a)))] (reset! a s) (take 4 s))",
    "(let [a (atom nil) s (lazy-seq (cons 1 (lazy-seq @a)))] (reset! a s) (take 3 s))",
    "(let [a (atom []) s (lazy-seq (cons 1 (first @a)))] (swap! a conj s) (take 3 s))",
    "(let [a (atom nil) s (concat [1 2] (lazy-seq @a))] (reset! a s) (take 7 s))",
    "(let [a (atom nil) s (lazy-seq (cons 1 @a))] (take 3 s))",
    "(let [a (atom nil) s (lazy-seq (cons 1 @a))] (doall (take 2 s)) (reset! a [9]) (take 5 s))",
    "(let [a (atom nil) s (lazy-seq (cons 1 @a))] (reset! a s) (nth s 100))",
    "(let [a (atom nil) s (lazy-seq (cons 1 @a))] (reset! a s) (into (sorted-set) (take 5 s)))",
]

# A vector is Comparable whatever it holds, and compares its items: a list
# among them is not.
VECTORS_OF_LISTS = [
    "(sort [[(list 1)] [(list 1)]])",
    "(compare [(list 1 2)] [(list 1 2)])",
    "(compare [1 [(list 2)]] [1 [(list 2)]])",
    "(seq (sorted-set [(list 1)] [(list 2)]))",
    "(seq (into (sorted-map) [[[(list 1 2)] 1] [[(list 1 2)] 2]]))",
    "(seq (into (sorted-set) [[(list 1)] [(list 1)]]))",
    "(seq (sorted-set [(list 1)]))",
    "(seq (sorted-set [{:a 1}]))",
    "(seq (sorted-set '(1)))",
    "(seq (sorted-set-by compare '(1)))",
    "(sort-by vector [(list 1) (list 1)])",
    "(contains? (sorted-set [1 '(2)]) [1 '(2)])",
]


def pick_key(r, kind=None):
    kind = kind or r.choice(list(KEYS))
    return r.choice(KEYS[kind])


def keys(r):
    """A few keys: mostly of one ordered kind, sometimes of two kinds."""
    n = r.randint(1, 4)
    roll = r.random()
    if roll < 0.55:
        kind = r.choice(ORDERED)
        return [pick_key(r, kind) for _ in range(n)]
    if roll < 0.8:
        return [pick_key(r, r.choice(ORDERED[:3])) for _ in range(n)]
    return [pick_key(r) for _ in range(n)]


def program(r):
    ks = keys(r)
    k = pick_key(r, r.choice([None] + ORDERED * 2))
    c = r.choice(COMPARATORS)
    items = " ".join(ks)
    pairs = " ".join(f"{x} {i}" for i, x in enumerate(ks))
    entries = " ".join(f"[{x} {i}]" for i, x in enumerate(ks))
    sets = [f"(sorted-set {items})", f"(sorted-set-by {c} {items})", f"(into (sorted-set) [{items}])",
            f"(into (sorted-set-by {c}) [{items}])", f"(conj (sorted-set-by {c} {ks[0]}) {k})"]
    maps = [f"(sorted-map {pairs})", f"(sorted-map-by {c} {pairs})", f"(into (sorted-map) [{entries}])",
            f"(into (sorted-map-by {c}) [{entries}])", f"(assoc (sorted-map-by {c} {ks[0]} :x) {k} :y)"]
    s, m = r.choice(sets), r.choice(maps)
    return r.choice([
        f"(seq {s})", f"(seq {m})", f"(count {s})", f"(count {m})",
        f"(contains? {s} {k})", f"(get {m} {k})", f"(get {s} {k})", f"(find {m} {k})",
        f"(seq (disj {s} {k}))", f"(seq (dissoc {m} {k}))",
        f"(subseq {s} >= {k})", f"(rsubseq {s} < {k})", f"(subseq {s} > {k} <= {k})",
        f"(first {s})", f"(last {m})", f"(seq (conj {s} {k}))", f"(seq (assoc {m} {k} :z))",
        f"(sort [{items}])", f"(sort {c} [{items}])", f"(sort-by identity [{items}])",
        f"(sort-by identity {c} [{items}])", f"(compare {ks[0]} {k})", f"(sort [[{ks[0]}] [{k}]])",
        f"(into (sorted-map) [[[{ks[0]}] 1] [[{k}] 2]])", f"(sort-by first [[{ks[0]}] [{k}]])",
        f"(min-key count [{items}] [{k}])", f"(max-key (fn [x] (compare x {k})) {items})",
        f"(= (sorted-set {items}) (set [{items}]))", f"(seq (merge {m} {{{k} 0}}))",
        f"(sort {c} (range 40))", f"(sort-by - {c} (range 30))", f"(seq (apply sorted-set-by {c} (range 40)))",
        f"(rsubseq (apply sorted-set-by {c} (range 10)) >= 5)", f"(get (apply sorted-set-by {c} (range 10)) 5)",
    ])


def main():
    r = random.Random(SEED)
    seen, out = set(), SELF_REFERENCING + VECTORS_OF_LISTS
    while len(out) < COUNT:
        p = program(r)
        if p not in seen:
            seen.add(p)
            out.append(p)
    with open("programs.txt", "w") as f:
        f.write("\n".join(out) + "\n")


main()
