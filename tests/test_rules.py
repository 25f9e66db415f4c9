"""The shared rule predicate (ktype.algorithms._rules) against the models' checkers.

Every class-based model declares its rule (``rule_spec``); the compiled predicate decides it
for all algorithms. These tests draw histograms with hypothesis, including classes right at
the thresholds (entropy exactly log ℓ, frequency exactly 1/ℓ, r_1 exactly c·tail, EMD exactly
t), and require the predicate to give the checker's verdict (``class_verdicts``).
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ktype import Dataset, Hierarchy
from ktype.algorithms._rules import GUARD, all_ok, class_ok, implied_bounds, pack, rule_verdicts
from ktype.models import (
    DistinctLDiversity,
    EntropyLDiversity,
    FrequencyLDiversity,
    KAnonymity,
    PSensitivity,
    RecursiveCLDiversity,
    TCloseness,
    TransparentLDiversity,
)
from ktype.models._rulespec import ENTROPY, FREQUENCY, RuleSpec
from ktype.models.transparent import ProtectedLDiversity

V = 4
#: the table's sensitive counts: q = (4, 2, 1, 1) / 8 (dyadic, so EMD thresholds are exact)
TABLE = [0] * 4 + [1] * 2 + [2, 3]


def _dataset() -> Dataset:
    n = len(TABLE)
    s = [f"s{v}" for v in TABLE]
    h = Hierarchy.from_subsets(["s0", "s1", "s2", "s3"], [["s0", "s1"], ["s2", "s3"]], name="s")
    df = pd.DataFrame({"q": ["a"] * n, "s": s})
    return Dataset(df, quasi_identifiers=["q"], sensitive=["s"], hierarchies={"s": h})


DS = _dataset()


def _models() -> list:
    return [
        KAnonymity(1), KAnonymity(3), KAnonymity(8),
        DistinctLDiversity(1), DistinctLDiversity(2), DistinctLDiversity(4),
        PSensitivity(3),
        EntropyLDiversity(1.0), EntropyLDiversity(2.0), EntropyLDiversity(3.0), EntropyLDiversity(1.5),
        RecursiveCLDiversity(1.0, 2), RecursiveCLDiversity(2.0, 2), RecursiveCLDiversity(0.5, 3), RecursiveCLDiversity(3.0, 1),
        FrequencyLDiversity(1.0), FrequencyLDiversity(2.0), FrequencyLDiversity(1.5), FrequencyLDiversity(1.1),
        TransparentLDiversity(2), TransparentLDiversity(3),
        ProtectedLDiversity(2.0, values=("s1",)), ProtectedLDiversity(1.5, values=("s0", "s2")),
        *[TCloseness(t, distance=d) for t in (0.0, 0.125, 0.25, 0.5) for d in ("equal", "ordered", "hierarchical")],
    ]


MODELS = _models()

#: classes exactly at thresholds: uniform over 1-4 values (entropy = log d, frequency 1/d), the
#: table's own distribution and multiples (EMD 0), r_1 = c·tail, EMD exactly 1/8, 1/4, 1/2
EDGE = [
    [1, 0, 0, 0], [1, 1, 0, 0], [2, 2, 0, 0], [1, 1, 1, 0], [3, 3, 3, 0], [1, 1, 1, 1], [5, 5, 5, 5],
    [4, 2, 1, 1], [8, 4, 2, 2], [2, 2, 0, 0], [2, 1, 1, 0], [4, 2, 2, 0], [2, 1, 0, 1], [6, 2, 0, 0],
    [3, 1, 0, 0], [0, 0, 1, 1], [2, 2, 2, 2], [1, 0, 0, 1], [0, 0, 0, 5], [3, 1, 1, 1], [4, 4, 0, 0],
]

hist_st = st.lists(st.integers(0, 9), min_size=V, max_size=V).filter(lambda h: sum(h) > 0)


def _checker(model, hist: np.ndarray, sizes: np.ndarray) -> np.ndarray:
    return np.asarray(model.class_verdicts(sizes, hist, DS), dtype=bool)


def test_edge_classes_agree_with_every_checker():
    hist = np.array(EDGE, dtype=np.int64)
    sizes = hist.sum(axis=1)
    for model in MODELS:
        spec = model.rule_spec(DS)
        assert (rule_verdicts(spec, sizes, hist) == _checker(model, hist, sizes)).all(), model


def test_edge_classes_really_sit_on_thresholds():
    """The edge list is not vacuous: some classes pass with equality in the checker's terms."""
    assert bool(EntropyLDiversity(2.0).class_verdicts(np.array([2]), np.array([[1, 1, 0, 0]]), DS)[0])
    assert float(EntropyLDiversity(2.0).class_values(np.array([2]), np.array([[1, 1, 0, 0]]), DS)[0]) == pytest.approx(2.0)
    assert bool(FrequencyLDiversity(2.0).class_verdicts(np.array([4]), np.array([[2, 2, 0, 0]]), DS)[0])
    assert not bool(FrequencyLDiversity(2.0).class_verdicts(np.array([4]), np.array([[3, 1, 0, 0]]), DS)[0])
    t = TCloseness(0.25)
    assert float(t.class_values(np.array([4]), np.array([[2, 2, 0, 0]]), DS)[0]) == pytest.approx(0.25, abs=1e-15)
    assert bool(t.class_verdicts(np.array([4]), np.array([[2, 2, 0, 0]]), DS)[0])


