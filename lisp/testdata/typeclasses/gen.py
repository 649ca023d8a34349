#!/usr/bin/env python3
"""Expands templates.txt into probes.txt: each template with X replaced by
nil, a number, a string, a keyword, a map and a vector."""
import os

HERE = os.path.dirname(os.path.abspath(__file__))
ARGS = ["nil", "42", '"s"', ":k", "{:a 1}", "[1 2]"]
with open(os.path.join(HERE, "templates.txt")) as f:
    templates = [l.strip() for l in f if l.strip() and not l.startswith("#")]
with open(os.path.join(HERE, "probes.txt"), "w") as out:
    for t in templates:
        for a in ARGS:
            out.write(t.replace("X", a) + "\n")
