"""Tests that kill the mutants mutmut found surviving in ``algorithms/fulldomain/`` (issue #9).

Every test compares an algorithm with a brute force that shares nothing with the lattice
engine: each level vector's table is generalized with ``Hierarchy.level_intervals``, its
classes found with ``numpy.unique``, and the measures evaluated by ``ktype.measures`` on a
``Release`` built by hand. The properties are the survey's definitions (Ciriani et al. 2007):
Samarati returns every feasible node of the lowest feasible height (§4.1), Incognito every
feasible node (§4.3), Datafly raises the QI with the most distinct values until the outliers
fit the budget (Sweeney's heuristic, named in §3), k-Optimize finds the minimum
discernibility over all interval splittings (§4.2). docs/mutation.md has the scores.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pandas as pd
import pytest

import ktype
from ktype.algorithms import run
from ktype.algorithms.fulldomain import _samarati, lattice_search
from ktype.algorithms.fulldomain._engine import Encoded
from ktype.algorithms.fulldomain._incognito import incognito_search
from ktype.algorithms.fulldomain._koptimize import k_optimize_search
from ktype.algorithms.fulldomain._samarati import layer, layer_sizes, samarati_search
from ktype.data.dataset import Dataset
from ktype.exceptions import InvalidParameterError, KtypeError, UnsupportedModelError
from ktype.measures import MEASURES
from ktype.measures._base import info as measure_info
from ktype.models.kanonymity import KAnonymity
from ktype.models.ldiversity import DistinctLDiversity, EntropyLDiversity
from ktype.release import Release

QIS = ["education", "sex", "native-country"]
LATTICE_MEASURES = ("non_uniform_entropy", "loss_metric", "discernibility", "average_class_size", "precision")


def _adult(n: int, seed: int, qis=QIS) -> Dataset:
    full = ktype.load_adult(quasi_identifiers=qis, sensitive=("salary-class",))
    rows = np.sort(np.random.default_rng(seed).choice(full.n, size=n, replace=False))
    return full.subset(rows)


def _nodes(ds: Dataset):
    return list(itertools.product(*(range(h.height + 1) for h in ds.hierarchies)))


def _boxes(ds: Dataset, levels) -> tuple[np.ndarray, np.ndarray]:
    lo = np.empty(ds.X.shape, dtype=np.int32)
    hi = np.empty(ds.X.shape, dtype=np.int32)
    for j, h in enumerate(ds.hierarchies):
        L, H = h.level_intervals(int(levels[j]))
        lo[:, j] = L[ds.X[:, j]]
        hi[:, j] = H[ds.X[:, j]]
    return lo, hi


def _node(ds: Dataset, levels, k: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Generalized boxes of a level vector and the rows of its classes smaller than k."""
    lo, hi = _boxes(ds, levels)
    _, cls, cnt = np.unique(np.hstack([lo, hi]), axis=0, return_inverse=True, return_counts=True)
    return lo, hi, cnt[cls.ravel()] < k


def _value(ds: Dataset, levels, k: int, measure: str) -> float:
    """``measure`` of the node's release as ``ktype.measures`` computes it, oriented so that
    lower is better (as the lattice engine minimizes)."""
    lo, hi, small = _node(ds, levels, k)
    rel = Release.build(ds, lo, hi, suppressed=small, recoding="full-domain", levels=np.array(levels))
    opts = {"k": k} if measure == "average_class_size" else {}
    sign = -1.0 if measure_info(measure).better == "higher" else 1.0
    return sign * float(MEASURES[measure](rel, **opts))


def _feasible(ds: Dataset, k: int, sup: float) -> list[tuple[int, ...]]:
    limit = math.floor(sup * ds.n + 1e-9)
    return [lv for lv in _nodes(ds) if int(_node(ds, lv, k)[2].sum()) <= limit]


def _n_feasible_on(ds: Dataset, cols, k: int, sup: float) -> int:
    """Feasible level vectors of the QIs ``cols`` alone (Incognito's sub-lattices)."""
    limit = math.floor(sup * ds.n + 1e-9)
    hs = [ds.hierarchies[j] for j in cols]
    count = 0
    for levels in itertools.product(*(range(h.height + 1) for h in hs)):
        parts = []
        for j, h, lev in zip(cols, hs, levels):
            L, H = h.level_intervals(lev)
            parts += [L[ds.X[:, j]], H[ds.X[:, j]]]
        _, cls, cnt = np.unique(np.column_stack(parts), axis=0, return_inverse=True, return_counts=True)
        count += int((cnt[cls.ravel()] < k).sum()) <= limit
    return count


