#!/usr/bin/env python3
"""Judge the idiom corpus with real Clojure and write corpus.jsonl.

Reads programs.txt (entries "== id", the program, an optional "-- rewrite"
part), evaluates every program under the Clojure found on PATH (Debian's
clojure package, 1.11), each in a fresh namespace with clojure.string,
clojure.set and clojure.walk aliased as str, set and walk, and records
pr-str of the value or the exception's class and message. Prints are
discarded. Not run by the tests: run it again after editing programs.txt.
Given a directory, judges that directory's programs.txt into its
corpus.jsonl instead of this one's, so every judged corpus shares this
judge.

    python3 lisp/testdata/idioms/oracle.py [lisp/testdata/judge6]
"""
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))


def parse(path):
    entries, cur, part = [], None, None
    for line in open(path, encoding="utf-8"):
        if line.startswith("#") and cur is None:
            continue
        if line.startswith("== "):
            cur = {"id": line[3:].strip(), "program": "", "rewrite": ""}
            part = "program"
            entries.append(cur)
        elif line.rstrip("\n") == "-- rewrite":
            part = "rewrite"
        elif cur is not None:
            cur[part] += line
    for e in entries:
        e["program"] = e["program"].strip()
        e["rewrite"] = e["rewrite"].strip()
    return entries


RUNNER = r"""
(defn judge [id src]
  (let [ns (create-ns (symbol (str "idiom." (clojure.string/replace id "/" "."))))
        result (future
                 (binding [*ns* ns *out* (java.io.StringWriter.)]
                   (refer-clojure)
                   (require '[clojure.string :as str] '[clojure.set :as set] '[clojure.walk :as walk])
                   (try
                     (let [v (eval (read-string (str "(do " src "\n)")))]
                       ["ok" (pr-str v)])
                     (catch Throwable t
                       (let [c (or (.getCause t) t)]
                         ["error" (str (.getName (class c)) ": " (.getMessage c))])))))]
    (deref result 20000 ["error" "timeout"])))
(doseq [[id src] (read-string (slurp (first *command-line-args*)))]
  (let [[status text] (judge id src)]
    (println (pr-str [id status text]))))
(shutdown-agents)
"""


def main():
    entries = parse(os.path.join(HERE, "programs.txt"))
    with tempfile.TemporaryDirectory() as tmp:
        progs = os.path.join(tmp, "programs.edn")
        with open(progs, "w", encoding="utf-8") as f:
            f.write("[")
            for e in entries:
                f.write("[%s %s]\n" % (json.dumps(e["id"]), json.dumps(e["program"])))
            f.write("]")
        runner = os.path.join(tmp, "runner.clj")
        open(runner, "w").write(RUNNER)
        out = subprocess.run(["clojure", runner, progs], capture_output=True, text=True, check=True).stdout
        version = subprocess.run(["clojure", "-e", "(clojure-version)"], capture_output=True, text=True).stdout.strip()
    judged = {}
    for line in out.splitlines():
        if not line.startswith("["):
            continue
        # The line is an EDN vector of three strings, which JSON reads once
        # the outer brackets hold comma-separated strings: re-parse with a
        # small reader instead of trusting that.
        judged_id, status, text = read_edn_strings(line)
        judged[judged_id] = (status, text)
    with open(os.path.join(HERE, "corpus.jsonl"), "w", encoding="utf-8") as f:
        for e in entries:
            status, text = judged[e["id"]]
            rec = {"id": e["id"], "program": e["program"]}
            if status == "ok":
                rec["clojure"] = text
            else:
                rec["clojure_error"] = text
            if e["rewrite"]:
                rec["rewrite"] = e["rewrite"]
            f.write(json.dumps(rec, ensure_ascii=False) + "\n")
    print("judged %d programs with Clojure %s" % (len(entries), version), file=sys.stderr)


def read_edn_strings(line):
    """Reads [\"a\" \"b\" \"c\"] as printed by pr-str."""
    out, i = [], 1
    while len(out) < 3:
        i = line.index('"', i)
        j, buf = i + 1, []
        while line[j] != '"':
            if line[j] == "\\":
                nxt = line[j + 1]
                buf.append({"n": "\n", "t": "\t", "r": "\r", '"': '"', "\\": "\\", "b": "\b", "f": "\f"}.get(nxt, nxt))
                j += 2
            else:
                buf.append(line[j])
                j += 1
        out.append("".join(buf))
        i = j + 1
    return out


if __name__ == "__main__":
    if len(sys.argv) > 1:
        HERE = os.path.abspath(sys.argv[1])
    main()
