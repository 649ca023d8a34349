#!/usr/bin/env python3
"""Judge the judge5 corpus with real Clojure and write corpus.jsonl.

The same judge as ../idioms/oracle.py (all programs in one JVM, each in a
fresh namespace under the Clojure on PATH, Debian's clojure package, 1.11,
with clojure.string, clojure.set and clojure.walk aliased as str, set and
walk; pr-str of the value or the exception's class and message), run on
this directory's programs.txt. Not run by the tests: run it again after
editing programs.txt.

    python3 lisp/testdata/judge5/oracle.py
"""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "idioms"))

import oracle  # noqa: E402  (../idioms/oracle.py)

if __name__ == "__main__":
    oracle.HERE = HERE
    oracle.main()
