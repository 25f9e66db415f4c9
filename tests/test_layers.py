"""Import layering (docs/design/layers.md): a module imports only from its own layer or below.

data < release < measures, models < algorithms < attacks, risk < interfaces. Foundations
(exceptions, validation, grouping, I/O helpers) sit below data. Lazy imports inside
functions count too: an upward import is a cycle waiting to happen, wherever it sits.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[1] / "src" / "ktype"

#: layer rank of each top-level module of ktype (anything not listed is an interface)
LAYERS: dict[str, int] = {
    "exceptions": 0,
    "_validation": 0,
    "_grouping": 0,
    "_compile": 0,  # numba compile-time accounting (numba only)
    "_jit": 0,
    "_lazy": 0,  # PEP 562 lazy package attributes (standard library only)  # numba njit with the process-safe kernel cache (numba only)
    "_matching": 0,  # maximum bipartite matching (numba, scipy.sparse only)
    "_progress": 0,  # progress events to a callback or a terminal (standard library; rich when drawing a bar)
    "_take_rows": 0,  # compiled parallel row gather (numba only)
    "__version__": 0,  # "from . import __version__": package metadata
    "data": 1,
    "io": 1,  # release files: formats, atomic writes, output-path safety (data: the table reader)
    "datasets": 1,
    "release": 2,
    "freeform_release": 2,  # the value-set release of freeform recoding
    "plan": 2,  # recoding plans (full-domain levels, Mondrian boxes) and the labels of cells
    "measures": 3,
    "models": 3,
    "algorithms": 4,
    "attacks": 5,
    "risk": 5,  # re-identification risk of releases: beside attacks
    "dask": 6,  # an interface: drives models, measures, algorithms and risk on a Dask cluster (docs/scale.md)
}
INTERFACE = 6
NAMES = {0: "foundation", 1: "data", 2: "release", 3: "measures/models", 4: "algorithms", 5: "attacks", 6: "interfaces"}
#: (file under src/ktype, imported top-level module) pairs allowed to import upward, each a lazy
#: import inside one convenience method (docs/design/layers.md, "Exception"). Nothing else.
ALLOWED_UPWARD: frozenset[tuple[str, str]] = frozenset({
    ("release.py", "report"),  # Release.report(path) delegates to ktype.report.write_report
})
#: same-rank packages that must not import each other (a measure never needs a model's checker)
SEPARATE = {frozenset({"measures", "models"})}


def layer_of(top: str) -> int:
    return LAYERS.get(top, INTERFACE)


def _module_name(path: Path, root: Path) -> list[str]:
    parts = list(path.relative_to(root).with_suffix("").parts)
    return parts[:-1] if parts[-1] == "__init__" else parts


def imported_tops(path: Path, root: Path = SRC) -> list[tuple[int, str]]:
    """(line, top-level ktype module) of every ktype import in ``path`` (relative ones resolved)."""
    mod = _module_name(path, root)
    pkg = mod if path.name == "__init__.py" else mod[:-1]
    out = []
    for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
        if isinstance(node, ast.Import):
            for a in node.names:
                parts = a.name.split(".")
                if parts[0] == "ktype" and len(parts) > 1:
                    out.append((node.lineno, parts[1]))
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = pkg[: len(pkg) - (node.level - 1)] if node.level > 1 else pkg
                target = base + (node.module.split(".") if node.module else [])
                if target:
                    out.append((node.lineno, target[0]))
                else:  # "from . import x" at the package root
                    out += [(node.lineno, a.name) for a in node.names]
            elif node.module and node.module.split(".")[0] == "ktype":
                parts = node.module.split(".")
                if len(parts) > 1:
                    out.append((node.lineno, parts[1]))
                else:
                    out += [(node.lineno, a.name) for a in node.names]
    return out


def upward_imports(root: Path = SRC) -> list[str]:
    bad = []
    for path in sorted(root.rglob("*.py")):
        mod = _module_name(path, root)
        if not mod or mod[0] in ("tests", "testing"):
            continue
        own = mod[0]
        for line, top in imported_tops(path, root):
            if top == own:
                continue
            if (path.relative_to(root).as_posix(), top) in ALLOWED_UPWARD:
                continue
            if layer_of(top) > layer_of(own):
                bad.append(f"{path.relative_to(root)}:{line}: {own} ({NAMES[layer_of(own)]}) imports {top} "
                           f"({NAMES[layer_of(top)]})")
            elif frozenset({own, top}) in SEPARATE:
                bad.append(f"{path.relative_to(root)}:{line}: {own} imports its peer {top}")
    return bad


def test_no_upward_imports():
    bad = upward_imports()
    assert not bad, "upward imports (docs/design/layers.md):\n" + "\n".join(bad)


@pytest.mark.parametrize(
    ("where", "code", "expected"),
    [
        ("measures/planted.py", "from ..algorithms import run\n", "measures (measures/models) imports algorithms"),
        ("models/planted.py", "from ktype.cli import main\n", "models (measures/models) imports cli (interfaces)"),
        ("data/planted.py", "def f():\n    from ..release import Release\n", "data (data) imports release"),
        ("algorithms/sub/planted.py", "from ...attacks import risk\n", "algorithms (algorithms) imports attacks"),
        ("measures/planted.py", "from ..models import kanonymity\n", "measures imports its peer models"),
        # the allowance is one (file, module) pair: the same file importing another interface is still flagged
        ("release.py", "def f():\n    from .cli import main\n", "release (release) imports cli (interfaces)"),
        ("models/planted.py", "def f():\n    from ..report import write_report\n", "models (measures/models) imports report"),
    ],
)
def test_planted_upward_import_fails(tmp_path, where, code, expected):
    """Copy-free plant: a fake package tree with one upward import is flagged."""
    f = tmp_path / where
    f.parent.mkdir(parents=True, exist_ok=True)
    f.write_text(code)
    bad = upward_imports(tmp_path)
    assert len(bad) == 1 and expected in bad[0], bad


def test_downward_imports_pass(tmp_path):
    f = tmp_path / "algorithms" / "ok.py"
    f.parent.mkdir(parents=True)
    f.write_text("from ..models import kanonymity\nfrom ..measures import loss_metric\nfrom ..data import dataset\n")
    assert upward_imports(tmp_path) == []
