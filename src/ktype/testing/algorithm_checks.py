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
from ..exceptions import DataError, InvalidParameterError, KtypeError, UnsupportedModelError
from ..models._base import PrivacyModel
from ..models._table import MODEL_TABLE
from ..release import Release

__all__ = [
    "parametrize_with_checks",
    "all_checks",
    "fixture_dataset",
    "default_model",
    "brute_force_full_domain",
    "independent_loss_metric",
]

#: small test parameters per model class name, from the one model table
_DEFAULT_PARAMS: dict[str, dict[str, Any]] = {spec.cls.__name__: dict(spec.test_params) for spec in MODEL_TABLE}


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
        except KtypeError as e:  # no silent skip: every declared model must be exercised
            raise AssertionError(
                f"{info.name}: declared model {cls.__name__} with the test parameters {model} is not usable on "
                f"the fixture ({type(e).__name__}: {e}); give it feasible parameters in _DEFAULT_PARAMS"
            ) from e
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
    np_state: Any = np.random.get_state()  # noqa: NPY002 - checking the legacy global state is the point
    py_state = random.getstate()
    _call(info, ds, _models_for(info), seed=3)
    after: Any = np.random.get_state()  # noqa: NPY002
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
    params_before = model.params
    _call(info, ds, model)
    assert ds.fingerprint() == before, "the dataset or its hierarchies changed"
    assert model.params == params_before


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


def _identity_expected(cls: type) -> bool:
    return cls.__name__ in ("KAnonymity", "OneKAnonymity", "KOneAnonymity", "KKAnonymity", "KConcealment")


def check_degenerate_inputs(info: AlgorithmInfo) -> None:
    """k > n is refused; the smallest tables are actually run: one row, and all rows equal.

    An empty table cannot reach an algorithm (``Dataset`` refuses it, asserted here), so
    the degenerate inputs passed to the algorithm are a one-row table (k = 1) and a table
    whose rows are all equal (k = n): both need no generalization at all.
    """
    ds = fixture_dataset()
    cls = info.models[0]
    has_k = "k" in {f.name for f in dataclasses.fields(cls)}
    if has_k:
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
    if not _identity_expected(cls):
        return
    one = ds.subset(np.array([0]))
    same = ds.subset(np.zeros(4, dtype=np.int64))  # four copies of one record
    # an algorithm with a deterministic variant (k_concealment's randomized=False) is held to
    # the identity there; its randomized default may generalize equal rows (Algorithm 6 redraws
    # until R̃_1 != R̃_0, then lifts an attribute) but must keep every row and satisfy the model
    variant = {"randomized": False} if "randomized" in info.options else {}
    for name, table, k in (("a one-row table", one, 1), ("a table of equal rows", same, same.n), ("k=1", ds, 1)):
        if variant:
            rel = _call(info, table, cls(k=k))
            assert rel.source is not None and sorted(rel.source.tolist()) == list(range(table.n)), (
                f"{info.name} on {name}: rows lost"
            )
            assert cls(k=k).check(rel).satisfied, f"{info.name} on {name}: fails {cls.__name__}(k={k})"
        rel = _call(info, table, cls(k=k), **variant)
        assert rel.source is not None and rel.n == table.n, f"{info.name} on {name}: rows lost"
        assert sorted(rel.source.tolist()) == list(range(table.n)), f"{info.name} on {name}: rows lost"
        X = table.X[rel.source]
        assert not rel.suppressed.any() and np.array_equal(rel.lo, X) and np.array_equal(rel.hi, X), (
            f"{info.name} on {name} (k={k}) must return the identity release"
        )
        assert independent_loss_metric(rel) == 0.0


def independent_loss_metric(rel: Release) -> float:
    """LM (k-concealment Eq. 1-2) recomputed here from the hierarchies' leaf counts, without
    ``ktype.measures``: mean over cells of ``(leaves - 1) / (|A_j| - 1)``, suppressed = 1."""
    m = np.array([h.size for h in rel.dataset.hierarchies], dtype=np.float64)
    leaves = (rel.hi - rel.lo + 1).astype(np.float64)
    leaves[rel.suppressed] = m
    cost = np.divide(leaves - 1, m - 1, out=np.zeros_like(leaves), where=m > 1)
    return float(cost.mean()) if cost.size else 0.0


def _measure_values(info: AlgorithmInfo) -> list[str | None]:
    """Every value of the algorithm's ``measure`` option (or ``[None]`` without one)."""
    vals = [v for c in info.constraints.get("measure", []) if isinstance(c, Options) for v in c.values]
    return vals or [None]


def _objective(rel: Release) -> float:
    """The release's objective recomputed by ``ktype.measures`` from its provenance."""
    from ..measures import MEASURES

    name = rel.provenance["objective_measure"]
    assert name in MEASURES, f"objective_measure {name!r} is not a name of ktype.measures.MEASURES"
    return float(MEASURES[name](rel, **rel.provenance.get("objective_options", {})))


