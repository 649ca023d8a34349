"""The README's Python section: the ten-line agent runs as printed and
prints what it says; the other snippets compile."""

from __future__ import annotations

import ast
import os
import re
import subprocess
import sys

from conftest import REPO


def readme_section(heading: str) -> str:
    text = (REPO / "README.md").read_text(encoding="utf-8")
    return text.split(f"\n## {heading}\n", 1)[1].split("\n## ", 1)[0]


def snippets(section: str, language: str) -> list[str]:
    return re.findall(rf"^```{language}\n(.*?)^```", section, re.S | re.M)


def test_python_in_ten_lines(target):
    code = snippets(readme_section("Python in ten lines"), "python")[0]
    assert len(code.strip().splitlines()) <= 10
    # The line that prints says what it prints: print(...)  # expected
    expected = re.search(r"^\s*print\(.*\)\s*#\s*(.+)$", code, re.M).group(1)
    assert "127.0.0.1:50051" in code
    out = subprocess.run([sys.executable, "-c", code.replace("127.0.0.1:50051", target)],
                         capture_output=True, text=True, timeout=60, env=os.environ.copy())
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == expected.strip()


def test_the_other_snippets_compile():
    sections = [readme_section("Python in ten lines"), (REPO / "clients/python/README.md").read_text()]
    codes = [code for section in sections for code in snippets(section, "python")]
    assert len(codes) >= 6
    for code in codes:
        compile(code, "README", "exec", flags=ast.PyCF_ALLOW_TOP_LEVEL_AWAIT)
