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


RUNNER = r"""
(require 'clojure.set)
(doseq [src (read-string (slurp (first *command-line-args*)))]
  (println (pr-str (try (eval (read-string src)) (catch Throwable e (str "ERROR " (.getMessage e)))))))
"""


def main():
    r = random.Random(37)
    progs = [program(r) for _ in range(CASES)]
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
