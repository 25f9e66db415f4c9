"""The registry reports numba compilation apart from the algorithm and the verification
(docs/guide.md, "Timings"): ``algorithm_s`` and ``verification_s`` exclude the compile time
measured inside each, and ``compile_s`` is the sum of both. The clock and the compile timer
are replaced by fakes, so the three numbers are known exactly (no timing is measured)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import ktype.algorithms._registry as registry
from ktype import Dataset
from ktype.algorithms import run
from ktype.models.kanonymity import KAnonymity


class _Clock:
    """perf_counter that advances by ``step`` seconds per reading."""

    def __init__(self, step: float) -> None:
        self.now, self.step = 0.0, step

    def perf_counter(self) -> float:
        self.now += self.step
        return self.now


def _timer(seconds: list[float]):
    """A CompileTimer stand-in reporting the given compile seconds, one per ``with`` block."""
    queue = list(seconds)

    class FakeTimer:
        def __enter__(self):
            self.seconds = 0.0
            return self

        def __exit__(self, *exc):
            self.seconds = queue.pop(0)

    return FakeTimer


def table() -> Dataset:
    rng = np.random.default_rng(0)
    df = pd.DataFrame({"age": rng.integers(20, 60, 30), "sex": rng.choice(["f", "m"], 30)})
    return Dataset(df, quasi_identifiers=["age", "sex"], hierarchies={"age": {"intervals": [5, 10, 20, 40]}})


@pytest.mark.parametrize(("alg_compile", "ver_compile"), [(0.25, 0.5), (0.0, 0.75), (3.0, 0.0)])
def test_compile_time_is_reported_apart(monkeypatch, alg_compile, ver_compile):
    ds = table()
    # every perf_counter reading is 1 s after the previous one: the algorithm and the
    # verification each take exactly 1 s of wall time by this clock
    monkeypatch.setattr(registry, "time", _Clock(1.0))
    monkeypatch.setattr(registry, "CompileTimer", _timer([alg_compile, ver_compile]))
    tm = run("datafly", ds, KAnonymity(3)).provenance["timings"]
    assert tm["compile_s"] == pytest.approx(alg_compile + ver_compile)
    # compile time above the wall time measured is reported as 0, never negative
    assert tm["algorithm_s"] == pytest.approx(max(1.0 - alg_compile, 0.0))
    assert tm["verification_s"] == pytest.approx(max(1.0 - ver_compile, 0.0))
    assert set(tm) == {"algorithm_s", "verification_s", "compile_s"}