def _minimal(nodes: list[tuple[int, ...]]) -> list[tuple[int, ...]]:
    return sorted(a for a in nodes if not any(b != a and all(x <= y for x, y in zip(b, a)) for b in nodes))


CASES = [(60, 1, 3, 0.0), (90, 2, 4, 0.05), (150, 3, 6, 0.1), (200, 4, 2, 0.2)]


# ---------------------------------------------------------------- Samarati (survey §4.1)
# Mutants: the binary search's bounds and midpoint, the outlier set (cnt < k), the VT test
# (VT <= vec), the class-size sum, the limit comparison, the layer generator.
@pytest.mark.parametrize(("n", "seed", "k", "sup"), CASES)
@pytest.mark.parametrize("vt", [True, False])
def test_samarati_returns_every_feasible_node_of_the_lowest_feasible_height(n, seed, k, sup, vt, monkeypatch):
    if not vt:  # SATISFIES through the roll-up evaluator instead of the VT matrix
        monkeypatch.setattr(_samarati, "_VT_MAX", -1)
    ds = _adult(n, seed)
    feas = _feasible(ds, k, sup)
    low = min(sum(lv) for lv in feas)
    want = sorted(lv for lv in feas if sum(lv) == low)
    res = samarati_search(Encoded(ds, (KAnonymity(k),), sup, "height"))
    assert sorted(map(tuple, res.minimal.tolist())) == want
    assert res.extra["min_height"] == low and res.extra["vt_matrix"] is vt
    assert res.extra["outliers"] == int(_node(ds, [0] * ds.r, k)[2].sum())
    assert all(type(t["found"]) is bool for t in res.extra["binary_search"]) and res.extra["binary_search"]
    # the measure breaks the tie among the solutions
    for measure in ("loss_metric", "discernibility"):
        rel = run("samarati", ds, KAnonymity(k), max_suppression=sup, measure=measure)
        got = tuple(rel.levels.tolist())
        assert got in want
        assert rel.n_suppressed == int(_node(ds, got, k)[2].sum())
        assert _value(ds, got, k, measure) == pytest.approx(min(_value(ds, lv, k, measure) for lv in want))


def test_layers_are_the_nodes_of_each_height():
    heights = np.array([2, 0, 3, 1])
    nodes = _nodes_of(heights)
    assert layer_sizes(heights) == [sum(1 for v in nodes if sum(v) == t) for t in range(int(heights.sum()) + 1)]
    for t in range(int(heights.sum()) + 1):
        assert layer(heights, t).dtype == np.int64  # documented: (m, r) int64
        got = [tuple(v) for v in layer(heights, t).tolist()]
        assert got == sorted(v for v in nodes if sum(v) == t)  # lexicographic


def _nodes_of(heights):
    return list(itertools.product(*(range(int(h) + 1) for h in heights)))


# ---------------------------------------------------------------- Incognito (survey §4.3)
@pytest.mark.parametrize(("n", "seed", "k", "sup"), CASES)
def test_incognito_finds_every_feasible_node_and_the_optimum(n, seed, k, sup):
    ds = _adult(n, seed, ["education", "marital-status", "sex"])
    feas = _feasible(ds, k, sup)
    for measure in ("loss_metric", "discernibility", "height"):
        res = incognito_search(Encoded(ds, (KAnonymity(k),), sup, measure))
        assert sorted(map(tuple, res.levels[res.state == 1].tolist())) == sorted(feas)
        assert sorted(map(tuple, res.minimal.tolist())) == _minimal(feas)
        assert res.extra["checks"] == sum(len(it["checked"]) for it in res.extra["iterations"]) > 0
        assert res.monotone_measure is (measure == "height" or math.floor(sup * n + 1e-9) == 0)
        assert res.monotone_feasibility is True
        its = res.extra["iterations"]
        assert [it["iteration"] for it in its] == [1, 2, 3] and its[-1]["surviving"] == len(feas)
        for it in its:  # every feasible sub-vector of every QI subset of that size (subset property)
            assert it["surviving"] == sum(_n_feasible_on(ds, cols, k, sup)
                                          for cols in itertools.combinations(range(ds.r), it["iteration"]))
        if measure != "height":
            assert res.value == pytest.approx(min(_value(ds, lv, k, measure) for lv in feas)), measure


