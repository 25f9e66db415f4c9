"""The common check suite every registered algorithm passes (cf. scikit-learn's estimator checks).

Use :func:`parametrize_with_checks` in a test module::

    from ktype.testing.algorithm_checks import parametrize_with_checks
    from ktype.algorithms import all_algorithms

    @parametrize_with_checks(all_algorithms())
    def test_algorithm(info, check):
        check(info)

Each check is independent of the algorithm's code: it only calls the registered public
function and inspects the returned :class:`~ktype.Release` with the models' checkers and
``ktype.measures``.
"""

from __future__ import annotations

import dataclasses
import math
import random
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import pandas as pd

from .._validation import Interval, Options
from ..algorithms._registry import AlgorithmInfo
from ..data.dataset import Dataset
from ..exceptions import DataError, InvalidParameterError, UnsupportedModelError
from ..models._base import PrivacyModel
from ..release import Release

__all__ = ["parametrize_with_checks", "all_checks", "fixture_dataset", "default_model"]

_DEFAULT_PARAMS: dict[str, dict[str, Any]] = {
    "KAnonymity": {"k": 3},
    "OneKAnonymity": {"k": 3},
    "KOneAnonymity": {"k": 3},
    "KKAnonymity": {"k": 3},
    "KConcealment": {"k": 3},
    "FreeformKAnonymity": {"k": 3},
    "DistinctLDiversity": {"l": 2},
    "EntropyLDiversity": {"l": 1.2},
    "RecursiveCLDiversity": {"c": 3.0, "l": 2},
    "FrequencyLDiversity": {"l": 1.2},
    "PSensitivity": {"p": 2},
    "TCloseness": {"t": 0.5},
    "TransparentLDiversity": {"l": 1},
}


def fixture_dataset(n: int = 24, seed: int = 0) -> Dataset:
    """A small, fixed table with three hierarchical QIs and one binary sensitive attribute.

    Rows are drawn (deterministically) from the bundled Adult data so that equivalence
    classes, duplicates and both sensitive values occur.
    """
    from ..data.bundled import load_adult

    full = load_adult(quasi_identifiers=["sex", "age", "race"], sensitive=("salary-class",))
    rows = np.random.default_rng(seed).choice(full.n, size=n, replace=False)
    rows.sort()
    return full.subset(rows)


def default_model(cls: type) -> PrivacyModel:
    """A model instance with small test parameters."""
    return cls(**_DEFAULT_PARAMS.get(cls.__name__, {}))


def _models_for(info: AlgorithmInfo) -> PrivacyModel:
    return default_model(info.models[0])


def _call(info: AlgorithmInfo, ds: Dataset, model: Any, seed: int | None = 0, **opts: Any) -> Release:
    if info.randomized:
        return info.func(ds, model, rng=seed, **opts)
    return info.func(ds, model, **opts)


def _published(rel: Release) -> pd.DataFrame:
    df = rel.to_pandas(include_suppressed=True).astype(str)
    return df.sort_values(list(df.columns)).reset_index(drop=True)


# ---------------------------------------------------------------------------- checks
def check_output_satisfies_model(info: AlgorithmInfo) -> None:
    ds = fixture_dataset()
    primary = default_model(info.models[0])
    for cls in info.models:
        model = default_model(cls)
        try:
            model.validate(ds)
        except Exception:  # noqa: BLE001 - model infeasible on this fixture: nothing to check
            continue
        # the first declared model is the algorithm's primary one; others are extra conditions
        combo = [model] if cls is info.models[0] or not info.combinable else [primary, model]
        try:
            rel = _call(info, ds, combo)
        except UnsupportedModelError:
            rel = _call(info, ds, model)
        for m in combo:
            res = m.check(rel)
            assert res.satisfied, f"{info.name} output fails {res.model}: {res.summary}"


def check_release_covers_input(info: AlgorithmInfo) -> None:
    ds = fixture_dataset()
    rel = _call(info, ds, _models_for(info))
    assert rel.source is not None and sorted(rel.source.tolist()) == list(range(ds.n))
    X = ds.X[rel.source]
    assert ((rel.lo <= X) & (X <= rel.hi)).all(), "a released cell does not cover its original"
    for j, h in enumerate(ds.hierarchies):
        keep = ~rel.suppressed
        assert h.is_allowed(rel.lo[keep, j], rel.hi[keep, j]).all(), f"value of {h.name} not allowed by its hierarchy"
    limit = rel.provenance.get("parameters", {}).get("max_suppression")
    if limit is not None:
        assert rel.n_suppressed <= math.floor(limit * ds.n + 1e-9)


def check_deterministic(info: AlgorithmInfo) -> None:
    ds = fixture_dataset()
    model = _models_for(info)
    a = _call(info, ds, model, seed=7)
    b = _call(info, ds, model, seed=7)
    assert np.array_equal(a.lo, b.lo) and np.array_equal(a.hi, b.hi) and np.array_equal(a.suppressed, b.suppressed)
    pd.testing.assert_frame_equal(a.to_pandas(), b.to_pandas())


def check_no_global_rng(info: AlgorithmInfo) -> None:
    ds = fixture_dataset()
    np_state = np.random.get_state()  # noqa: NPY002 - checking the legacy global state is the point
    py_state = random.getstate()
    _call(info, ds, _models_for(info), seed=3)
    after = np.random.get_state()  # noqa: NPY002
    assert np_state[0] == after[0] and np.array_equal(np_state[1], after[1]) and np_state[2:] == after[2:], "global numpy RNG used"
    assert py_state == random.getstate(), "global random module used"


