"""Numba compile time is measured and reported apart from the algorithm's time."""

from __future__ import annotations

import numpy as np
from numba import njit

from ktype._compile import CompileTimer
from ktype.algorithms import run
from ktype.models.kanonymity import KAnonymity
from tests.test_fulldomain_many import synthetic


def test_compile_timer_counts_a_first_compilation_only():
    @njit
    def add_one(x):  # a fresh dispatcher: compiled on its first call
        return x + np.int64(1)

    with CompileTimer() as first:
        assert add_one(1) == 2
    with CompileTimer() as again:
        assert add_one(2) == 3
    assert first.seconds > 0.0 and again.seconds == 0.0


def test_registry_reports_compile_time_apart():
    rel = run("lightning", synthetic(4, n=60), KAnonymity(2), time_limit=None)
    tm = rel.provenance["timings"]
    assert {"algorithm_s", "verification_s", "compile_s"} <= set(tm)
    assert min(tm["algorithm_s"], tm["verification_s"], tm["compile_s"]) >= 0.0


def test_a_timer_reports_seconds_before_and_after_its_block():
    """``seconds`` is a number at every point: 0.0 before the block has run (nothing compiled
    yet), and a non-negative float after it, also when the block raises."""
    timer = CompileTimer()
    assert timer.seconds == 0.0 and isinstance(timer.seconds, float)
    try:
        with timer:
            raise ValueError("inside")
    except ValueError:
        pass
    assert isinstance(timer.seconds, float) and timer.seconds >= 0.0