@settings(max_examples=150, deadline=None)
@given(rows=st.lists(hist_st, min_size=1, max_size=12), extra=st.lists(st.integers(0, 3), min_size=1, max_size=12))
def test_predicate_equals_checker_on_random_histograms(rows, extra):
    hist = np.array(rows, dtype=np.int64)
    sizes = hist.sum(axis=1)
    for model in MODELS:
        spec = model.rule_spec(DS)
        assert (rule_verdicts(spec, sizes, hist) == _checker(model, hist, sizes)).all(), model


@settings(max_examples=60, deadline=None)
@given(rows=st.lists(hist_st, min_size=1, max_size=6), picks=st.lists(st.integers(0, len(MODELS) - 1), min_size=1, max_size=4))
def test_a_pack_is_the_conjunction_of_its_rules(rows, picks):
    hist = np.array(rows, dtype=np.int64)
    sizes = hist.sum(axis=1)
    models = [MODELS[i] for i in picks]
    rules = pack([m.rule_spec(DS) for m in models])
    want = np.ones(len(hist), dtype=bool)
    for m in models:
        want &= _checker(m, hist, sizes)
    for i in range(len(hist)):
        assert bool(all_ok(rules, hist[i], sizes[i])) == bool(want[i])
        for j, m in enumerate(models):
            assert bool(class_ok(rules, j, hist[i], sizes[i])) == bool(_checker(m, hist[i : i + 1], sizes[i : i + 1])[0])


def test_real_valued_rules_refuse_the_guard_band():
    """Scores just inside the checker's slack (closer than GUARD) are refused; a class the
    predicate accepts is accepted by the checker."""
    h = np.array([[1, 1, 0, 0]], dtype=np.int64)
    e = float(np.log(2.0))
    spec_in = RuleSpec(ENTROPY, reals=(e - GUARD / 2,))  # threshold a hair below the score: inside the band
    spec_ok = RuleSpec(ENTROPY, reals=(e - 10 * GUARD,))
    assert not rule_verdicts(spec_in, np.array([2]), h)[0]
    assert rule_verdicts(spec_ok, np.array([2]), h)[0]


def test_subclass_inherits_its_base_rule_and_override_changes_it():
    class MyFrequency(FrequencyLDiversity):
        pass

    assert MyFrequency(2.0).rule_spec(DS).code == FREQUENCY
    spec = ProtectedLDiversity(2.0, values=("s1",)).rule_spec(DS)
    assert spec.mask is not None and spec.mask.tolist() == [False, True, False, False]


def test_implied_bounds_are_implied():
    """Every class a rule accepts has the size and distinct count implied_bounds states."""
    rng = np.random.default_rng(0)
    hist = rng.integers(0, 4, size=(400, V)) * rng.integers(0, 2, size=(400, V))
    hist = np.vstack([hist, np.array(EDGE)])
    hist = hist[hist.sum(axis=1) > 0].astype(np.int64)
    sizes = hist.sum(axis=1)
    distinct = (hist > 0).sum(axis=1)
    for model in MODELS:
        spec = model.rule_spec(DS)
        k, d = implied_bounds(spec)
        ok = rule_verdicts(spec, sizes, hist)
        assert (sizes[ok] >= k).all() and (distinct[ok] >= d).all(), model


# ---------------------------------------------------------------- subclasses in every algorithm
def _subclass_cases():
    from ktype.algorithms import all_algorithms
    from ktype.models._base import ClassModel

    cases = []
    for info in all_algorithms():
        for cls in info.models:
            if issubclass(cls, ClassModel) and (cls is info.models[0] or info.combinable):
                cases.append(pytest.param(info, cls, id=f"{info.name}-{cls.__name__}"))
    return cases


@pytest.mark.parametrize(("info", "cls"), _subclass_cases())
def test_a_subclass_works_wherever_its_base_does(info, cls):
    """A user's subclass of a model (no new rule) is accepted by every algorithm that accepts
    the base and gives the same release: algorithms read the declared rule, never the class."""
    from ktype.testing.algorithm_checks import default_model, fixture_dataset

    ds = fixture_dataset(24)
    base = default_model(cls)
    sub = type(f"My{cls.__name__}", (cls,), {})(**base.params)
    primary = default_model(info.models[0])
    models_base = [base] if cls is info.models[0] else [primary, base]
    models_sub = [sub] if cls is info.models[0] else [primary, sub]
    kw = {"rng": 0} if info.randomized else {}
    try:
        want = info.func(ds, models_base, **kw)
    except Exception as exc:  # the base is refused on this fixture: the subclass must be too
        with pytest.raises(type(exc)):
            info.func(ds, models_sub, **kw)
        return
    got = info.func(ds, models_sub, **kw)
    assert np.array_equal(got.lo, want.lo) and np.array_equal(got.hi, want.hi), info.name
    assert np.array_equal(got.suppressed, want.suppressed), info.name