def test_incognito_with_l_diversity_matches_exhaustive():
    ds = _adult(120, 7, ["education", "marital-status", "sex"])
    models = [KAnonymity(2), DistinctLDiversity(2)]
    ex = lattice_search(ds, models, algorithm="exhaustive", measure="loss_metric")
    rel = run("incognito", ds, models, measure="loss_metric")
    assert rel.levels.tolist() == ex.optimum.tolist()
    assert rel.provenance["lattice"]["value"] == pytest.approx(ex.value)


def test_incognito_refuses_non_monotone_models():
    ds = _adult(30, 5)
    with pytest.raises(UnsupportedModelError, match=r"^incognito needs models whose satisfaction is monotone under "
                       r"generalization \(and under suppression when max_suppression > 0\); KAnonymity"):
        run("incognito", ds, [KAnonymity(2), EntropyLDiversity(1.5)], max_suppression=0.2)


# ---------------------------------------------------------------- Datafly (survey §3)
def _datafly_oracle(ds: Dataset, k: int, limit: int):
    lv = [0] * ds.r
    steps = []
    while True:
        lo, hi, small = _node(ds, lv, k)
        if int(small.sum()) <= limit:
            return lv, steps, small
        distinct = [len(np.unique(lo[:, j] * 10**6 + hi[:, j])) if lv[j] < h.height else -1
                    for j, h in enumerate(ds.hierarchies)]
        j = int(np.argmax(distinct))
        steps.append((ds.quasi_identifiers[j], distinct[j], int(small.sum())))
        lv[j] += 1


@pytest.mark.parametrize(("n", "seed", "k", "sup"), [*CASES, (120, 5, 5, None)])
def test_datafly_raises_the_qi_with_most_distinct_values(n, seed, k, sup):
    ds = _adult(n, seed, ["education", "marital-status", "sex", "native-country"])
    limit = k if sup is None else math.floor(sup * n + 1e-9)
    lv, steps, small = _datafly_oracle(ds, k, limit)
    rel = run("datafly", ds, KAnonymity(k), max_suppression=sup)
    assert rel.provenance["lattice"]["algorithm"] == "datafly"
    assert rel.provenance["lattice"]["monotone_measure"] is (limit == 0)
    assert rel.provenance["lattice"]["monotone_feasibility"] is True and rel.levels.dtype == np.int64
    assert rel.levels.tolist() == lv
    assert [(s["attribute"], s["distinct"], s["suppression_needed"]) for s in rel.provenance["lattice"]["steps"]] == steps
    assert rel.n_suppressed == int(small.sum())
    assert rel.provenance["lattice"]["value"] == pytest.approx(_value(ds, lv, k, "loss_metric"))


def test_datafly_default_budget_is_k_records():
    ds = _adult(40, 9, ["education", "sex"])
    lv, _, small = _datafly_oracle(ds, 4, 4)
    rel = run("datafly", ds, KAnonymity(4))
    assert rel.levels.tolist() == lv and rel.n_suppressed == int(small.sum()) <= 4


# ---------------------------------------------------------------- k-Optimize (survey §4.2)
def _k_optimize_oracle(ds: Dataset, k: int, limit: int) -> float:
    n = ds.n
    items = [(j, int(v)) for j in range(ds.r) for v in np.unique(ds.X[:, j])[1:]]
    best = math.inf
    for mask in range(1 << len(items)):
        cols = []
        for j in range(ds.r):
            cuts = np.array([v for b, (c, v) in enumerate(items) if c == j and mask >> b & 1], dtype=np.int64)
            cols.append(np.searchsorted(np.sort(cuts), ds.X[:, j], side="right"))
        _, cls, cnt = np.unique(np.column_stack(cols), axis=0, return_inverse=True, return_counts=True)
        size = cnt[cls.ravel()]
        sup = int((size < k).sum())
        if sup <= limit:
            best = min(best, float((cnt[cnt >= k] ** 2).sum() + n * sup))
    return best


def _small_ordered(seed: int, n: int) -> Dataset:
    rng = np.random.default_rng(seed)
    df = pd.DataFrame({"a": rng.integers(0, 5, n), "b": rng.integers(0, 4, n), "c": rng.integers(0, 3, n)})
    return Dataset(df, quasi_identifiers=["a", "b", "c"], hierarchies={q: "ordered" for q in "abc"})


