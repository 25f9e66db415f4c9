"""Compiled kernels under concurrent first use (``ktype._jit``).

Two processes that compile two signatures of one cached kernel at the same time must leave a
cache in which every signature maps to its own machine code, and a process must never run code
compiled for another signature, even from a cache corrupted by numba's own unlocked cache.
The race is rare on its own, so the tests force it: the worker processes
(``tests/_cache_race_worker.py``) hold each other at barriers inside numba's cache saving.
"""

from __future__ import annotations

import ast
import json
import os
import random
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

import ktype

WORKER = str(Path(__file__).with_name("_cache_race_worker.py"))
SRC = Path(ktype.__file__).parent


def _run(args: list[str], cache: Path, timeout: float = 600) -> dict:
    env = dict(os.environ, NUMBA_CACHE_DIR=str(cache))
    proc = subprocess.run([sys.executable, WORKER, *args], env=env, capture_output=True, text=True, timeout=timeout)
    assert proc.returncode == 0, f"worker {args} exited {proc.returncode}: {proc.stderr[-2000:]}"
    return json.loads(proc.stdout.strip().splitlines()[-1])


def _race(tmp_path: Path, *, unlocked: bool) -> Path:
    cache, sync = tmp_path / "cache", tmp_path / "sync"
    cache.mkdir()
    sync.mkdir()
    extra = ["--unlocked"] if unlocked else []
    with ThreadPoolExecutor(2) as pool:
        runs = [pool.submit(_run, ["race", role, str(sync), *extra], cache) for role in ("a", "b")]
        for r in runs:
            assert r.result()["misses"] == 1  # each process compiled its own signature
    return cache


def test_concurrent_first_compiles_leave_every_signature_with_its_own_code(tmp_path):
    cache = _race(tmp_path, unlocked=False)
    out = _run(["check"], cache)
    assert out["entries"] == 2 and all(out["consistent"].values()), out
    assert out["hits"] == 2, out  # both specializations came from the cache ...
    assert out["correct"] == {"a": True, "b": True}, out  # ... and compute what the Python function does


def test_the_forced_race_corrupts_numbas_own_cache_and_ktype_never_runs_the_wrong_code(tmp_path):
    cache = _race(tmp_path, unlocked=True)
    out = _run(["check"], cache)
    # the barriers did their job: without the lock, the index sends one signature to the other's code
    assert not all(out["consistent"].values()), out
    # the check on load refuses that entry and recompiles: the results are still right
    assert out["correct"] == {"a": True, "b": True}, out


def test_every_kernel_uses_the_process_safe_cache():
    """No module declares ``numba.njit(cache=True)`` (numba's unlocked cache) itself."""
    offenders = []
    for path in SRC.rglob("*.py"):
        if path.name == "_jit.py":
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and node.module == "numba" and any(a.name == "njit" for a in node.names):
                offenders.append(f"{path.relative_to(SRC)}:{node.lineno} imports numba.njit")
            if isinstance(node, ast.Call) and any(kw.arg == "cache" for kw in node.keywords):
                func = ast.unparse(node.func)
                if func.endswith("jit") and func != "njit":
                    offenders.append(f"{path.relative_to(SRC)}:{node.lineno} {func}(cache=...)")
    assert not [o for o in offenders if not o.startswith("tests/test_")], offenders


def test_njit_refuses_eager_signatures():
    from ktype._jit import njit
    from ktype.exceptions import InternalError

    with pytest.raises(InternalError, match="no signatures"):
        njit("int64(int64)")


FULL = os.environ.get("KTYPE_FULL") == "1"
#: the pair whose shared kernels went wrong after concurrent first runs (Hybrid, then Mondrian)
SMALL = ["hybrid", "mondrian_ldiv"]


@pytest.mark.slow
def test_stress_concurrent_fresh_cache_gives_the_reference_releases(tmp_path):
    """Several processes start at once on a fresh cache and run every algorithm (each in its own
    order); each of their releases and those of a later process loading that cache equal the
    releases of a process with a private cache. CI runs 2 processes and two algorithms;
    ``KTYPE_FULL=1`` runs 4 processes and every registered algorithm."""
    from ktype.algorithms import all_algorithms

    names = [a.name for a in all_algorithms()] if FULL else SMALL
    workers = 4 if FULL else 2
    reference = _run(["releases", *names], tmp_path / "private")
    shared = tmp_path / "shared"
    orders = [random.Random(i).sample(names, len(names)) for i in range(workers)]
    with ThreadPoolExecutor(workers) as pool:
        outs = list(pool.map(lambda order: _run(["releases", *order], shared, timeout=3600), orders))
    outs.append(_run(["releases", *names], shared))
    for out in outs:
        assert out == reference


_INNER = "from ktype._jit import njit\n\n\n@njit\ndef f(x):\n    return x + {add}\n"
_OUTER = "from kpkg.inner import f\nfrom ktype._jit import njit\n\n\n@njit\ndef g(x):\n    return f(x)\n"


def test_editing_a_called_kernels_file_invalidates_the_callers_cache(tmp_path):
    """numba compiles ``g`` together with the ``f`` it calls from another file, and keys the cache
    on ``g``'s own file only: after ``f``'s file changes, numba's cache still serves the old ``f``
    inside ``g``. ktype's key covers every file of the package, so ``g`` is compiled afresh."""
    pkg = tmp_path / "kpkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "inner.py").write_text(_INNER.format(add=1))
    (pkg / "outer.py").write_text(_OUTER)
    env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path / "cache"),
               PYTHONPATH=os.pathsep.join([str(tmp_path), str(SRC.parent), os.environ.get("PYTHONPATH", "")]))

    def call() -> int:
        out = subprocess.run([sys.executable, "-c", "from kpkg.outer import g; print(g(1))"], env=env,
                             capture_output=True, text=True, timeout=300)
        assert out.returncode == 0, out.stderr[-2000:]
        return int(out.stdout.strip())

    assert call() == 2
    assert call() == 2  # from the cache
    inner = pkg / "inner.py"
    inner.write_text(_INNER.format(add=5))
    st = inner.stat()
    os.utime(inner, ns=(st.st_atime_ns, st.st_mtime_ns + 10**9))  # a later modification time, as an edit has
    assert call() == 6