def check_reported_objective(info: AlgorithmInfo) -> None:
    """Reported numbers equal the measures recomputed independently on the release.

    ``release.loss["loss_metric"]`` (stored by the registry) against
    :func:`independent_loss_metric`; ``provenance["objective"]`` (the algorithm's own value
    of what it optimized) against ``ktype.measures`` on the release, for every value of the
    ``measure`` option. An algorithm with a ``measure`` option must report its objective.
    """
    ds = fixture_dataset()
    model = _models_for(info)
    for meas in _measure_values(info):
        opts: dict[str, Any] = {} if meas is None else {"measure": meas}
        if "max_suppression" in info.constraints:
            opts["max_suppression"] = 0.1
        rel = _call(info, ds, model, **opts)
        assert "loss_metric" in rel.loss
        assert math.isclose(rel.loss["loss_metric"], independent_loss_metric(rel), rel_tol=1e-9, abs_tol=1e-12), (
            f"{info.name}: release.loss['loss_metric']={rel.loss['loss_metric']} but LM of the release is "
            f"{independent_loss_metric(rel)}"
        )
        if meas is None and "objective" not in rel.provenance:
            continue  # nothing optimized, nothing reported (e.g. mondrian)
        assert "objective" in rel.provenance, f"{info.name}(measure={meas!r}) does not report provenance['objective']"
        if meas is not None:
            assert rel.provenance["objective_measure"] == meas, (info.name, meas, rel.provenance["objective_measure"])
        got, want = float(rel.provenance["objective"]), _objective(rel)
        assert math.isclose(got, want, rel_tol=1e-9, abs_tol=1e-9), (
            f"{info.name}(measure={meas!r}) reports objective {got} but {rel.provenance['objective_measure']} "
            f"of its release is {want}"
        )


def brute_force_full_domain(
    dataset: Dataset,
    models: Sequence[PrivacyModel],
    measure: str,
    max_suppression: float = 0.0,
    **measure_options: Any,
) -> float:
    """Optimal full-domain objective by brute force, sharing nothing with the lattice engine.

    Enumerates every level vector (``itertools.product`` over the hierarchies' levels),
    generalizes each column with :meth:`Hierarchy.level_intervals`, finds the classes with
    ``numpy.unique``, decides which classes fail with the models' own checkers (a release
    that suppresses every other class: the checkers judge one class at a time), suppresses
    them, keeps the node if the suppression is within ``floor(max_suppression * n)`` and the
    checkers accept the release, and evaluates ``ktype.measures.MEASURES[measure]`` on it.
    Returns the best value (the largest for higher-is-better measures) or ``nan`` when no
    node is feasible. Cost: nodes x classes x models checker calls: tiny inputs only.
    """
    import itertools

    from ..measures import MEASURES
    from ..measures._base import info as measure_info

    n, r = dataset.n, dataset.r
    limit = math.floor(max_suppression * n + 1e-9)
    func = MEASURES[measure]
    sign = -1.0 if measure_info(measure).better == "higher" else 1.0
    best = math.inf
    hs = dataset.hierarchies
    for levels in itertools.product(*(range(h.height + 1) for h in hs)):  # lattice nodes, not rows
        lo = np.empty((n, r), dtype=np.int32)
        hi = np.empty((n, r), dtype=np.int32)
        for j, h in enumerate(hs):
            L, H = h.level_intervals(levels[j])
            lo[:, j] = L[dataset.X[:, j]]
            hi[:, j] = H[dataset.X[:, j]]
        _, cls = np.unique(np.hstack([lo, hi]), axis=0, return_inverse=True)
        cls = cls.ravel()
        fail = np.zeros(n, dtype=bool)
        for c in range(int(cls.max()) + 1):
            alone = Release.build(dataset, lo, hi, suppressed=cls != c, recoding="full-domain", levels=np.array(levels))
            if not all(m.check(alone).satisfied for m in models):
                fail |= cls == c
        if int(fail.sum()) > limit:
            continue
        rel = Release.build(dataset, lo, hi, suppressed=fail, recoding="full-domain", levels=np.array(levels))
        if not all(m.check(rel).satisfied for m in models):
            continue
        best = min(best, sign * float(func(rel, **measure_options)))
    return sign * best if math.isfinite(best) else math.nan


def check_optimality(info: AlgorithmInfo) -> None:
    """For optimal algorithms: the objective equals an independent brute force's.

    The oracle is :func:`brute_force_full_domain` (no lattice engine), for every value of
    the ``measure`` option, without and with suppression, on a tiny fixture.
    """
    if not info.optimal:
        return
    assert info.recoding == "full-domain", f"no brute-force oracle for optimal {info.recoding} algorithms"
    ds = fixture_dataset(n=16)
    model = _models_for(info)
    for meas in _measure_values(info):
        for sup in (0.0, 0.25):
            opts: dict[str, Any] = {} if meas is None else {"measure": meas}
            if "max_suppression" in info.constraints:
                opts["max_suppression"] = sup
            elif sup:
                continue
            rel = _call(info, ds, model, **opts)
            got = rel.provenance.get("objective")
            assert got is not None, "optimal algorithms record provenance['objective']"
            name = rel.provenance["objective_measure"]
            want = brute_force_full_domain(ds, [model], name, sup, **rel.provenance.get("objective_options", {}))
            assert math.isclose(float(got), want, rel_tol=1e-9, abs_tol=1e-9), (
                f"{info.name}(measure={name!r}, max_suppression={sup}) objective {got} != brute force {want}"
            )


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
        check_reported_objective,
        check_optimality,
    ]


def parametrize_with_checks(infos: Sequence[AlgorithmInfo]):
    """pytest decorator: one test per (algorithm, check)."""
    import pytest

    params = [pytest.param(info, chk, id=f"{info.name}-{chk.__name__}") for info in infos for chk in all_checks()]
    return pytest.mark.parametrize("info, check", params)