@pytest.mark.parametrize(("seed", "n", "k", "sup"), [(0, 20, 2, 1.0), (1, 30, 3, 0.1), (2, 25, 4, 0.2), (3, 40, 5, 0.0)])
def test_k_optimize_is_the_discernibility_optimum_of_all_interval_splittings(seed, n, k, sup):
    ds = _small_ordered(seed, n)
    want = _k_optimize_oracle(ds, k, math.floor(sup * n + 1e-9))
    res = k_optimize_search(ds, k, sup)
    assert res["cost"] == want
    rel = run("k_optimize", ds, KAnonymity(k), max_suppression=sup)
    assert KAnonymity(k).check(rel).satisfied
    # ordered hierarchies: the published release is the searched one
    assert rel.provenance["objective"] == want == float(MEASURES["discernibility"](rel))


def test_k_optimize_k1_is_the_identity_release():
    ds = _small_ordered(4, 15)
    rel = run("k_optimize", ds, KAnonymity(1))
    X = ds.X[rel.source]
    assert rel.n_suppressed == 0 and (rel.lo == X).all() and (rel.hi == X).all()


# ---------------------------------------------------------------- entry points (_api)
def test_lattice_search_argument_errors_are_ktype_errors():
    ds = _adult(30, 1)
    with pytest.raises(InvalidParameterError, match="flash needs a ktype Dataset; got DataFrame"):
        lattice_search(pd.DataFrame({"a": [1, 2]}), KAnonymity(2))
    with pytest.raises(InvalidParameterError) as err:
        lattice_search(ds, [])
    assert str(err.value) == "Give at least one privacy model (e.g. KAnonymity(5))."
    with pytest.raises(InvalidParameterError, match="Unknown lattice algorithm 'samarati'"):
        lattice_search(ds, KAnonymity(2), algorithm="samarati")
    with pytest.raises(InvalidParameterError, match="'max_suppression' parameter of exhaustive"):
        lattice_search(ds, KAnonymity(2), algorithm="exhaustive", max_suppression=-0.1)
    with pytest.raises(InvalidParameterError, match="'measure' parameter of flash"):
        lattice_search(ds, KAnonymity(2), measure="lm")
    with pytest.raises(KtypeError):  # the model's own validation runs (k above n)
        lattice_search(ds, KAnonymity(31))
    from ktype.models import KConcealment

    with pytest.raises(UnsupportedModelError) as err:
        lattice_search(ds, [KAnonymity(2), KConcealment(2)], algorithm="exhaustive")
    assert str(err.value) == "exhaustive does not support KConcealment; it supports per-class models (ClassModel)."


@pytest.mark.parametrize("algorithm", ["flash", "exhaustive"])
def test_lattice_search_accepts_a_model_list_and_the_bounds_of_max_suppression(algorithm):
    ds = _adult(60, 2)
    for sup in (0.0, 1.0):
        feas = _feasible(ds, 3, sup)
        res = lattice_search(ds, [KAnonymity(3)], algorithm=algorithm, measure="loss_metric", max_suppression=sup)
        assert res.value == pytest.approx(min(_value(ds, lv, 3, "loss_metric") for lv in feas))
        rel = run(algorithm, ds, KAnonymity(3), measure="loss_metric", max_suppression=sup)
        assert rel.provenance["lattice"]["value"] == pytest.approx(res.value)


@pytest.mark.parametrize("measure", LATTICE_MEASURES)
def test_flash_and_exhaustive_defaults_and_every_measure_against_brute_force(measure):
    ds = _adult(80, 6)
    feas = _feasible(ds, 4, 0.05)
    want = min(_value(ds, lv, 4, measure) for lv in feas)
    for name in ("flash", "exhaustive"):
        rel = run(name, ds, KAnonymity(4), measure=measure, max_suppression=0.05)
        assert abs(rel.provenance["objective"]) == pytest.approx(abs(want)), name
    default = run("flash", ds, KAnonymity(4))  # non_uniform_entropy, no suppression
    feas0 = _feasible(ds, 4, 0.0)
    assert default.provenance["objective"] == pytest.approx(
        min(_value(ds, lv, 4, "non_uniform_entropy") for lv in feas0))


