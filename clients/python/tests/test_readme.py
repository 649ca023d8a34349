"""The README's "Python in ten lines" runs as printed and prints what it says."""

from __future__ import annotations

import os
import re
import subprocess
import sys

from conftest import REPO


def readme_snippet(heading: str, language: str) -> str:
    text = (REPO / "README.md").read_text(encoding="utf-8")
    section = text.split(f"\n## {heading}\n", 1)[1].split("\n## ", 1)[0]
    return re.search(rf"```{language}\n(.*?)```", section, re.S).group(1)


def test_python_in_ten_lines(target):
    code = readme_snippet("Python in ten lines", "python")
    assert len(code.strip().splitlines()) <= 10
    # The line that prints says what it prints: print(...)  # expected
    expected = re.search(r"^\s*print\(.*\)\s*#\s*(.+)$", code, re.M).group(1)
    assert "127.0.0.1:50051" in code
    out = subprocess.run([sys.executable, "-c", code.replace("127.0.0.1:50051", target)],
                         capture_output=True, text=True, timeout=60, env=os.environ.copy())
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == expected.strip()
