"""No module of ktype is longer than ~600 lines without saying why at its top.

A long module is often two modules; when it is not, its docstring says so in a paragraph
starting "Length:". The test lists the modules over the limit that do not.
"""

from __future__ import annotations

import ast
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "src" / "ktype"
LIMIT = 600


def long_modules_without_reason(root: Path = SRC, limit: int = LIMIT) -> list[str]:
    out = []
    for path in sorted(root.rglob("*.py")):
        text = path.read_text()
        n = text.count("\n") + 1
        if n <= limit:
            continue
        doc = ast.get_docstring(ast.parse(text)) or ""
        if not any(p.strip().startswith("Length:") for p in doc.split("\n\n")):
            out.append(f"{path.relative_to(root.parent)} ({n} lines)")
    return out


def test_long_modules_say_why():
    assert not long_modules_without_reason(), "split these or say why at the top (a 'Length:' paragraph)"


def test_the_rule_sees_a_long_module(tmp_path):
    (tmp_path / "big.py").write_text('"""A module."""\n' + "x = 1\n" * 700)
    assert long_modules_without_reason(tmp_path) == [f"{tmp_path.name}/big.py (702 lines)"]
    (tmp_path / "big.py").write_text('"""A module.\n\nLength: one table.\n"""\n' + "x = 1\n" * 700)
    assert long_modules_without_reason(tmp_path) == []