@pytest.mark.parametrize("measure", LATTICE_MEASURES)
def test_flash_and_exhaustive_on_a_fars_sample_against_brute_force(measure):
    from tests.test_edge_cases import _fars_sample

    ds = _fars_sample(250, 2, ["iage", "isex", "irace", "ihispanic"])
    feas = _feasible(ds, 5, 0.1)
    want = min(_value(ds, lv, 5, measure) for lv in feas)
    for name in ("flash", "exhaustive"):
        rel = run(name, ds, KAnonymity(5), measure=measure, max_suppression=0.1)
        assert abs(rel.provenance["objective"]) == pytest.approx(abs(want)), name
        assert rel.n_suppressed <= 25 and KAnonymity(5).check(rel).satisfied


def test_samarati_refuses_a_lattice_whose_widest_layer_exceeds_the_limit(monkeypatch):
    from ktype.exceptions import LatticeTooLargeError

    ds = _adult(60, 1)  # heights 3, 1, 2: layers 1, 3, 5, 6, 5, 3, 1
    heights = [h.height for h in ds.hierarchies]
    widest = max(sum(1 for v in _nodes_of(heights) if sum(v) == t) for t in range(sum(heights) + 1))
    assert widest == 6
    monkeypatch.setattr(_samarati, "MAX_LAYER_NODES", widest)  # at the limit: runs
    assert run("samarati", ds, KAnonymity(2)).levels is not None
    monkeypatch.setattr(_samarati, "MAX_LAYER_NODES", widest - 1)
    with pytest.raises(LatticeTooLargeError, match=r"^samarati: .* scanning its widest height layer \(6 nodes\) needs"):
        run("samarati", ds, KAnonymity(2))


def test_searches_name_themselves_when_refusing(monkeypatch):
    from ktype.algorithms.fulldomain import _lattice
    from ktype.exceptions import HierarchyError, LatticeTooLargeError

    ds = _adult(40, 3)
    need = _lattice.dense_search_bytes([h.height for h in ds.hierarchies])
    monkeypatch.setattr(_lattice, "MAX_LATTICE_BYTES", need)  # at the limit: runs
    for name in ("flash", "exhaustive", "incognito"):
        assert run(name, ds, KAnonymity(2)).provenance["lattice"]["algorithm"] == name
    monkeypatch.setattr(_lattice, "MAX_LATTICE_BYTES", need - 1)
    for name in ("flash", "exhaustive", "incognito"):
        with pytest.raises(LatticeTooLargeError, match=f"^{name}: the full-domain lattice of 3 quasi-identifiers"):
            run(name, ds, KAnonymity(2))
    ordered = Dataset(pd.DataFrame({"a": [1, 2, 3, 4]}), quasi_identifiers=["a"], hierarchies={"a": "ordered"})
    for name in ("datafly", "samarati", "incognito", "flash", "exhaustive"):
        with pytest.raises(HierarchyError, match=f"^{name} uses full-domain recoding"):
            run(name, ordered, KAnonymity(2))


# With no suppression allowed, k-Optimize must not take the cheaper optimum that suppresses
# (seed 0: DM 102 without suppression, 95 with); its provenance reports the search.
def test_k_optimize_respects_the_suppression_limit_and_reports_its_search():
    ds = _small_ordered(0, 20)
    assert _k_optimize_oracle(ds, 3, 20) == 95.0
    rel = run("k_optimize", ds, KAnonymity(3), max_suppression=0.0)
    res = k_optimize_search(ds, 3, 0.0)
    assert rel.n_suppressed == 0 and rel.provenance["objective"] == res["cost"] == 102.0
    info = rel.provenance["k_optimize"]
    assert (info["nodes"], info["bounds"], info["suppressed"]) == (res["nodes"], res["bounds"], 0)
    assert rel.provenance["lattice"]["nodes_evaluated"] == res["nodes"] > 0 and res["bounds"] > 0
    assert rel.provenance["lattice"]["value"] == 102.0


def test_k_optimize_k1_without_suppression_is_the_identity_release():
    ds = _small_ordered(4, 15)
    rel = run("k_optimize", ds, KAnonymity(1), max_suppression=0.0)
    X = ds.X[rel.source]
    assert rel.n_suppressed == 0 and (rel.lo == X).all() and (rel.hi == X).all()


def test_datafly_default_budget_with_an_l_diversity_model():
    ds = _adult(60, 4, ["education", "marital-status", "sex"])
    models = [KAnonymity(3), DistinctLDiversity(2)]
    rel = run("datafly", ds, models)  # Sweeney's budget: k = 3 records
    assert rel.n_suppressed <= 3 and all(m.check(rel).satisfied for m in models)
    only_l = run("datafly", ds, DistinctLDiversity(2))  # no k: a budget of 1 record
    assert only_l.n_suppressed <= 1


