"""The exact branch-and-bound below a best-effort result (``_certify``): its maximal-node
enumeration and its verdicts against brute force, and a planted unsound bound caught."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ktype.algorithms.fulldomain._certify import Certifier, certify, maximal_below
from ktype.algorithms.fulldomain._engine import Encoded
from ktype.exceptions import InvalidParameterError, UnsupportedModelError
from ktype.models.kanonymity import KAnonymity
from ktype.models.ldiversity import EntropyLDiversity
from tests.test_flash_bounds import random_table

MEASURES = ("loss_metric", "non_uniform_entropy", "precision")


def brute_optimum(enc: Encoded) -> float:
    """Least value of a feasible node, every node evaluated (inf when none is feasible)."""
    zero = np.zeros(enc.r, dtype=np.int64)
    best = np.inf
    for lv in itertools.product(*[range(int(h) + 1) for h in enc.heights]):
        ev = enc.evaluate(enc.bottom, zero, np.array(lv, dtype=np.int64), keep=False)
        if ev.feasible:
            best = min(best, float(ev.value))
    return best


@settings(max_examples=80, deadline=None)
@given(
    heights=st.lists(st.integers(0, 3), min_size=1, max_size=5),
    data=st.data(),
)
def test_maximal_below_matches_brute_force(heights, data):
    """Every maximal node of ``{y ≤ box : Σ term < T}`` and nothing else, for random
    non-decreasing per-attribute terms (ties included)."""
    H = np.array(heights, dtype=np.int64)
    box = np.array([data.draw(st.integers(0, int(h))) for h in H], dtype=np.int64)
    steps = [data.draw(st.lists(st.sampled_from([0.0, 0.5, 1.0, 2.0]), min_size=int(h) + 1, max_size=int(h) + 1)) for h in H]
    term = np.concatenate([np.cumsum(s) for s in steps])
    off = np.concatenate([[0], np.cumsum(H + 1)[:-1]]).astype(np.int64)
    T = data.draw(st.sampled_from([0.0, 0.5, 1.0, 2.5, 3.0, 4.5, 100.0]))

    def f(y):
        return sum(term[off[j] + y[j]] for j in range(len(H)))

    want = set()
    for y in itertools.product(*[range(int(b) + 1) for b in box]):
        if f(y) >= T:
            continue
        ups = [tuple(y[i] + (i == j) for i in range(len(H))) for j in range(len(H)) if y[j] < box[j]]
        if all(f(u) >= T for u in ups):
            want.add(tuple(int(v) for v in y))
    got = {tuple(int(v) for v in row) for row in maximal_below(box, term, off, T)}
    assert got == want


def _case(seed: int, meas: str) -> Encoded:
    ds, k, sup = random_table(seed)
    return Encoded(ds, (KAnonymity(k),), sup, meas)


@settings(max_examples=50, deadline=None)
@given(seed=st.integers(0, 2**32 - 1))
def test_certify_from_top_returns_the_optimum(seed):
    """Started from the top node's value, the finished search returns the brute-force optimum
    (and a node attaining it)."""
    for meas in MEASURES:
        enc = _case(seed, meas)
        want = brute_optimum(enc)
        cert = certify(enc)
        assert cert.proven
        if not np.isfinite(want):
            assert cert.optimum is None
            continue
        assert cert.value == pytest.approx(want, rel=1e-9, abs=1e-12), meas
        ev = enc.evaluate(enc.bottom, np.zeros(enc.r, dtype=np.int64), cert.optimum, keep=False)
        assert ev.feasible and ev.value == pytest.approx(want, rel=1e-9, abs=1e-12)


@settings(max_examples=50, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), excess=st.sampled_from([1e-6, 1e-3, 0.05]))
def test_certify_verdicts(seed, excess):
    """At the optimum: proven, not improved; just above it: the optimum is found."""
    enc = _case(seed, "loss_metric")
    want = brute_optimum(enc)
    if not np.isfinite(want):
        return
    at = certify(enc, want)
    assert at.proven and not at.improved and at.value == want
    above = certify(enc, want + excess)
    assert above.proven and above.improved
    assert above.value == pytest.approx(want, rel=1e-9, abs=1e-12)


@settings(max_examples=50, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), lift=st.sampled_from([0.0, 1.0]))
def test_group_sources_and_lifting_keep_the_optimum(seed, lift):
    """Every group of initial generators rolled up from its common finer node (group size
    ≥ 1) and infeasible generators lifted (``lift``): still the brute-force optimum."""
    from ktype.algorithms.fulldomain import _certify

    old = _certify._GROUP_MIN
    _certify._GROUP_MIN = 1
    try:
        enc = _case(seed, "loss_metric")
        want = brute_optimum(enc)
        if not np.isfinite(want):
            return
        state = Certifier(enc, float(enc.gen_cost(enc.heights)[0]) + 1.0)
        state.lift = lift
        assert state.run()
        assert state.target == pytest.approx(want, rel=1e-9, abs=1e-12)
    finally:
        _certify._GROUP_MIN = old


class _Inflated(Certifier):
    """A planted unsound bound: suppressed records counted three times."""

    def terms(self, lv):
        value, term = super().terms(lv)
        return value, self.col + 3 * (term - self.col)


def test_planted_unsound_bound_is_caught():
    """The brute-force comparison detects an over-estimating bound: with suppressed records
    counted three times, some random table's optimum is pruned (value above brute force)."""
    wrong = 0
    for seed in range(60):
        enc = _case(seed, "loss_metric")
        want = brute_optimum(enc)
        if not np.isfinite(want):
            continue
        st_ = _Inflated(enc, enc.gen_cost(enc.heights)[0] + 1.0)
        st_.run()
        if st_.target > want * (1 + 1e-9) + 1e-12:
            wrong += 1
    assert wrong > 0


def test_checkpoint_resume_gives_same_result(tmp_path):
    """Stopping after every generator, saving and loading into a fresh state ends with the
    same value and counters as one uninterrupted run."""
    seed = next(s for s in range(100) if np.isfinite(brute_optimum(_case(s, "loss_metric"))) and _case(s, "loss_metric").r >= 3)
    enc = _case(seed, "loss_metric")
    top = float(enc.gen_cost(enc.heights)[0]) + 1.0
    one = Certifier(enc, top)
    one.run()
    path = tmp_path / "c.ckpt"
    state = Certifier(enc, top)
    rounds = 0
    while True:
        finished = state.run(time_limit=0.0, checkpoint=path)
        rounds += 1
        if finished:
            break
        state = Certifier(enc, top)
        state.load(path)
    assert rounds > 1
    other = Certifier(Encoded(enc.dataset, (KAnonymity(1),), 0.9, "precision"), top)
    with pytest.raises(InvalidParameterError, match="another dataset or setting"):
        other.load(path)
    a, b = one.certificate(), state.certificate()
    assert a.value == b.value and a.proven and b.proven
    for key in ("generators", "evaluated", "infeasible", "feasible", "pushed"):
        assert a.stats[key] == b.stats[key], key


def test_unsupported_settings_refused():
    ds, k, sup = random_table(3)
    with pytest.raises(UnsupportedModelError, match="cell-additive"):
        Certifier(Encoded(ds, (KAnonymity(k),), sup, "discernibility"), 1.0)
    enc = Encoded(ds, (KAnonymity(k), EntropyLDiversity(1.5)), 0.5, "loss_metric")
    assert enc.limit > 0 and not enc.monotone_feasibility
    with pytest.raises(UnsupportedModelError, match="sub-classes"):
        Certifier(enc, 1.0)