def check_row_order_invariance(info: AlgorithmInfo) -> None:
    if not info.order_invariant:
        return
    ds = fixture_dataset()
    perm = np.random.default_rng(11).permutation(ds.n)
    shuffled = ds.subset(perm)
    model = _models_for(info)
    a = _call(info, ds, model, seed=5)
    b = _call(info, shuffled, model, seed=5)
    pd.testing.assert_frame_equal(_published(a), _published(b))


def check_input_not_mutated(info: AlgorithmInfo) -> None:
    ds = fixture_dataset()
    before = ds.fingerprint()
    model = _models_for(info)
    params_before = dataclasses.asdict(model)
    _call(info, ds, model)
    assert ds.fingerprint() == before, "the dataset or its hierarchies changed"
    assert dataclasses.asdict(model) == params_before


def _invalid_values(constraints: Sequence[Any]) -> list[Any]:
    bad: list[Any] = []
    for c in constraints:
        if isinstance(c, Interval):
            if c.left is not None:
                bad.append(c.type(c.left) - 1)
            if c.right is not None:
                bad.append(c.type(c.right) + 1)
            bad.append("not-a-number")
        elif isinstance(c, Options):
            bad.append("__not_an_option__")
        elif c is bool:
            bad.append("yes")
    return [v for v in bad if not any(_accepts(cc, v) for cc in constraints)]


def _accepts(c: Any, v: Any) -> bool:
    if c is None:
        return v is None
    if isinstance(c, (Interval, Options)):
        return c.accepts(v)
    if isinstance(c, type):
        return isinstance(v, c)
    return False


def check_param_validation(info: AlgorithmInfo) -> None:
    assert set(info.constraints) == set(info.options), "constraint keys differ from keyword options"
    ds = fixture_dataset()
    model = _models_for(info)
    for name, cons in info.constraints.items():
        for bad in _invalid_values(cons):
            try:
                _call(info, ds, model, **{name: bad})
            except InvalidParameterError as e:
                assert f"The '{name}' parameter of {info.name} must be" in str(e), str(e)
            else:  # pragma: no cover - the failure branch
                raise AssertionError(f"{info.name} accepted {name}={bad!r}")
    try:
        _call(info, ds, model, no_such_option=1)
    except InvalidParameterError as e:
        assert "no_such_option" in str(e)
    else:  # pragma: no cover
        raise AssertionError(f"{info.name} accepted an unknown option")


def check_degenerate_inputs(info: AlgorithmInfo) -> None:
    ds = fixture_dataset()
    cls = info.models[0]
    if "k" in {f.name for f in dataclasses.fields(cls)}:
        try:
            _call(info, ds, cls(k=ds.n + 1))
        except InvalidParameterError as e:
            assert f"exceeds the number of rows ({ds.n})" in str(e)
        else:  # pragma: no cover
            raise AssertionError(f"{info.name} accepted k > n")
    try:
        Dataset(ds.data.iloc[:0], quasi_identifiers=ds.quasi_identifiers)
    except DataError as e:
        assert "empty" in str(e)
    else:  # pragma: no cover
        raise AssertionError("empty table accepted")
    if cls.__name__ in ("KAnonymity", "OneKAnonymity", "KOneAnonymity", "KKAnonymity", "KConcealment"):
        rel = _call(info, ds, cls(k=1))
        X = ds.X[rel.source]
        assert not rel.suppressed.any() and np.array_equal(rel.lo, X) and np.array_equal(rel.hi, X), (
            f"{info.name} with k=1 must return the identity release"
        )
        from ..measures import loss_metric

        assert loss_metric(rel) == 0.0


def check_reported_loss(info: AlgorithmInfo) -> None:
    from ..measures import loss_metric

    ds = fixture_dataset()
    rel = _call(info, ds, _models_for(info))
    assert "loss_metric" in rel.loss
    assert math.isclose(rel.loss["loss_metric"], loss_metric(rel), rel_tol=1e-12, abs_tol=1e-12)


def check_optimality(info: AlgorithmInfo) -> None:
    """For optimal algorithms: the objective equals the exhaustive search's on a tiny fixture."""
    if not info.optimal:
        return
    from ..algorithms import get_algorithm

    exhaustive = get_algorithm("exhaustive")
    ds = fixture_dataset(n=16)
    model = _models_for(info)
    a = _call(info, ds, model)
    b = exhaustive.func(ds, model)
    oa = a.provenance.get("objective")
    ob = b.provenance.get("objective")
    assert oa is not None and ob is not None, "optimal algorithms record provenance['objective']"
    assert math.isclose(float(oa), float(ob), rel_tol=1e-9, abs_tol=1e-9), f"{info.name} {oa} != exhaustive {ob}"


def all_checks() -> list[Callable[[AlgorithmInfo], None]]:
    """Every check, in order."""
    return [
        check_output_satisfies_model,
        check_release_covers_input,
        check_deterministic,
        check_no_global_rng,
        check_row_order_invariance,
        check_input_not_mutated,
        check_param_validation,
        check_degenerate_inputs,
        check_reported_loss,
        check_optimality,
    ]


def parametrize_with_checks(infos: Sequence[AlgorithmInfo]):
    """pytest decorator: one test per (algorithm, check)."""
    import pytest

    params = [pytest.param(info, chk, id=f"{info.name}-{chk.__name__}") for info in infos for chk in all_checks()]
    return pytest.mark.parametrize("info, check", params)
