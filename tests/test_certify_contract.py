"""``certify``'s contract beyond its optimum (found by mutation testing, issue #9): the time
limit, the progress log, the counters and the CPU time it reports, the early answer when no
node is feasible, and the relative tolerance of an improvement."""

from __future__ import annotations

import time

import numpy as np
import pandas as pd
import pytest

from ktype.algorithms.fulldomain._certify import Certifier, certify
from ktype.algorithms.fulldomain._engine import Encoded
from ktype.data import Dataset
from ktype.data.hierarchy import Hierarchy
from ktype.models.kanonymity import KAnonymity
from ktype.models.ldiversity import DistinctLDiversity
from tests.test_certify import _case, brute_optimum


def _search_case(meas: str, min_generators: int) -> Encoded:
    """The first random table (fixed seeds) whose full certification from the top processes at
    least ``min_generators`` generators."""
    for seed in range(400):
        enc = _case(seed, meas)
        cert = certify(enc)
        if np.isfinite(cert.value) and cert.stats["generators"] >= min_generators:
            return enc
    raise AssertionError("no test table found")  # pragma: no cover


def test_time_limit_stops_after_one_generator():
    enc = _search_case("loss_metric", 3)
    cert = certify(enc, time_limit=0.0)
    assert not cert.proven
    assert cert.stats["generators"] == 1
    assert certify(enc).proven


def test_progress_log_every_step_and_counters():
    enc = _search_case("loss_metric", 3)
    top = float(enc.gen_cost(enc.heights)[0]) + 1.0
    state = Certifier(enc, top)
    lines: list[str] = []
    before = time.process_time()
    assert state.run(every=0.0, log=lines.append)
    spent = time.process_time() - before
    assert len(lines) >= 2 and all(line.startswith("target ") for line in lines)
    cert = state.certificate()
    assert 0.0 <= cert.stats["cpu_s"] <= spent + 1e-6
    assert isinstance(cert.stats["done"], int)
    assert cert.stats["done"] == cert.stats["generators"] == len(state.done)


def test_lift_counter_counts_the_lift_evaluations():
    """``lift_evaluated`` is the number of roll-ups made while lifting infeasible nodes."""
    for seed in range(400):
        enc = _case(seed, "loss_metric")
        state = Certifier(enc, float(enc.gen_cost(enc.heights)[0]) + 1.0)
        state.lift = 1.0
        inside = [False]
        calls = [0]
        quick, lift = state.quick, state._lift

        def counting_quick(lv, quick=quick, inside=inside, calls=calls):
            calls[0] += inside[0]
            return quick(lv)

        def flagged_lift(y, lift=lift, inside=inside):
            inside[0] = True
            try:
                lift(y)
            finally:
                inside[0] = False

        state.quick, state._lift = counting_quick, flagged_lift
        state.run()
        if calls[0]:
            assert state.stats["lift_evaluated"] == calls[0]
            return
    raise AssertionError("no table with a lift found")  # pragma: no cover


def test_no_feasible_node_is_answered_at_once():
    """Top node infeasible (the whole table is not 2-diverse): proven, no value, one evaluation."""
    df = pd.DataFrame({"q": ["a", "b", "a", "b"], "s": ["x", "x", "x", "x"]})
    q = Hierarchy.from_table([["a", "*"], ["b", "*"]], name="q")
    ds = Dataset(df, quasi_identifiers=["q"], sensitive=["s"], hierarchies={"q": q})
    enc = Encoded(ds, (KAnonymity(2), DistinctLDiversity(2)), 0.0, "loss_metric")
    cert = certify(enc)
    assert cert.proven and not cert.improved and cert.optimum is None
    assert cert.value == np.inf and cert.stats == {"evaluated": 1}


def test_improvement_needs_a_relative_margin():
    """A target above the optimum by less than the relative tolerance (1e-9 × |target|) is
    already certified: no 'better' node is reported; one further away is improved on."""
    for seed in range(400):
        enc = _case(seed, "non_uniform_entropy")
        want = brute_optimum(enc)
        if not (np.isfinite(want) and want > 100.0):
            continue
        found = certify(enc, target=want * (1 + 1e-3))
        if not found.improved:
            continue  # the optimum's own bound prunes it below this target: no evidence here
        near = certify(enc, target=want * (1 + 0.5e-9))
        assert not near.improved and near.value == want * (1 + 0.5e-9)
        assert found.value == pytest.approx(want, rel=1e-9)
        return
    raise AssertionError("no test table found")  # pragma: no cover
