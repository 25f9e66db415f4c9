"""One vocabulary: measure names from ``ktype.measures``, distinct option names, KtypeError only."""

from __future__ import annotations

import ast
import builtins
from pathlib import Path

import pytest

from ktype import measures
from ktype._validation import Options
from ktype.algorithms import all_algorithms, run
from ktype.algorithms.local import Problem
from ktype.exceptions import InvalidParameterError, KtypeError
from ktype.models.kanonymity import KAnonymity
from ktype.testing.algorithm_checks import fixture_dataset

SRC = Path(__file__).resolve().parents[1] / "src" / "ktype"


def test_every_measure_option_names_a_registered_measure():
    """Every value of every algorithm's ``measure`` option is a key of ``ktype.measures.MEASURES``."""
    seen = 0
    for info in all_algorithms():
        for c in info.constraints.get("measure", []):
            if isinstance(c, Options):
                unknown = set(c.values) - set(measures.MEASURES)
                assert not unknown, f"{info.name}: measure names {sorted(unknown)} are not in ktype.measures.MEASURES"
                seen += 1
    assert seen >= 10  # the lattice searches and the local pipelines all declare one


@pytest.mark.parametrize(
    ("algorithm", "old", "new"),
    [("flash", "loss", "loss_metric"), ("forest", "lm", "loss_metric"), ("forest", "em", "entropy")],
)
def test_old_measure_names_are_rejected_with_the_new_name(algorithm, old, new):
    ds = fixture_dataset(n=12)
    with pytest.raises(InvalidParameterError, match=f"'{old}' is now called '{new}'"):
        run(algorithm, ds, KAnonymity(2), measure=old)


def test_problem_rejects_old_measure_name():
    with pytest.raises(InvalidParameterError, match="'lm' is now called 'loss_metric'"):
        Problem.from_dataset(fixture_dataset(n=12), "lm")


def test_option_names_mean_one_thing():
    """An option name shared by two algorithms accepts the same kind of value in both
    (``mode`` was strict/relaxed in mondrian and SCC maintenance in k_concealment)."""
    by_name: dict[str, dict[str, tuple]] = {}
    for info in all_algorithms():
        for name, cons in info.constraints.items():
            opts = tuple(sorted(v for c in cons if isinstance(c, Options) for v in c.values))
            if opts:
                by_name.setdefault(name, {})[info.name] = opts
    for name, per_algo in by_name.items():
        if name == "measure":  # the lattice and the local pipelines offer different subsets of one registry
            continue
        kinds = set(per_algo.values())
        assert len(kinds) == 1, f"option {name!r} takes different value sets: {per_algo}"
    assert by_name["mode"] == {"mondrian": ("relaxed", "strict")}
    assert "scc_update" in by_name and set(by_name["scc_update"]) == {"k_concealment"}


_BUILTIN_EXC = {n for n in dir(builtins) if isinstance(getattr(builtins, n), type) and issubclass(getattr(builtins, n), BaseException)}
# raised on purpose: the protocol of iterators / NotImplementedError for documented gaps
_ALLOWED = {"StopIteration", "NotImplementedError", "KeyboardInterrupt"}


def _builtin_raises(path: Path, root: Path = SRC) -> list[str]:
    tree = ast.parse(path.read_text(), filename=str(path))
    # numba kernels can only raise built-in exceptions: skip functions decorated with njit/jit;
    # a module's __getattr__ must raise AttributeError (PEP 562)
    skip: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef) and (any("jit" in ast.unparse(d) for d in node.decorator_list)
                                                  or node.name == "__getattr__"):
            skip.update(range(node.lineno, (node.end_lineno or node.lineno) + 1))
    bad = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Raise) and node.exc is not None and node.lineno not in skip:
            exc = node.exc.func if isinstance(node.exc, ast.Call) else node.exc
            if isinstance(exc, ast.Name) and exc.id in _BUILTIN_EXC and exc.id not in _ALLOWED:
                bad.append(f"{path.relative_to(root)}:{node.lineno} raises {exc.id}")
    return bad


def test_every_raised_exception_is_a_ktype_error():
    """No module outside the tests raises a bare built-in exception (the testing module's
    AssertionErrors are the check protocol); numba kernels are exempt."""
    bad = []
    for path in sorted(SRC.rglob("*.py")):
        rel = path.relative_to(SRC).as_posix()
        if rel.startswith("tests/") or rel.startswith("testing/"):
            continue
        bad += _builtin_raises(path)
    assert not bad, "raise a ktype.exceptions class instead:\n" + "\n".join(bad)


def test_builtin_raise_detector_can_fail(tmp_path):
    """The detector finds a planted bare ValueError (and ignores numba kernels)."""
    f = tmp_path / "planted.py"
    f.write_text("from numba import njit\n\n@njit\ndef k(x):\n    raise ValueError('ok in numba')\n\n"
                 "def g(x):\n    raise ValueError('bad')\n")
    assert _builtin_raises(f, tmp_path) == ["planted.py:8 raises ValueError"]


def test_ktype_errors_keep_builtin_bases():
    assert issubclass(InvalidParameterError, ValueError) and issubclass(InvalidParameterError, KtypeError)
