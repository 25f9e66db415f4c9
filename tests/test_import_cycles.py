"""The import graph of ktype has no cycles, apart from algorithm registration.

Every ``import`` and ``from … import`` of a ktype module counts, wherever it sits (inside a
function too: a function-level import that dodges a cycle is still a cycle), except those under
``if TYPE_CHECKING:``, which never run. The one exception is registration: the algorithm
catalog (``ktype.algorithms._catalog``) imports every algorithm module so that each registers
itself with the registry, which the registry loads on first use (docs/design/layers.md).

The test plants a cycle in a throw-away package and checks that it is reported.
"""

from __future__ import annotations

import ast
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "src" / "ktype"
#: modules whose imports are registration (their out-edges are not part of the graph)
REGISTRATION = {"ktype.algorithms._catalog"}
#: single edges that are delegation by a convenience method, the same exception the layering
#: test makes (docs/design/layers.md): ``Release.report(path)`` calls ``ktype.report.write_report``
DELEGATION = {("ktype.release", "ktype.report")}


def _modules(root: Path) -> dict[str, tuple[Path, bool]]:
    out = {}
    for p in root.rglob("*.py"):
        parts = list(p.relative_to(root.parent).with_suffix("").parts)
        is_pkg = parts[-1] == "__init__"
        out[".".join(parts[:-1] if is_pkg else parts)] = (p, is_pkg)
    return out


def _runtime_nodes(tree: ast.AST) -> list[ast.AST]:
    skip: set[int] = set()
    for n in ast.walk(tree):
        if isinstance(n, ast.If) and "TYPE_CHECKING" in ast.unparse(n.test):
            skip |= {id(x) for x in ast.walk(n)}
    return [n for n in ast.walk(tree) if id(n) not in skip]


def import_graph(root: Path = SRC) -> dict[str, set[str]]:
    """Module -> the ktype modules it imports (``from pkg import sub`` points at ``pkg.sub``)."""
    mods = _modules(root)
    top = root.name

    def known(name: str) -> str | None:
        while name not in mods and "." in name:
            name = name.rsplit(".", 1)[0]
        return name if name in mods else None

    graph: dict[str, set[str]] = {m: set() for m in mods}
    for name, (path, is_pkg) in mods.items():
        if name in REGISTRATION:
            continue
        pkg = name if is_pkg else name.rsplit(".", 1)[0]
        for node in _runtime_nodes(ast.parse(path.read_text(), filename=str(path))):
            targets: list[str] = []
            if isinstance(node, ast.Import):
                targets = [a.name for a in node.names if a.name.split(".")[0] == top]
            elif isinstance(node, ast.ImportFrom):
                if node.level:
                    base = pkg.split(".")
                    base = base[: len(base) - (node.level - 1)]
                    mod = ".".join(base + (node.module.split(".") if node.module else []))
                elif node.module and node.module.split(".")[0] == top:
                    mod = node.module
                else:
                    continue
                targets = [f"{mod}.{a.name}" if f"{mod}.{a.name}" in mods else mod for a in node.names]
            for t in targets:
                k = known(t)
                if k is not None and k != name and (name, k) not in DELEGATION:
                    graph[name].add(k)
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    out: list[list[str]] = []
    counter = 0
    for start in graph:
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = counter
        counter += 1
        stack.append(start)
        on.add(start)
        while work:
            v, it = work[-1]
            w = next(it, None)
            if w is not None:
                if w not in index:
                    index[w] = low[w] = counter
                    counter += 1
                    stack.append(w)
                    on.add(w)
                    work.append((w, iter(sorted(graph[w]))))
                elif w in on:
                    low[v] = min(low[v], index[w])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[v])
            if low[v] == index[v]:
                comp = []
                while True:
                    x = stack.pop()
                    on.discard(x)
                    comp.append(x)
                    if x == v:
                        break
                if len(comp) > 1:
                    out.append(sorted(comp))
    return out


def test_ktype_has_no_import_cycles() -> None:
    found = cycles(import_graph())
    assert not found, "import cycles (break them; a function-level import does not): " + "; ".join(
        " <-> ".join(c) for c in found
    )


def test_a_planted_cycle_is_reported(tmp_path: Path) -> None:
    pkg = tmp_path / "ktype"
    (pkg / "sub").mkdir(parents=True)
    (pkg / "__init__.py").write_text("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from .a import x\n")
    (pkg / "a.py").write_text("from .sub import b\n")
    (pkg / "sub" / "__init__.py").write_text("")
    (pkg / "sub" / "b.py").write_text("def f():\n    from ..a import y  # hidden in a function: still a cycle\n")
    (pkg / "c.py").write_text("import ktype.a\n")
    assert cycles(import_graph(pkg)) == [["ktype.a", "ktype.sub.b"]]
    (pkg / "sub" / "b.py").write_text("def f():\n    return 1\n")
    assert cycles(import_graph(pkg)) == []