def test_lattice_search_names_itself_and_by_default_proves_only_what_it_needs(monkeypatch):
    from ktype.algorithms.fulldomain import _lattice
    from ktype.exceptions import LatticeTooLargeError

    full = ktype.load_adult(quasi_identifiers=QIS, sensitive=("salary-class",))
    ds = full.subset(np.sort(np.random.default_rng(0).choice(full.n, 150, replace=False)))
    a = lattice_search(ds, KAnonymity(5), measure="discernibility", max_suppression=0.1)
    b = lattice_search(ds, KAnonymity(5), measure="discernibility", max_suppression=0.1, k_minimal=True)
    assert a.value == b.value and (b.state != 0).all()
    assert (a.state == 0).sum() == 1 and len(a.minimal) == 3 < len(b.minimal) == 4  # pruned, not classified
    monkeypatch.setattr(_lattice, "MAX_LATTICE_BYTES", 0)
    for name in ("flash", "exhaustive"):
        with pytest.raises(LatticeTooLargeError, match=f"^{name}: "):
            lattice_search(ds, KAnonymity(5), algorithm=name)


def _dm(ds: Dataset, items, splits, k: int) -> tuple[float, int]:
    cols = []
    for j in range(ds.r):
        cuts = np.sort([items[i][1] for i in splits if items[i][0] == j]).astype(np.int64)
        cols.append(np.searchsorted(cuts, ds.X[:, j], side="right"))
    _, cls, cnt = np.unique(np.column_stack(cols), axis=0, return_inverse=True, return_counts=True)
    sup = int((cnt[cls.ravel()] < k).sum())
    return float((cnt[cnt >= k] ** 2).sum() + ds.n * sup), sup


# k-Optimize refines its optimum with every split that keeps the optimal cost: no single
# further split does (brute-force DM), and its provenance reports the search.
@pytest.mark.parametrize(("seed", "n", "k", "sup"), [(0, 20, 2, 1.0), (1, 30, 3, 0.1), (2, 25, 4, 0.2), (6, 16, 2, 0.0)])
def test_k_optimize_optimum_is_refined_as_far_as_the_cost_allows(seed, n, k, sup):
    ds = _small_ordered(seed, n)
    limit = math.floor(sup * n + 1e-9)
    res = k_optimize_search(ds, k, sup)
    items = res["space"].items
    assert _dm(ds, items, res["splits"], k) == (res["cost"], res["suppressed"])
    for v in range(len(items)):
        if v not in res["splits"]:
            c, s_ = _dm(ds, items, res["splits"] + [v], k)
            assert c > res["cost"] or s_ > limit, (v, c)
    rel = run("k_optimize", ds, KAnonymity(k), max_suppression=sup)
    lat = rel.provenance["lattice"]
    assert (lat["algorithm"], lat["measure"], rel.provenance["objective_measure"]) == ("k_optimize",) + ("discernibility",) * 2
    assert lat["time_s"] == round(rel.provenance["k_optimize"]["time_s"], 6)


def test_k_optimize_counts_the_nodes_it_costs():
    df = pd.DataFrame({"a": [0, 0, 1, 1]})
    ds = Dataset(df, quasi_identifiers=["a"], hierarchies={"a": "ordered"})
    res = k_optimize_search(ds, 2)  # one split item: the root [] and {a >= 1}, both costed
    assert res["nodes"] == 2 and res["cost"] == 8.0 and res["splits"] == [0]


def test_k_optimize_tie_refinement_never_suppresses_more():
    """Rows 0, 0, 1, 1 with k = 3: one published class of 4 (DM 16) and four suppressed records
    (DM 4 x 4 = 16) tie; the refinement must keep the release that publishes the records."""
    df = pd.DataFrame({"a": [0, 0, 1, 1], "s": ["x", "y", "x", "y"]})
    ds = ktype.Dataset(df, quasi_identifiers=["a"], sensitive=["s"], hierarchies={"a": "ordered"})
    res = k_optimize_search(ds, 3)
    assert res["cost"] == 16 and res["suppressed"] == 0 and res["splits"] == []
    rel = run("k_optimize", ds, KAnonymity(3))
    assert rel.n_suppressed == 0
