"""Tests of the information-loss measures (ktype.measures): paper fixtures and properties."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ktype import Dataset, Hierarchy, Release
from ktype import measures as M
from ktype._grouping import group_rows
from ktype.exceptions import InvalidParameterError
from ktype.measures import MeasureUnavailable

# ----------------------------------------------------------------------------- helpers


def _cells_from_values(ds: Dataset, boxes: list[list[tuple]]) -> tuple[np.ndarray, np.ndarray]:
    """lo/hi from per-row, per-column (low value, high value) pairs."""
    lo = np.empty((len(boxes), ds.r), dtype=np.int32)
    hi = np.empty_like(lo)
    for i, row in enumerate(boxes):
        for j, (a, b) in enumerate(row):
            h = ds.hierarchies[j]
            lo[i, j] = h.rank_of(a)
            hi[i, j] = h.rank_of(b)
    return lo, hi


def _level_cells(ds: Dataset, levels) -> tuple[np.ndarray, np.ndarray]:
    lo = np.empty_like(ds.X)
    hi = np.empty_like(ds.X)
    for j, h in enumerate(ds.hierarchies):
        a, b = h.level_intervals(int(levels[j]))
        lo[:, j] = a[ds.X[:, j]]
        hi[:, j] = b[ds.X[:, j]]
    return lo, hi


# ----------------------------------------------------------------------------- survey (Ciriani et al.)

PT = pd.DataFrame(
    {
        "race": ["asian", "asian", "asian", "asian", "asian", "black", "black", "white", "white"],
        "zip": [94142, 94141, 94139, 94139, 94139, 94138, 94139, 94139, 94141],
        "disease": [
            "hypertension", "obesity", "chest pain", "obesity", "short breath",
            "short breath", "obesity", "chest pain", "short breath",
        ],
    }
)


def _survey_full_domain() -> Dataset:
    df = PT.assign(zip=PT["zip"].astype(str))
    return Dataset(df, quasi_identifiers=["race", "zip"], sensitive=["disease"],
                   hierarchies={"race": "flat", "zip": {"masking": [1]}})


def _gt(ds: Dataset, levels, suppressed_rows) -> Release:
    lo, hi = _level_cells(ds, levels)
    sup = np.zeros(ds.n, dtype=bool)
    sup[list(suppressed_rows)] = True
    return Release.build(ds, lo, hi, suppressed=sup, recoding="full-domain", levels=levels)


def test_survey_fig7_discernibility_precision_height():
    """Survey Fig. 7 (Ciriani et al. 2007, §2.2: the 2-minimal generalizations with MaxSup = 2):
    DM(GT[1,0]) = 47, DM(GT[0,1]) = 35, computed by hand (suppressed tuples cost |PT| = 9)."""
    ds = _survey_full_domain()
    assert [h.height for h in ds.hierarchies] == [1, 2]
    g10 = _gt(ds, [1, 0], [0, 5])  # t1, t6 suppressed
    g01 = _gt(ds, [0, 1], [7, 8])  # t8, t9 suppressed
    assert M.discernibility(g10) == 47
    assert M.discernibility(g01) == 35
    # precision: suppressed rows charged level = height
    assert M.precision(g10) == pytest.approx(1 - (7 * 1.0 + 2 * 2) / 18)
    assert M.precision(g01) == pytest.approx(1 - (7 * 0.5 + 2 * 2) / 18)
    assert M.height(g10) == 1 and M.height(g01) == 1
    # without suppression, Prec = 1 - relative distance / N_A (Sweeney's Prec, the survey's §2.2 relative distance)
    g11 = _gt(ds, [1, 1], [])
    assert M.precision(g11) == pytest.approx(1 - (1 / 1 + 1 / 2) / 2)
    assert M.height(g11) == 2
    # C_AVG and CM (label = Disease) on GT[0,1]: 7 published records in 3 classes
    assert M.average_class_size(g01, k=2) == pytest.approx(7 / 3 / 2)
    # classes {hypertension, obesity}, {chest pain, obesity, short breath}, {short breath, obesity}
    assert M.classification_metric(g01, label="disease") == pytest.approx((1 + 2 + 1 + 2) / 9)


def _ba_release(ds: Dataset, index_set, *, suppress: bool) -> Release:
    """Decode a Bayardo–Agrawal index set (survey Fig. 12: race 1..3, zip 4..7)."""
    starts = [[0] + [i - 1 for i in index_set if i <= 3], [0] + [i - 4 for i in index_set if i >= 4]]
    lo = np.empty_like(ds.X)
    hi = np.empty_like(ds.X)
    for j, h in enumerate(ds.hierarchies):
        s = np.array(sorted(starts[j]))
        pos = np.searchsorted(s, ds.X[:, j], side="right") - 1
        lo[:, j] = s[pos]
        nxt = np.append(s[1:] - 1, h.size - 1)
        hi[:, j] = nxt[pos]
    sup = None
    if suppress:  # suppress the outliers: classes smaller than k = 2
        ids, _ = group_rows(lo, hi)
        sup = np.bincount(ids)[ids] < 2
    return Release.build(ds, lo, hi, suppressed=sup, recoding="multidimensional")


def test_survey_k_optimize_dm_optimum_is_31():
    """Survey Fig. 12 (Ciriani et al. 2007, §4.2): over all index sets, the DM optimum (k=2) is
    {2,6} with DM = 31 (computed by enumeration; the survey prints no cost)."""
    ds = Dataset(PT, quasi_identifiers=["race", "zip"], sensitive=["disease"],
                 hierarchies={"race": "ordered", "zip": "ordered"})
    alphabet = [2, 3, 5, 6, 7]
    costs = {}
    for size in range(len(alphabet) + 1):
        for subset in itertools.combinations(alphabet, size):
            published = M.discernibility(_ba_release(ds, subset, suppress=True))
            variant = M.discernibility(_ba_release(ds, subset, suppress=False), suppress_below=2)
            assert published == variant
            costs[subset] = published
    assert costs[()] == 81
    assert costs[(6,)] == 45
    assert costs[(2, 3)] == 33
    best = min(costs.values())
    assert best == 31
    assert [s for s, c in costs.items() if c == best] == [(2, 6)]


# ----------------------------------------------------------------------------- Gionis & Tassa


def _one_column(values, subsets=None) -> Dataset:
    df = pd.DataFrame({"a": values})
    dom = sorted(set(values))
    h = Hierarchy.from_subsets(dom, subsets or [], name="a")
    return Dataset(df, quasi_identifiers=["a"], hierarchies={"a": h})


def _example_47() -> Dataset:
    return _one_column([1] * 97 + [2, 3, 4], [[1, 2], [3, 4]])


def test_gionis_tassa_example_47_cell_values():
    """Gionis & Tassa (TKDE 2009) Example 4.7 (§4.2) and Tables 1–2 (§4.4) at eps = 0.01, n = 100
    (counts 97/1/1/1); the paper prints formulas in eps, the numbers were computed from them."""
    ds = _example_47()
    h = ds.hierarchies[0]
    lev1_lo, lev1_hi = h.level_intervals(1)
    x = ds.X
    lo, hi = lev1_lo[x], lev1_hi[x]
    e = M.entropy_cells(ds, lo, hi)[:, 0]
    me = M.monotone_entropy_cells(ds, lo, hi)[:, 0]
    ne = M.non_uniform_entropy_cells(ds, lo, hi, x)[:, 0]
    val = np.array(h.leaves)[x[:, 0]]
    one, two, three = (np.flatnonzero(val == v)[0] for v in (1, 2, 3))
    assert e[one] == pytest.approx(0.082143, abs=1e-6)
    assert e[two] == pytest.approx(0.082143, abs=1e-6)
    assert me[one] == pytest.approx(0.080500, abs=1e-6)
    assert ne[one] == pytest.approx(0.014797, abs=1e-6)
    assert ne[two] == pytest.approx(6.614710, abs=1e-6)
    assert me[three] == pytest.approx(0.02, abs=1e-12)
    assert e[three] == pytest.approx(1.0) and ne[three] == pytest.approx(1.0)
    # Table 2: suppression
    slo, shi = np.zeros_like(x), np.full_like(x, 3)
    e2 = M.entropy_cells(ds, slo, shi)[:, 0]
    me2 = M.monotone_entropy_cells(ds, slo, shi)[:, 0]
    ne2 = M.non_uniform_entropy_cells(ds, slo, shi, x)[:, 0]
    assert e2 == pytest.approx(np.full(100, 0.241941), abs=1e-6)
    assert me2 == pytest.approx(e2, abs=1e-12)
    assert ne2[one] == pytest.approx(0.043943, abs=1e-6)
    assert ne2[two] == pytest.approx(6.643856, abs=1e-6)
    # totals (7) = (8) = 10.050019; full suppression 24.194073
    partial = Release.build(ds, lo, hi, recoding="full-domain", levels=[1])
    assert M.entropy(partial) == pytest.approx(10.050019, abs=1e-6)
    assert M.non_uniform_entropy(partial) == pytest.approx(10.050019, abs=1e-6)
    allsup = Release.build(ds, x, x, suppressed=np.ones(100, dtype=bool))
    assert M.entropy(allsup) == pytest.approx(24.194073, abs=1e-6)
    assert M.non_uniform_entropy(allsup) == pytest.approx(24.194073, abs=1e-6)
    assert M.entropy(allsup, normalize=True) == pytest.approx(0.24194073, abs=1e-8)


def test_entropy_is_not_monotone_example_47():
    """Example 4.7: 4 -> {3,4} costs 1 bit, 4 -> * costs 0.241941: Π_e decreases."""
    ds = _example_47()
    x = np.asarray(ds.X)
    h = ds.hierarchies[0]
    i4 = int(np.flatnonzero(x[:, 0] == h.rank_of(4))[0])
    lo, hi = x.copy(), x.copy()
    lo[i4, 0], hi[i4, 0] = h.rank_of(3), h.rank_of(4)
    g = Release.build(ds, lo, hi)
    lo2, hi2 = lo.copy(), hi.copy()
    lo2[i4, 0], hi2[i4, 0] = 0, 3
    g2 = Release.build(ds, lo2, hi2)  # g ⊑ g2
    assert M.entropy(g) == pytest.approx(1.0)
    assert M.entropy(g2) == pytest.approx(0.241941, abs=1e-6)
    assert M.entropy(g2) < M.entropy(g)
    # the monotone variants do not decrease
    assert M.monotone_entropy(g) == pytest.approx(0.02)
    assert M.monotone_entropy(g2) >= M.monotone_entropy(g)
    assert M.non_uniform_entropy(g2) == pytest.approx(6.643856, abs=1e-6)
    assert M.non_uniform_entropy(g2) >= M.non_uniform_entropy(g)
    assert M.tree_measure(g) == pytest.approx(0.5) and M.tree_measure(g2) == pytest.approx(1.0)


def test_gionis_tassa_examples_44_45():
    ds = _one_column([1, 2, 3, 3])
    sup = np.array([True, True, False, False])
    g = Release.build(ds, ds.X, ds.X, suppressed=sup)
    assert M.entropy(g) == pytest.approx(3.0)
    assert M.monotone_entropy(g) == pytest.approx(3.0)
    assert M.non_uniform_entropy(g) == pytest.approx(4.0)
    ds = _one_column([1, 2, 3, 3, 3, 3, 3, 3])
    sup = np.array([True, True, True] + [False] * 5)
    g = Release.build(ds, ds.X, ds.X, suppressed=sup)
    assert M.entropy(g) == pytest.approx(3.1838344, abs=1e-7)
    assert M.non_uniform_entropy(g) == pytest.approx(6.4150375, abs=1e-7)


def test_gionis_tassa_example_49_uniform():
    """Uniform attribute of size m, subset of size b: Π_e = log b, Π_me = (b/m) log b per cell."""
    m, b = 8, 4
    ds = _one_column(list(range(m)) * 3, [list(range(0, 4)), list(range(4, 8))])
    lo, hi = _level_cells(ds, [1])
    rel = Release.build(ds, lo, hi, recoding="full-domain", levels=[1])
    n = ds.n
    assert M.entropy(rel) == pytest.approx(n * math.log2(b))
    assert M.monotone_entropy(rel) == pytest.approx(n * (b / m) * math.log2(b))
    assert M.monotone_entropy(rel, normalize=True) == pytest.approx((b / m) * math.log2(b))


@pytest.mark.parametrize(
    ("rows", "opt_e", "opt_ne"),
    [
        ([(0, 1, 0), (0, 1, 1), (0, 2, 1), (1, 0, 0), (1, 0, 0), (2, 0, 2)], 17.509775, 20.264663),
        ([(0, 0, 1), (0, 1, 0), (0, 1, 1), (1, 0, 0), (1, 0, 2), (2, 2, 0)], 21.887219, 23.264663),
    ],
)
def test_gionis_tassa_np_reduction_vectors(rows, opt_e, opt_ne):
    """Instances of the NP-hardness reduction of Gionis & Tassa (Theorem 5.2, proof in §8.3;
    k = 3, n = 6, suppression hierarchies), one whose hypergraph has a perfect matching and one
    without: brute-force optimum over partitions into blocks of size >= 3, each block released
    as its closure (the optima were computed, not printed in the paper)."""
    df = pd.DataFrame(rows, columns=["c0", "c1", "c2"])
    ds = Dataset(df, quasi_identifiers=list(df.columns),
                 hierarchies={c: Hierarchy.flat([0, 1, 2], name=c) for c in df.columns})
    X = np.asarray(ds.X)
    partitions = [[tuple(range(6))]]
    for pair in itertools.combinations(range(1, 6), 2):
        a = (0, *pair)
        partitions.append([a, tuple(i for i in range(6) if i not in a)])
    best_e = best_me = best_ne = math.inf
    for part in partitions:
        lo, hi = X.copy(), X.copy()
        for block in part:
            b = list(block)
            same = (X[b] == X[b][0]).all(axis=0)
            lo[np.ix_(b, ~same)] = 0
            hi[np.ix_(b, ~same)] = 2
        rel = Release.build(ds, lo, hi)
        best_e = min(best_e, M.entropy(rel))
        best_me = min(best_me, M.monotone_entropy(rel))
        best_ne = min(best_ne, M.non_uniform_entropy(rel))
    assert best_e == pytest.approx(opt_e, abs=1e-6)
    assert best_me == pytest.approx(opt_e, abs=1e-6)  # Π_me = Π_e under suppression
    assert best_ne == pytest.approx(opt_ne, abs=1e-6)


# ----------------------------------------------------------------------------- k-concealment Table 1


def test_k_concealment_table1_lm_c_below_lm_b():
    df = pd.DataFrame({"age": [30, 21, 21, 55, 47], "zip": ["10055", "10055", "10023", "10165", "10224"],
                       "disease": ["Measles", "Flu", "Angina", "Flu", "Diabetes"]})
    ds = Dataset(df, quasi_identifiers=["age", "zip"], sensitive=["disease"],
                 hierarchies={"age": {"subsets": [[21, 30], [47, 55]]}, "zip": {"masking": [2, 3]}})
    b_rows = [[(21, 30), ("10023", "10055")]] * 3 + [[(47, 55), ("10023", "10224")]] * 2
    c_rows = [
        [(21, 30), ("10055", "10055")],
        [(21, 21), ("10023", "10055")],
        [(21, 30), ("10023", "10055")],
    ] + [[(47, 55), ("10023", "10224")]] * 2
    rb = Release.build(ds, *_cells_from_values(ds, b_rows))
    rc = Release.build(ds, *_cells_from_values(ds, c_rows))
    assert M.loss_metric(rb) == pytest.approx(7 / 15)
    assert M.loss_metric(rc) == pytest.approx(2 / 5)
    assert M.loss_metric(rc) < M.loss_metric(rb)
    assert M.tree_measure(rc) < M.tree_measure(rb)
    # DM of (b): classes of 3 and 2; (c) has a class structure of 1+1+1+2
    assert M.discernibility(rb) == 13 and M.discernibility(rc) == 7


# ----------------------------------------------------------------------------- freeform Table 1

AGE = [59, 57, 39, 28, 41, 37, 40, 53]
SALARY = [25, 27, 47, 41, 20, 59, 35, 34]
BOXES = [  # t'0..t'7: (age lo, age hi), (salary lo, salary hi)
    ((53, 59), (25, 34)), ((53, 59), (25, 34)), ((28, 39), (41, 59)), ((28, 41), (20, 59)),
    ((40, 59), (20, 35)), ((28, 39), (41, 59)), ((39, 41), (20, 47)), ((40, 57), (27, 35)),
]
PREIMAGES = [(0, 1, 7), (0, 1, 7), (2, 3, 5), (3, 4, 5), (0, 4, 6), (2, 3, 5), (2, 4, 6), (1, 6, 7)]


def _freeform():
    ds = Dataset(pd.DataFrame({"age": AGE, "salary": SALARY}), quasi_identifiers=["age", "salary"])
    lo, hi = _cells_from_values(ds, [list(b) for b in BOXES])
    return ds, Release.build(ds, lo, hi, recoding="freeform")


def test_freeform_table1_boxes_are_tight():
    for (ab, sb), pre in zip(BOXES, PREIMAGES):
        assert ab == (min(AGE[i] for i in pre), max(AGE[i] for i in pre))
        assert sb == (min(SALARY[i] for i in pre), max(SALARY[i] for i in pre))


def test_freeform_table1_gcp():
    """Doka et al. Table 1 (§1): GCP = (85/31 + 143/39)/16 = 0.4005376344 with the data's range
    as normalizer (computed from the printed boxes; the paper prints no GCP and declares no
    domain for this example)."""
    ds, rel = _freeform()
    assert M.gcp(rel) == pytest.approx(0.4005376344, abs=1e-10)
    assert M.gcp(rel, numeric_range="domain") == pytest.approx(0.4005376344, abs=1e-10)
    assert M.ncp(rel) == pytest.approx(85 / 31 + 143 / 39)
    lower = np.array([[b[0][0], b[1][0]] for b in BOXES], dtype=float)
    upper = np.array([[b[0][1], b[1][1]] for b in BOXES], dtype=float)
    assert M.gcp_from_boxes(lower, upper) == pytest.approx(0.4005376344, abs=1e-10)
    # treating the attributes as categorical (set count over 8 distinct values) differs
    assert M.gcp(rel, numeric=[]) != pytest.approx(0.4005376344, abs=1e-6)
    # perimeter over published boxes = total NCP; tight extents from the originals per class
    assert M.perimeter(rel) == pytest.approx(M.ncp(rel))
    tight = 2 * (2 / 31 + 2 / 39) + 2 * (2 / 31 + 12 / 39)  # classes {t0,t1} and {t2,t5}
    assert M.perimeter(rel, tight=True) == pytest.approx(tight)


def test_ncp_numeric_leaves_not_in_value_order():
    ds = _one_column([1, 10, 2, 20], [[1, 10], [2, 20]])
    h = ds.hierarchies[0]
    assert h.numeric and h.leaves == [1, 10, 2, 20]
    cells = M.ncp_cells(ds, np.array([[0], [1], [0]]), np.array([[1], [2], [3]]))
    np.testing.assert_allclose(cells[:, 0], [9 / 19, 8 / 19, 1.0])
    # as categorical: set count over 4 values
    np.testing.assert_allclose(M.ncp_cells(ds, [[0]], [[1]], numeric=[])[:, 0], [1 / 3])


def test_gcp_from_boxes_validation():
    with pytest.raises(InvalidParameterError, match="lower <= upper"):
        M.gcp_from_boxes([[2.0]], [[1.0]])
    assert M.gcp_from_boxes([[1.0], [1.0]], [[1.0], [1.0]]) == 0.0  # U = L: no division by zero


# ----------------------------------------------------------------------------- small exact fixtures


def test_kl_divergence_hand_computed():
    ds = Dataset(pd.DataFrame({"a": [0, 0, 1, 3]}), quasi_identifiers=["a"],
                 hierarchies={"a": Hierarchy.ordered([0, 1, 2, 3], name="a")})
    lo = np.array([[0], [0], [0], [3]])
    hi = np.array([[1], [1], [1], [3]])
    rel = Release.build(ds, lo, hi)
    expected = 0.5 * math.log2(0.5 / (3 / 8)) + 0.25 * math.log2(0.25 / (3 / 8))
    assert M.kl_divergence(rel) == pytest.approx(expected)
    assert M.kl_divergence(rel, base=math.e) == pytest.approx(expected * math.log(2))
    assert M.kl_divergence(Release.build(ds, ds.X, ds.X)) == 0.0


def test_classification_metric_insensitive_label():
    df = pd.DataFrame({"a": [1, 1, 1, 2, 2], "y": ["p", "p", "q", "q", "q"]})
    ds = Dataset(df, quasi_identifiers=["a"], insensitive=["y"])
    rel = Release.build(ds, ds.X, ds.X, suppressed=[False, False, False, False, True])
    # class a=1: majority p, one penalty; class a=2 (one row): none; one suppressed
    assert M.classification_metric(rel, label="y") == pytest.approx(2 / 5)
    with pytest.raises(MeasureUnavailable, match="label column 'a'"):
        M.classification_metric(rel, label="a")


# ----------------------------------------------------------------------------- registry


def test_compute_skips_and_reports():
    ds, rel = _freeform()
    res = M.compute(rel)
    assert set(res) | set(res.skipped) == set(M.MEASURES)
    assert "average_class_size" in res.skipped and "k=" in res.skipped["average_class_size"]
    assert "classification_metric" in res.skipped
    assert "height" in res.skipped and "tree_measure" in res.skipped and "precision" in res.skipped
    assert res["gcp"] == pytest.approx(0.4005376344, abs=1e-10)
    res = M.compute(rel, ["gcp", "average_class_size"], k=2)
    assert set(res) == {"gcp", "average_class_size"} and not res.skipped
    with pytest.raises(MeasureUnavailable, match="height is defined for full-domain"):
        M.compute(rel, ["height"], strict=True)
    with pytest.raises(InvalidParameterError, match="Did you mean 'normalize'"):
        M.compute(rel, normalise=True)
    with pytest.raises(InvalidParameterError, match="Unknown measure 'lm'"):
        M.compute(rel, ["lm"])
    with pytest.raises(InvalidParameterError, match="'k' parameter of average_class_size"):
        M.average_class_size(rel, k=0)
    rows = M.describe()
    assert [r["name"] for r in rows] == list(M.MEASURES)
    assert all(r["summary"] and r["reference"] for r in rows)
    assert next(r for r in rows if r["name"] == "precision")["better"] == "higher"
    for f in M.MEASURES.values():
        assert f.__doc__ and "uppress" in f.__doc__  # every docstring states the suppression choice


def test_published_release_without_source():
    """A release read back from a file has no link to input rows: measures needing the
    original records are unavailable, and compute() skips them; non_uniform_entropy needs
    no link (each record's -log2 N_j(value) is paid once whatever row it went to), so it is
    the linked value, in any row order."""
    ds, rel = _freeform()
    pub = Release(ds, rel.lo, rel.hi, rel.suppressed, source=None, recoding="freeform")
    assert M.non_uniform_entropy(pub) == pytest.approx(M.non_uniform_entropy(rel))
    assert M.non_uniform_entropy(pub, normalize=True) == pytest.approx(M.non_uniform_entropy(rel, normalize=True))
    order = np.random.default_rng(0).permutation(rel.n)
    shuffled = Release(ds, rel.lo[order], rel.hi[order], rel.suppressed[order], source=None, recoding="freeform")
    assert M.non_uniform_entropy(shuffled) == pytest.approx(M.non_uniform_entropy(rel))
    res = M.compute(pub, ["gcp", "non_uniform_entropy", "kl_divergence", "perimeter"], tight=True)
    assert set(res.skipped) == {"perimeter"}
    assert res["gcp"] == pytest.approx(M.gcp(rel)) and res["kl_divergence"] == pytest.approx(M.kl_divergence(rel))


def test_all_suppressed_average_class_size_is_inf():
    ds, _ = _freeform()
    rel = Release.build(ds, ds.X, ds.X, suppressed=np.ones(ds.n, dtype=bool))
    assert M.average_class_size(rel, k=2) == math.inf
    assert M.loss_metric(rel) == 1.0 and M.gcp(rel) == 1.0
    assert M.discernibility(rel) == ds.n**2


# ----------------------------------------------------------------------------- hypothesis properties


@st.composite
def _hierarchy(draw, m: int, name: str, allow_ordered: bool = True):
    """A random hierarchy over 0..m-1: ordered, or a random laminar tree of contiguous groups."""
    if allow_ordered and draw(st.booleans()):
        return Hierarchy.ordered(list(range(m)), name=name)
    subsets = []

    def split(a: int, b: int, depth: int) -> None:  # [a, b)
        if b - a < 2 or depth > 3:
            return
        n_cuts = draw(st.integers(0, min(3, b - a - 1)))
        cuts = sorted(draw(st.sets(st.integers(a + 1, b - 1), min_size=n_cuts, max_size=n_cuts)))
        bounds = [a] + cuts + [b]
        for lo, hi in zip(bounds[:-1], bounds[1:]):
            if hi - lo < b - a:
                subsets.append(list(range(lo, hi)))
            split(lo, hi, depth + 1)

    split(0, m, 0)
    return Hierarchy.from_subsets(list(range(m)), subsets, name=name)


@st.composite
def _table(draw, allow_ordered: bool = True):
    r = draw(st.integers(1, 3))
    n = draw(st.integers(1, 12))
    cols, hier = {}, {}
    for j in range(r):
        m = draw(st.integers(1, 6))
        name = f"q{j}"
        hier[name] = draw(_hierarchy(m, name, allow_ordered))
        cols[name] = draw(st.lists(st.integers(0, m - 1), min_size=n, max_size=n))
    ds = Dataset(pd.DataFrame(cols), quasi_identifiers=list(cols), hierarchies=hier)
    seed = draw(st.integers(0, 2**32 - 1))
    return ds, np.random.default_rng(seed)


def _random_cells(ds: Dataset, rng: np.random.Generator):
    """A random generalization (tree: random ancestor; ordered: random interval), plus the
    ancestor step used, so it can be coarsened."""
    n, r = ds.X.shape
    lo = np.empty((n, r), dtype=np.int64)
    hi = np.empty((n, r), dtype=np.int64)
    step = np.zeros((n, r), dtype=np.int64)
    for j, h in enumerate(ds.hierarchies):
        x = ds.X[:, j]
        if h.is_tree:
            step[:, j] = rng.integers(0, h.height + 1, size=n)
            node = h._anc[x, step[:, j]]
            lo[:, j], hi[:, j] = h.node_lo[node], h.node_hi[node]
        else:
            lo[:, j] = rng.integers(0, x + 1)
            hi[:, j] = rng.integers(x, h.size)
    return lo, hi, step


def _coarsen(ds: Dataset, lo, hi, step, rng):
    lo2, hi2 = lo.copy(), hi.copy()
    n = len(lo)
    for j, h in enumerate(ds.hierarchies):
        x = ds.X[:, j]
        if h.is_tree:
            up = step[:, j] + rng.integers(0, h.height + 1, size=n)
            node = h._anc[x, np.minimum(up, h.height)]
            lo2[:, j], hi2[:, j] = h.node_lo[node], h.node_hi[node]
        else:
            lo2[:, j] = rng.integers(0, lo[:, j] + 1)
            hi2[:, j] = rng.integers(hi[:, j], h.size)
    return lo2, hi2


MONOTONE = ["loss_metric", "monotone_entropy", "non_uniform_entropy", "gcp", "ncp", "perimeter"]  # not KL: a wider box can move mass onto other records


@settings(max_examples=60, deadline=None)
@given(_table())
def test_bounds_identity_and_full_suppression(data):
    ds, rng = data
    lo, hi, _ = _random_cells(ds, rng)
    rel = Release.build(ds, lo, hi)
    for v in (M.loss_metric(rel), M.gcp(rel), M.gcp(rel, numeric_range="domain"), M.gcp(rel, numeric=[])):
        assert -1e-12 <= v <= 1 + 1e-12
    if all(h.is_tree for h in ds.hierarchies):
        assert 0 <= M.precision(rel) <= 1
        assert M.tree_measure(rel, normalize=True) == pytest.approx(1 - M.precision(rel))
    me, e = M.monotone_entropy_cells(ds, lo, hi), M.entropy_cells(ds, lo, hi)
    assert (me <= e + 1e-9).all()
    trivial = (lo == hi) | ((lo == 0) & (hi == (ds.domain_sizes - 1)[None, :]))
    np.testing.assert_allclose(me[trivial], e[trivial], atol=1e-9)
    ident = Release.build(ds, ds.X, ds.X)
    for name in ("loss_metric", "entropy", "monotone_entropy", "non_uniform_entropy", "ncp", "gcp",
                 "perimeter", "kl_divergence"):
        assert M.MEASURES[name](ident) == 0.0, name
    assert M.discernibility(ident) == pytest.approx(float((np.unique(ds.X, axis=0, return_counts=True)[1] ** 2).sum()))
    allsup = Release.build(ds, ds.X, ds.X, suppressed=np.ones(ds.n, dtype=bool))
    nontrivial = (ds.domain_sizes > 1).mean()
    assert M.loss_metric(allsup) == pytest.approx(nontrivial)
    p = [np.bincount(ds.X[:, j], minlength=h.size) / ds.n for j, h in enumerate(ds.hierarchies)]
    h_tot = sum(float(-(q[q > 0] * np.log2(q[q > 0])).sum()) for q in p)
    for name in ("entropy", "monotone_entropy", "non_uniform_entropy"):
        assert M.MEASURES[name](allsup) == pytest.approx(ds.n * h_tot, abs=1e-9)
    assert M.discernibility(allsup) == ds.n**2


@settings(max_examples=60, deadline=None)
@given(_table())
def test_monotone_measures_under_further_generalization(data):
    ds, rng = data
    lo, hi, step = _random_cells(ds, rng)
    lo2, hi2 = _coarsen(ds, lo, hi, step, rng)
    assert ((lo2 <= lo) & (hi2 >= hi)).all()
    sup = rng.random(ds.n) < 0.2
    g = Release.build(ds, lo, hi)
    g2 = Release.build(ds, lo2, hi2, suppressed=sup)
    for name in MONOTONE:
        assert M.MEASURES[name](g) <= M.MEASURES[name](g2) + 1e-9, name
    if all(h.is_tree for h in ds.hierarchies):
        assert M.tree_measure(g) <= M.tree_measure(g2) + 1e-12
        assert M.precision(g) >= M.precision(g2) - 1e-12
    # per-cell: the cost of every cell does not decrease either
    for cells in (M.loss_metric_cells, M.monotone_entropy_cells):
        assert (cells(ds, lo, hi) <= cells(ds, g2.lo[np.argsort(g2.source)], g2.hi[np.argsort(g2.source)]) + 1e-9).all()


@settings(max_examples=40, deadline=None)
@given(_table())
def test_lemma_413_entropy_equals_non_uniform_under_global_recoding(data):
    """Cells of each column pairwise equal or disjoint ⇒ Π_e = Π_ne (Lemma 4.13)."""
    ds, rng = data
    lo = np.empty_like(ds.X)
    hi = np.empty_like(ds.X)
    for j, h in enumerate(ds.hierarchies):
        x = ds.X[:, j]
        if h.is_tree:  # cut at a random depth: ancestor at depth min(d, leaf depth)
            d = int(rng.integers(0, h.height + 1))
            t = np.maximum(h.leaf_depth[x] - d, 0)
            node = h._anc[x, t]
            lo[:, j], hi[:, j] = h.node_lo[node], h.node_hi[node]
        else:  # a random partition of the ordered domain into intervals
            cuts = np.flatnonzero(rng.random(h.size - 1) < 0.5) + 1
            s = np.concatenate([[0], cuts])
            pos = np.searchsorted(s, x, side="right") - 1
            lo[:, j] = s[pos]
            hi[:, j] = np.append(s[1:] - 1, h.size - 1)[pos]
    rel = Release.build(ds, lo, hi)
    assert M.entropy(rel) == pytest.approx(M.non_uniform_entropy(rel), abs=1e-9)


@settings(max_examples=40, deadline=None)
@given(_table())
def test_kl_matches_brute_force_and_cells_sum(data):
    ds, rng = data
    lo, hi, _ = _random_cells(ds, rng)
    sup = rng.random(ds.n) < 0.2
    rel = Release.build(ds, lo, hi, suppressed=sup)
    # brute force over the small fixture: Q(x) = (1/N) Σ_rows [x in box] / vol(box)
    vol = np.prod(rel.hi - rel.lo + 1, axis=1).astype(float)
    pts, cnt = np.unique(ds.X, axis=0, return_counts=True)
    inside = ((rel.lo[None] <= pts[:, None]) & (pts[:, None] <= rel.hi[None])).all(axis=2)
    q = (inside / vol[None]).sum(axis=1) / rel.n
    p = cnt / ds.n
    assert M.kl_divergence(rel) == pytest.approx(max(float((p * np.log2(p / q)).sum()), 0.0), abs=1e-9)
    assert M.entropy(rel) == pytest.approx(M.entropy_cells(ds, rel.lo, rel.hi).sum())
    assert M.loss_metric(rel) == pytest.approx(M.loss_metric_cells(ds, rel.lo, rel.hi).mean())
    assert M.entropy(rel, normalize=True) == pytest.approx(M.entropy(rel) / (ds.n * ds.r))


def test_tree_measure_unbalanced_choice_and_errors():
    # unbalanced: {0,1} under the root, {0} and {1} leaves; 2 directly under the root
    ds = _one_column([0, 1, 2], [[0, 1]])
    h = ds.hierarchies[0]
    assert not h.uniform and h.height == 2
    rel = Release.build(ds, np.array([[0], [0], [2]]), np.array([[1], [1], [2]]))
    # node {0,1} has height 1 over root height 2; leaf 2 costs 0
    assert M.tree_measure(rel) == pytest.approx(0.5 + 0.5 + 0.0)
    with pytest.raises(MeasureUnavailable, match="not a node"):
        M.tree_measure(Release.build(ds, np.array([[0], [1], [1]]), np.array([[0], [2], [2]])))
    ds2 = _freeform()[0]
    with pytest.raises(MeasureUnavailable, match="needs a hierarchy for 'age'"):
        M.tree_measure(Release.build(ds2, ds2.X, ds2.X))
