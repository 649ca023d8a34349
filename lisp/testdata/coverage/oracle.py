#!/usr/bin/env python3
"""Record Clojure's answers for the coverage table (table.txt).

Lists every public var of clojure.core, clojure.string, clojure.set and
clojure.walk with ns-publics into vars.txt, then evaluates every example
and every rewrite of table.txt and hints.txt under the Clojure found on PATH (Debian's
clojure package, 1.11), each in a fresh namespace with clojure.string,
clojure.set and clojure.walk aliased as str, set and walk, and writes
pr-str of the value, or the exception's class and message, to
oracle.jsonl. Prints are discarded. The tests never run Clojure: run this
again after editing table.txt or hints.txt.

A recording gives the same file every time, byte for byte. What made lines
change from one recording to the next, and what holds them still:
- the scratch directory's random name reached *file*, *command-line-args*
  and get-thread-bindings: the runner and the programs are named relative
  to it;
- identity hashes (0x1b38fe53, clojure.core$fn__8501@1b38fe53) of objects
  printed inside a value: every #object keeps its class only;
- the identity hash of the class loader a cast error names ("loader
  clojure.lang.DynamicClassLoader @3a7b2a6e"): the loader keeps its class;
- the JVM's fast throw of a NullPointerException once the code throwing it
  is compiled, with no message, where the interpreted code's message names
  the null: -XX:-OmitStackTraceInFastThrow gives the message every time;
- examples whose answer is random, the clock, a race or a map keyed by
  identity: the table asks for a property of them instead ((< (rand) 1),
  (sort (shuffle [1 2 3])), (some? (java.util.Date.))), which Clojure
  answers the same each time and which still reaches the refusal.

    python3 lisp/testdata/coverage/oracle.py
"""
import importlib.util
import json
import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))


def _idiom_oracle():
    """The idiom corpus' oracle, whose reader of printed strings this reuses."""
    spec = importlib.util.spec_from_file_location("idiom_oracle", os.path.join(HERE, "..", "idioms", "oracle.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


read_edn_strings = _idiom_oracle().read_edn_strings
NAMESPACES = ["clojure.core", "clojure.string", "clojure.set", "clojure.walk"]

LIST_VARS = """
(require 'clojure.string 'clojure.set 'clojure.walk)
(doseq [ns '[%s] [s v] (sort-by (comp str key) (ns-publics ns))]
  (println (str ns "/" s) (cond (:macro (meta v)) "macro" (and (bound? v) (fn? @v)) "fn" :else "value")))
""" % " ".join(NAMESPACES)

RUNNER = r"""
(require 'clojure.string 'clojure.set 'clojure.walk)
(defn judge [i src]
  (let [ns (create-ns (symbol (str "coverage.p" i)))
        result (future
                 (binding [*ns* ns *out* (java.io.StringWriter.)]
                   (refer-clojure)
                   (require '[clojure.string :as str] '[clojure.set :as set] '[clojure.walk :as walk])
                   (try
                     (let [v (eval (read-string (str "(do " src "\n)")))]
                       ["ok" (pr-str v)])
                     (catch Throwable t
                       (let [c (if (instance? clojure.lang.Compiler$CompilerException t) (or (.getCause t) t) t)]
                         ["error" (str (.getName (class c)) ": " (.getMessage c))])))))]
    (let [r (deref result 10000 nil)] (or r (do (future-cancel result) ["error" "timeout"])))))
(doseq [[i src] (map-indexed vector (read-string (slurp (first *command-line-args*))))]
  (let [[status text] (judge i src)]
    (println (pr-str [(str i) status text]))))
(shutdown-agents)
"""


def parse_table(path):
    """The example and rewrite sources of table.txt, in order."""
    sources = []
    for line in open(path, encoding="utf-8"):
        line = line.rstrip("\n")
        if not line.strip() or line.startswith("#") or line.startswith("==") or line.startswith("!="):
            continue
        if line.startswith("-> "):
            line = line[3:]
        if line not in sources:
            sources.append(line)
    return sources


def clojure(*args, cwd=None):
    # cwd is a scratch directory: the examples of spit and the like write there.
    env = dict(os.environ, JAVA_TOOL_OPTIONS="-XX:-OmitStackTraceInFastThrow")
    return subprocess.run(["clojure", *args], capture_output=True, text=True, check=True, cwd=cwd, env=env).stdout


def main():
    with tempfile.TemporaryDirectory() as tmp:
        lister = os.path.join(tmp, "vars.clj")
        open(lister, "w").write(LIST_VARS)
        with open(os.path.join(HERE, "vars.txt"), "w") as f:
            f.write(clojure(lister))
        sources = []
        for table in ("table.txt", "hints.txt"):
            sources += [s for s in parse_table(os.path.join(HERE, table)) if s not in sources]
        progs = os.path.join(tmp, "programs.edn")
        with open(progs, "w", encoding="utf-8") as f:
            f.write("[")
            for s in sources:
                f.write(json.dumps(s) + "\n")
            f.write("]")
        runner = os.path.join(tmp, "runner.clj")
        open(runner, "w").write(RUNNER)
        # Relative names: *file* and *command-line-args* do not show tmp's name.
        out = [l for l in clojure("runner.clj", "programs.edn", cwd=tmp).splitlines() if l.startswith("[")]
        version = clojure("-e", "(clojure-version)").strip()
    if len(out) != len(sources):
        sys.exit("judged %d of %d sources" % (len(out), len(sources)))
    with open(os.path.join(HERE, "oracle.jsonl"), "w", encoding="utf-8") as f:
        for src, line in zip(sources, out):
            _, status, text = read_edn_strings(line)
            # An object prints with its identity hash, at the top or inside
            # a value: keep the class only, so that a regeneration changes
            # no line that did not change.
            text = re.sub(r"^(#object\[\S+) 0x[0-9a-f]+ .*\]$", r"\1]", text)
            text = re.sub(r'(#object\[[^\s\]]+) 0x[0-9a-f]+ "(?:[^"\\]|\\.)*"\]', r"\1]", text)
            text = re.sub(r"(#object\[[^\s\]]+) 0x[0-9a-f]+", r"\1", text)
            text = re.sub(r"(loader \S+) @[0-9a-f]+", r"\1", text)
            rec = {"program": src}
            rec["clojure" if status == "ok" else "clojure_error"] = text
            f.write(json.dumps(rec, ensure_ascii=False) + "\n")
    print("judged %d sources with Clojure %s" % (len(sources), version), file=sys.stderr)


if __name__ == "__main__":
    main()
