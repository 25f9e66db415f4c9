"""The common checks can fail: deliberately broken toy algorithms, registered for one test
each, are caught by the check written against their bug (issue #9: three checks could not fail)."""

from __future__ import annotations

import numpy as np
import pytest

from ktype._validation import Interval, Options
from ktype.algorithms import all_algorithms, run
from ktype.algorithms._registry import _REGISTRY, register
from ktype.measures import loss_metric
from ktype.models.kanonymity import KAnonymity
from ktype.models.tcloseness import TCloseness
from ktype.release import Release
from ktype.testing import algorithm_checks as ac

_SUP = {"max_suppression": [Interval(float, 0, 1, closed="both")]}


@pytest.fixture
def toy():
    """Register toy algorithms for one test and remove them afterwards."""
    names: list[str] = []

    def make(name: str, impl, **kw):
        kw.setdefault("models", (KAnonymity,))
        kw.setdefault("recoding", "full-domain")
        kw.setdefault("description", f"deliberately broken toy {name}")
        register(name, **kw)(impl)
        names.append(name)
        return _REGISTRY[name]

    yield make
    for n in names:
        _REGISTRY.pop(n, None)


def _top(dataset) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Every cell generalized to its hierarchy's root (satisfies k-anonymity for k <= n)."""
    lo = np.zeros((dataset.n, dataset.r), dtype=np.int32)
    hi = np.tile((dataset.domain_sizes - 1).astype(np.int32), (dataset.n, 1))
    return lo, hi, np.array([h.height for h in dataset.hierarchies])


def _top_release(dataset, **provenance) -> Release:
    lo, hi, lev = _top(dataset)
    return Release.build(dataset, lo, hi, recoding="full-domain", levels=lev, provenance=provenance)


def _identity_or_top(dataset, models) -> Release:
    """The identity for k=1 (what the degenerate check wants there), the top node otherwise."""
    return _identity(dataset) if models[0].k == 1 else _top_release(dataset)


def _identity(dataset) -> Release:
    return Release.build(dataset, dataset.X, dataset.X, recoding="full-domain", levels=np.zeros(dataset.r, dtype=np.int64))


def test_reported_objective_catches_a_false_objective(toy):
    def lies(dataset, models, *, measure="loss_metric"):
        return _top_release(dataset, objective=0.0, objective_measure=measure)

    info = toy("toy_lies", lies, constraints={"measure": [Options(("loss_metric",))]})
    with pytest.raises(AssertionError, match="reports objective 0.0 but loss_metric of its release is 1.0"):
        ac.check_reported_objective(info)


def test_reported_objective_catches_a_missing_objective(toy):
    def silent(dataset, models, *, measure="loss_metric"):
        return Release.build(dataset, *_top(dataset)[:2], recoding="full-domain")

    info = toy("toy_silent", silent, constraints={"measure": [Options(("loss_metric",))]})
    with pytest.raises(AssertionError, match="does not report"):
        ac.check_reported_objective(info)


def test_optimality_catches_a_non_optimal_algorithm(toy):
    """An "optimal" algorithm that releases the top node (LM 1) with a truthful objective:
    the reported-objective check passes, the brute-force oracle does not."""

    def top(dataset, models, *, measure="loss_metric", max_suppression=0.0):
        lo, hi, lev = _top(dataset)
        rel = Release.build(dataset, lo, hi, recoding="full-domain", levels=lev)
        return rel.replace(provenance={**rel.provenance, "objective": loss_metric(rel), "objective_measure": measure})

    info = toy("toy_top", top, optimal=True, constraints={"measure": [Options(("loss_metric",))], **_SUP})
    ac.check_reported_objective(info)
    with pytest.raises(AssertionError, match=r"objective 1.0 != brute force 0\.\d+"):
        ac.check_optimality(info)


def test_degenerate_inputs_are_run(toy):
    """Identity for k=1 on the usual fixture, but a crash on a one-row table: the old check
    (k=1 on the 24-row fixture only) passed it."""

    def fragile(dataset, models, *, max_suppression=0.0):
        if dataset.n < 2:
            raise IndexError("fragile: needs two rows")
        return _identity_or_top(dataset, models)

    info = toy("toy_fragile", fragile, constraints=dict(_SUP))
    with pytest.raises(IndexError, match="needs two rows"):
        ac.check_degenerate_inputs(info)


def test_degenerate_inputs_need_the_identity_on_equal_rows(toy):
    def generalizes(dataset, models, *, max_suppression=0.0):
        return _identity_or_top(dataset, models)

    info = toy("toy_generalizes", generalizes, constraints=dict(_SUP))
    with pytest.raises(AssertionError, match="table of equal rows .* must return the identity"):
        ac.check_degenerate_inputs(info)


def test_unusable_declared_model_is_not_skipped_silently(toy, monkeypatch):
    """The old check skipped a declared model whose validation failed (``except Exception:
    continue``); now it is an error naming the model."""

    def top(dataset, models):
        return _top_release(dataset)

    info = toy("toy_tclose", top, models=(KAnonymity, TCloseness), constraints={})
    monkeypatch.setitem(ac._DEFAULT_PARAMS, "TCloseness", {"t": 0.5, "distance": "hierarchical"})
    with pytest.raises(AssertionError, match="declared model TCloseness .* not usable on the fixture"):
        ac.check_output_satisfies_model(info)


def test_toys_are_gone_and_every_real_algorithm_declares_usable_models():
    assert not [i.name for i in all_algorithms() if i.name.startswith("toy_")]
    ds = ac.fixture_dataset()
    for info in all_algorithms():
        for cls in info.models:
            ac.default_model(cls).validate(ds)  # raises if a declared model would be skipped


def test_brute_force_oracle_matches_a_hand_count():
    """The oracle on a 6-row table with one flat column: k=2 needs no generalization when
    every value occurs twice, and the top node when one value is alone (LM 1 with
    suppression 0; LM 1/6 when one record may be suppressed, the alone one)."""
    import pandas as pd

    import ktype

    df = pd.DataFrame({"c": ["a", "a", "b", "b", "c", "d"]})
    ds = ktype.Dataset(df, quasi_identifiers=["c"], hierarchies={"c": "flat"})
    k2 = [KAnonymity(2)]
    assert ac.brute_force_full_domain(ds, k2, "loss_metric", 0.0) == 1.0
    # suppressing c and d (2 records of 6 = 1/3) leaves a, a, b, b at level 0: LM = 2/6
    assert ac.brute_force_full_domain(ds, k2, "loss_metric", 1 / 3) == pytest.approx(2 / 6)
    assert ac.brute_force_full_domain(ds, k2, "discernibility", 1 / 3) == pytest.approx(2 * 2 + 2 * 2 + 2 * 6)
    assert ac.brute_force_full_domain(ds, [KAnonymity(6)], "loss_metric", 0.0) == 1.0
    assert np.isnan(ac.brute_force_full_domain(ds, [KAnonymity(7)], "loss_metric", 0.0))  # nothing feasible
    rel = run("exhaustive", ds, KAnonymity(2), measure="loss_metric", max_suppression=1 / 3)
    assert rel.provenance["objective"] == pytest.approx(2 / 6)
