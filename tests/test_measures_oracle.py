"""Every information-loss measure against a pure-Python re-computation from its definition.

The oracles below share no code with ``ktype.measures``: they loop over released rows and
cells (the inputs are tiny), count leaf frequencies with ``collections.Counter``, find a
cell's node height from the node intervals and leaf depths, and group classes by a dict
of boxes. Random tables mix ordered numeric columns, random laminar trees (numeric leaves
in or out of value order, text leaves), flat hierarchies and one-value domains; releases
mix local generalization, suppression and full-domain level vectors. Issue #9: these
properties kill the surviving mutants of ``measures/`` listed in docs/mutation.md.
"""

from __future__ import annotations

import itertools
import math
import warnings
from collections import Counter, defaultdict

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ktype import Dataset, Hierarchy, Release
from ktype import measures as M
from ktype.exceptions import InvalidParameterError
from ktype.measures import MeasureUnavailable


# ----------------------------------------------------------------------------- random releases
def _laminar(draw, m: int) -> list[list[int]]:
    """Random laminar family of contiguous position sets over range(m)."""
    subsets: list[list[int]] = []

    def split(a: int, b: int, depth: int) -> None:
        if b - a < 2 or depth > 2:
            return
        n_cuts = draw(st.integers(0, min(2, b - a - 1)))
        cuts = sorted(draw(st.sets(st.integers(a + 1, b - 1), min_size=n_cuts, max_size=n_cuts)))
        bounds = [a, *cuts, b]
        for lo, hi in zip(bounds[:-1], bounds[1:]):
            if hi - lo < b - a:
                subsets.append(list(range(lo, hi)))
            split(lo, hi, depth + 1)

    split(0, m, 0)
    return subsets


@st.composite
def _column(draw, name: str, kinds: tuple[str, ...] = ("ordered", "tree", "tree_unsorted", "tree_text", "flat",
                                                         "levels")):
    kind = draw(st.sampled_from(kinds))
    m = draw(st.integers(1, 5))
    if kind == "levels":  # uniform depth 2: value -> group (singleton groups repeat the value) -> *
        dom = [f"g{i}" for i in range(m)]
        cuts = draw(st.sets(st.integers(1, max(1, m - 1)), max_size=m - 1)) if m > 1 else set()
        group = np.cumsum([i in cuts for i in range(m)])
        return Hierarchy.from_table([[v, f"G{g}", "*"] for v, g in zip(dom, group)], name=name), dom
    if kind == "ordered":
        dom = sorted(draw(st.sets(st.integers(-20, 40), min_size=m, max_size=m)))
        return Hierarchy.ordered(dom, name=name), dom
    if kind == "flat":
        dom = [f"v{i}" for i in range(m)]
        return Hierarchy.flat(dom, name=name), dom
    if kind == "tree_text":
        dom = [f"t{i}" for i in range(m)]
    elif kind == "tree_unsorted":  # a taxonomy over numbers: leaves not in value order
        dom = draw(st.permutations([3 * i - 4 for i in range(m)]))
    else:
        dom = list(range(0, 2 * m, 2))
    subsets = [[dom[i] for i in s] for s in _laminar(draw, m)]
    return Hierarchy.from_subsets(dom, subsets, name=name), dom


@st.composite
def releases(draw, full_domain: bool | None = None):
    """A random dataset (QIs q0.., sensitive label y, insensitive z) and a release of it."""
    r = draw(st.integers(1, 3))
    n = draw(st.integers(1, 9))
    cols: dict[str, list] = {}
    hier: dict[str, Hierarchy] = {}
    for j in range(r):
        h, dom = draw(_column(f"q{j}") if not full_domain else _column(f"q{j}", ("flat", "levels")))
        hier[h.name] = h
        cols[h.name] = draw(st.lists(st.sampled_from(dom), min_size=n, max_size=n))
    cols["y"] = draw(st.lists(st.sampled_from("abc"), min_size=n, max_size=n))
    cols["z"] = draw(st.lists(st.sampled_from(["u", "w", None]), min_size=n, max_size=n))
    ds = Dataset(pd.DataFrame(cols), quasi_identifiers=list(hier), sensitive=["y"], insensitive=["z"],
                 hierarchies=hier)
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    X = ds.X
    lo, hi = X.astype(np.int64).copy(), X.astype(np.int64).copy()
    uniform = all(h.is_tree and h.uniform for h in ds.hierarchies)
    fd = uniform and draw(st.booleans()) if full_domain is None else full_domain and uniform
    levels = None
    for j, h in enumerate(ds.hierarchies):
        if fd:
            t = int(rng.integers(0, h.height + 1))
            levels = [*(levels or []), t]
            lo[:, j], hi[:, j] = h.level_intervals(t)[0][X[:, j]], h.level_intervals(t)[1][X[:, j]]
        elif h.is_tree:
            node = h._anc[X[:, j], rng.integers(0, h.height + 1, size=n)]
            lo[:, j], hi[:, j] = h.node_lo[node], h.node_hi[node]
        else:
            lo[:, j] = rng.integers(0, X[:, j] + 1)
            hi[:, j] = rng.integers(X[:, j], h.size)
    sup = rng.random(n) < draw(st.sampled_from([0.0, 0.3]))
    rel = Release.build(ds, lo, hi, suppressed=sup, recoding="full-domain" if fd else "local",
                        levels=levels)
    return ds, rel


# ----------------------------------------------------------------------------- the oracles
def _counts(ds: Dataset, j: int) -> Counter:
    return Counter(int(v) for v in ds.X[:, j])


def _rows(rel: Release):
    for i in range(rel.n):
        yield i, [(int(rel.lo[i, j]), int(rel.hi[i, j])) for j in range(rel.r)], bool(rel.suppressed[i])


def lm_oracle(rel: Release) -> float:
    sizes = [h.size for h in rel.dataset.hierarchies]
    cells = [(b - a) / (m - 1) if m > 1 else 0.0 for _, box, _ in _rows(rel) for (a, b), m in zip(box, sizes)]
    return sum(cells) / len(cells) if cells else 0.0


def _entropy_parts(ds: Dataset, j: int, a: int, b: int) -> tuple[int, float]:
    """N(B) and H(X_j | B) in bits, from the original column."""
    cnt = _counts(ds, j)
    nb = sum(cnt[v] for v in range(a, b + 1))
    if nb == 0 or a == b:
        return nb, 0.0
    return nb, -sum(cnt[v] / nb * math.log2(cnt[v] / nb) for v in range(a, b + 1) if cnt[v])


def entropy_oracle(rel: Release, kind: str) -> float:
    ds = rel.dataset
    total = 0.0
    for i, box, _ in _rows(rel):
        for j, (a, b) in enumerate(box):
            nb, h = _entropy_parts(ds, j, a, b)
            if kind == "entropy":
                total += h
            elif kind == "monotone_entropy":
                total += nb / ds.n * h
            elif a != b:  # non-uniform: log2 N(B) / N(value)
                x = int(ds.X[rel.source[i], j])
                total += math.log2(nb / _counts(ds, j)[x])
    return total


def _numeric_scale(h: Hierarchy, col: np.ndarray, numeric_range: str):
    """Leaf values and [L, U] of a numeric column, or None for a categorical one."""
    if not (h.numeric or h.value_type == "date"):
        return None
    vals = [float(v) for v in h.leaves]
    used = [vals[int(x)] for x in col] if numeric_range == "data" else vals
    return vals, min(used), max(used)


def ncp_oracle(rel: Release, numeric_range: str = "data", numeric: list[str] | None = None) -> list[float]:
    ds = rel.dataset
    out = []
    for _, box, _ in _rows(rel):
        for j, (a, b) in enumerate(box):
            h = ds.hierarchies[j]
            sc = _numeric_scale(h, ds.X[:, j], numeric_range)
            if numeric is not None and h.name not in numeric:
                sc = None
            if sc is None:
                out.append((b - a) / (h.size - 1) if h.size > 1 else 0.0)
                continue
            vals, L, U = sc
            inside = vals[a : b + 1]
            lo_v, hi_v = min(max(min(inside), L), U), min(max(max(inside), L), U)
            out.append((hi_v - lo_v) / (U - L) if U > L else 0.0)
    return out


def _classes(rel: Release) -> dict[tuple, list[int]]:
    groups: dict[tuple, list[int]] = defaultdict(list)
    for i, box, sup in _rows(rel):
        if not sup:
            groups[tuple(box)].append(i)
    return groups


def perimeter_tight_oracle(rel: Release) -> float:
    ds = rel.dataset
    scales = [_numeric_scale(h, ds.X[:, j], "data") for j, h in enumerate(ds.hierarchies)]
    scales = [sc if sc is not None else (list(range(h.size)), 0.0, float(h.size - 1))
              for sc, h in zip(scales, ds.hierarchies)]
    total = rel.n_suppressed * sum(1.0 for _, L, U in scales if U > L)
    for rows in _classes(rel).values():
        for j, (vals, L, U) in enumerate(scales):
            if U > L:
                v = [vals[int(ds.X[rel.source[i], j])] for i in rows]
                total += len(rows) * (max(v) - min(v)) / (U - L)
    return total


def _node_height(h: Hierarchy, a: int, b: int) -> int:
    """Longest path from the deepest node with leaves [a, b] down to a leaf."""
    nodes = [v for v in range(len(h.node_lo)) if h.node_lo[v] == a and h.node_hi[v] == b]
    v = max(nodes, key=lambda u: h.node_depth[u])
    leaf_depths = [int(h.node_depth[h.leaf_node[x]]) for x in range(a, b + 1)]
    return max(leaf_depths) - int(h.node_depth[v])


def tree_oracle(rel: Release) -> list[float]:
    ds = rel.dataset
    out = []
    for _, box, sup in _rows(rel):
        for j, (a, b) in enumerate(box):
            h = ds.hierarchies[j]
            root = max(int(h.node_depth[h.leaf_node[x]]) for x in range(h.size))  # the root's height
            if rel.recoding == "full-domain" and rel.levels is not None:
                level = h.height if sup else int(rel.levels[j])
                out.append(level / h.height if h.height else 0.0)
            else:
                out.append(_node_height(h, a, b) / root if root else 0.0)
    return out


def discernibility_oracle(rel: Release, k: int | None = None) -> float:
    big = rel.dataset.n
    total = big * rel.n_suppressed
    for rows in _classes(rel).values():
        total += big * len(rows) if k is not None and len(rows) < k else len(rows) ** 2
    return float(total)


def cm_oracle(rel: Release, label: str) -> float:
    if rel.n == 0:
        return 0.0
    ds = rel.dataset
    lab = [ds.data[label].iloc[int(s)] for s in rel.source]
    lab = ["<NA>" if v is None or (isinstance(v, float) and math.isnan(v)) else v for v in lab]
    pen = rel.n_suppressed
    for rows in _classes(rel).values():
        pen += len(rows) - max(Counter(lab[i] for i in rows).values())
    return pen / rel.n


# ----------------------------------------------------------------------------- the properties
@settings(max_examples=80, deadline=None)
@given(releases())
def test_every_measure_equals_its_definition(data):
    ds, rel = data
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a measure of a valid release warns about nothing
        cells = rel.n * rel.r
        assert M.loss_metric(rel) == pytest.approx(lm_oracle(rel), abs=1e-12)
        assert M.loss_metric_cells(ds, rel.lo, rel.hi).mean() == pytest.approx(lm_oracle(rel), abs=1e-12)
        for name in ("entropy", "monotone_entropy", "non_uniform_entropy"):
            want = entropy_oracle(rel, name)
            assert M.MEASURES[name](rel) == pytest.approx(want, abs=1e-9), name
            assert M.MEASURES[name](rel, normalize=True) == pytest.approx(want / cells, abs=1e-9), name
        for rng_ in ("data", "domain"):
            want = ncp_oracle(rel, rng_)
            assert M.ncp(rel, numeric_range=rng_) == pytest.approx(sum(want), abs=1e-9)
            assert M.gcp(rel, numeric_range=rng_) == pytest.approx(sum(want) / cells, abs=1e-12)
        assert M.gcp(rel, numeric=[]) == pytest.approx(sum(ncp_oracle(rel, "data", [])) / cells, abs=1e-12)
        assert M.perimeter(rel) == pytest.approx(sum(ncp_oracle(rel)), abs=1e-9)
        assert M.perimeter(rel, tight=True) == pytest.approx(perimeter_tight_oracle(rel), abs=1e-9)
        assert M.discernibility(rel) == discernibility_oracle(rel)
        for k in (1, 2, 3):
            assert M.discernibility(rel, suppress_below=k) == discernibility_oracle(rel, k)
            n_cls = len(_classes(rel))
            want = (rel.n - rel.n_suppressed) / n_cls / k if n_cls else math.inf
            assert M.average_class_size(rel, k=k) == pytest.approx(want)
        assert M.classification_metric(rel, label="y") == pytest.approx(cm_oracle(rel, "y"))
        assert M.classification_metric(rel, label="z") == pytest.approx(cm_oracle(rel, "z"))
        if all(h.is_tree for h in ds.hierarchies):
            want = tree_oracle(rel)
            assert M.tree_measure(rel) == pytest.approx(sum(want), abs=1e-12)
            assert M.tree_measure(rel, normalize=True) == pytest.approx(sum(want) / cells, abs=1e-12)
            assert M.precision(rel) == pytest.approx(1 - sum(want) / cells, abs=1e-12)
        else:
            with pytest.raises(MeasureUnavailable, match="needs a hierarchy for"):
                M.tree_measure(rel)
        if rel.recoding == "full-domain":
            assert M.height(rel) == float(sum(rel.levels))


@settings(max_examples=30, deadline=None)
@given(releases(full_domain=True))
def test_full_domain_releases_are_charged_by_their_levels(data):
    _, rel = data
    assert M.tree_measure(rel) == pytest.approx(sum(tree_oracle(rel)), abs=1e-12)


def test_tree_measure_of_a_full_domain_level_with_a_singleton_group():
    """A level-1 group of one value has the interval of its leaf; the full-domain release
    still charges it 1/height (its level), not 0 (the height of the deepest node)."""
    h = Hierarchy.from_table([["a", "ab", "*"], ["b", "ab", "*"], ["c", "c", "*"]], name="q")
    ds = Dataset(pd.DataFrame({"q": list("abc"), "y": list("xyx")}), quasi_identifiers=["q"], sensitive=["y"],
                 hierarchies={"q": h})
    lo, hi = h.level_intervals(1)
    rel = Release.build(ds, lo[ds.X], hi[ds.X], recoding="full-domain", levels=[1])
    assert M.tree_measure(rel) == pytest.approx(3 * 0.5)
    assert M.precision(rel) == pytest.approx(0.5)
    local = Release.build(ds, lo[ds.X], hi[ds.X], recoding="local")
    assert M.tree_measure(local) == pytest.approx(2 * 0.5)  # the singleton is its leaf


def test_cells_covering_no_original_value_cost_nothing():
    """entropy_cells and friends on a cell that holds no record of the original data (an
    ordered column whose middle values do not occur): 0, finite, no warning."""
    ds = Dataset(pd.DataFrame({"q": [0, 0, 3], "y": list("xyx")}), quasi_identifiers=["q"], sensitive=["y"],
                 hierarchies={"q": Hierarchy.ordered([0, 1, 2, 3], name="q")})
    lo, hi = np.array([[1], [0]]), np.array([[2], [3]])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        e = M.entropy_cells(ds, lo, hi)
        me = M.monotone_entropy_cells(ds, lo, hi)
    assert e[0, 0] == 0.0 and me[0, 0] == 0.0
    h = -(2 / 3 * math.log2(2 / 3) + 1 / 3 * math.log2(1 / 3))
    assert e[1, 0] == pytest.approx(h) and me[1, 0] == pytest.approx(h)


def test_empty_and_one_row_releases():
    ds = Dataset(pd.DataFrame({"q": [1, 5], "y": list("xy")}), quasi_identifiers=["q"], sensitive=["y"],
                 hierarchies={"q": Hierarchy.ordered([1, 5], name="q")})
    empty = Release.build(ds, np.zeros((0, 1)), np.zeros((0, 1)), source=np.zeros(0, dtype=int))
    for name in ("ncp", "gcp", "perimeter", "loss_metric", "entropy", "discernibility"):
        assert M.MEASURES[name](empty) == 0.0, name
    assert M.classification_metric(empty, label="y") == 0.0
    one = Release.build(ds, np.array([[0]]), np.array([[1]]), source=np.array([0]))
    assert M.gcp(one) == 1.0 and M.ncp(one) == 1.0 and M.loss_metric(one) == 1.0


def test_tree_measure_not_a_node_error_names_the_cell_and_row():
    h = Hierarchy.from_subsets([0, 1, 2], [[0, 1]], name="q")
    ds = Dataset(pd.DataFrame({"q": [0, 1, 2], "y": list("xyx")}), quasi_identifiers=["q"], sensitive=["y"],
                 hierarchies={"q": h})
    lo, hi = np.array([[0], [1], [2]]), np.array([[2], [2], [2]])  # the root (node 0), not a node, a leaf
    with pytest.raises(MeasureUnavailable, match=r"^Cell \[1, 2\] of 'q' \(row 1\) is not a node of its hierarchy; "
                                                r"the tree measure is defined for hierarchy nodes only\.$"):
        M.tree_cells(ds, lo, hi)


def test_a_one_node_hierarchy_costs_nothing():
    """A tree whose root is its only value (height 0) generalizes nothing: every cell costs 0,
    suppressed or not, local or full-domain, and no division by the zero height warns."""
    h = Hierarchy("q", "tree", ["a"], node_lo=[0], node_hi=[0], node_parent=[-1], node_depth=[0], node_label=["a"])
    flat = Hierarchy.flat(["u", "v"], name="p")
    ds = Dataset(pd.DataFrame({"q": ["a", "a", "a"], "p": ["u", "v", "u"], "y": list("xyx")}),
                 quasi_identifiers=["q", "p"], sensitive=["y"], hierarchies={"q": h, "p": flat})
    sup = [True, False, False]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        fd = Release.build(ds, ds.X, ds.X, suppressed=sup, recoding="full-domain", levels=[0, 0])
        assert M.tree_measure(fd) == 1.0  # the suppressed row's flat cell; its one-node cell costs 0
        local = Release.build(ds, ds.X, ds.X, suppressed=sup)
        assert M.tree_measure(local) == 1.0
        assert M.precision(local) == pytest.approx(1 - 1 / 6)


@settings(max_examples=40, deadline=None)
@given(st.data())
def test_ncp_of_freeform_value_sets_counts_the_set(data):
    """A categorical column published as a value set costs (|set| - 1) / (|A| - 1) (freeform
    paper Eq. 2), not its hull; a numeric range column costs its value range."""
    from ktype.freeform_release import FreeformRelease, range_columns

    n = data.draw(st.integers(1, 6))
    m_t, m_n = data.draw(st.integers(1, 5)), data.draw(st.integers(1, 5))
    tdom = [f"t{i}" for i in range(m_t)]
    ndom = sorted(data.draw(st.sets(st.integers(0, 30), min_size=m_n, max_size=m_n)))
    df = pd.DataFrame({"c": data.draw(st.lists(st.sampled_from(tdom), min_size=n, max_size=n)),
                       "x": data.draw(st.lists(st.sampled_from(ndom), min_size=n, max_size=n)),
                       "y": ["s"] * n})
    ds = Dataset(df, quasi_identifiers=["c", "x"], sensitive=["y"],
                 hierarchies={"c": Hierarchy.flat(tdom, name="c"), "x": Hierarchy.ordered(ndom, name="x")})
    assert range_columns(ds).tolist() == [False, True]
    X = ds.X
    member = np.zeros((n, m_t), dtype=bool)
    member[np.arange(n), X[:, 0]] = True
    member |= np.asarray(data.draw(st.lists(st.lists(st.booleans(), min_size=m_t, max_size=m_t),
                                            min_size=n, max_size=n)), dtype=bool)
    lo, hi = X.copy(), X.copy()
    lo[:, 0] = member.argmax(axis=1)
    hi[:, 0] = m_t - 1 - member[:, ::-1].argmax(axis=1)
    lo[:, 1] = [data.draw(st.integers(0, int(v))) for v in X[:, 1]]
    hi[:, 1] = [data.draw(st.integers(int(v), m_n - 1)) for v in X[:, 1]]
    rel = FreeformRelease.from_cells(ds, lo, hi, {0: member}, source=np.arange(n))
    vals = np.asarray(ndom, dtype=float)
    L, U = vals[X[:, 1]].min(), vals[X[:, 1]].max()  # the data range; cells are clipped to it
    span = U - L
    want = 0.0
    for t in range(n):  # per published row, in release order
        want += (rel.value_sets[0][t].sum() - 1) / (m_t - 1) if m_t > 1 else 0.0
        want += (min(vals[rel.cell_hi[t, 1]], U) - max(vals[rel.cell_lo[t, 1]], L)) / span if span > 0 else 0.0
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert M.ncp(rel) == pytest.approx(want, abs=1e-12)
        assert M.gcp(rel) == pytest.approx(want / (2 * n), abs=1e-12)


def test_kl_divergence_edges_and_base():
    """KL is infinite when some original tuple is covered by no released row (an empty release,
    or one that releases a subset); ``base`` must be a positive number other than 1."""
    ds = Dataset(pd.DataFrame({"q": [1, 2, 3, 3], "y": list("xyxy")}), quasi_identifiers=["q"], sensitive=["y"],
                 hierarchies={"q": Hierarchy.ordered([1, 2, 3], name="q")})
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        empty = Release.build(ds, np.zeros((0, 1)), np.zeros((0, 1)), source=np.zeros(0, dtype=int))
        assert M.kl_divergence(empty) == math.inf
        subset = Release.build(ds, ds.X[:3], ds.X[:3], source=np.arange(3))  # value 3 once instead of twice
        assert 0 < M.kl_divergence(subset) < math.inf
        missing = Release.build(ds, ds.X[:2], ds.X[:2], source=np.arange(2))  # value 3 not covered
        assert M.kl_divergence(missing) == math.inf
        ident = Release.build(ds, ds.X, ds.X)
        assert M.kl_divergence(ident) == 0.0
        wide = Release.build(ds, np.zeros((4, 1)), np.full((4, 1), 2))
        bits = M.kl_divergence(wide)
        assert bits == pytest.approx(sum(p * math.log2(p / (1 / 3)) for p in (0.25, 0.25, 0.5)))
        assert M.kl_divergence(wide, base=math.e) == pytest.approx(bits * math.log(2))
        assert M.kl_divergence(wide, base=4) == pytest.approx(bits / 2)
        assert M.kl_divergence(wide, base=0.5) == 0.0  # a base below 1 turns the sign: clipped at 0
    for bad in (True, 1, 1.0, 0, -2.0, "2"):
        with pytest.raises(InvalidParameterError, match="^The 'base' parameter of kl_divergence must be a positive"):
            M.kl_divergence(wide, base=bad)


def test_cell_and_option_errors_name_what_to_fix():
    ds = Dataset(pd.DataFrame({"q": [1, 2], "p": [0, 1], "y": list("xy")}), quasi_identifiers=["q", "p"],
                 sensitive=["y"])
    for cells in (M.loss_metric_cells, M.entropy_cells, M.monotone_entropy_cells, M.ncp_cells):
        with pytest.raises(InvalidParameterError,
                           match=r"^lo and hi must both have shape \(n, 2\) for this dataset; got \(2, 1\) and \(2, 1\)\.$"):
            cells(ds, np.zeros((2, 1)), np.zeros((2, 1)))
        with pytest.raises(InvalidParameterError, match=r"got \(2, 2\) and \(1, 2\)"):
            cells(ds, np.zeros((2, 2)), np.zeros((1, 2)))
        with pytest.raises(InvalidParameterError, match=r"got \(2,\) and \(2,\)"):
            cells(ds, np.zeros(2), np.zeros(2))
    rel = Release.build(ds, ds.X, ds.X)
    for name in ("ncp", "gcp"):
        with pytest.raises(InvalidParameterError,
                           match="^The 'numeric_range' parameter must be one of 'data', 'domain'. Got 'range' instead.$"):
            M.MEASURES[name](rel, numeric_range="range")


def test_level_vector_of_the_wrong_length_is_refused():
    h = Hierarchy.flat(["a", "b"], name="q")
    ds = Dataset(pd.DataFrame({"q": ["a", "b"], "y": list("xy")}), quasi_identifiers=["q"], sensitive=["y"],
                 hierarchies={"q": h})
    rel = Release.build(ds, ds.X, ds.X, recoding="full-domain", levels=[0, 1])
    for name in ("tree_measure", "precision"):
        with pytest.raises(MeasureUnavailable, match=r"^The release has 2 levels for 1 quasi-identifiers\.$"):
            M.MEASURES[name](rel)


def test_range_query_workload_defaults_and_refusals():
    from ktype.measures.range_query import range_query_error, range_query_workload

    df = pd.DataFrame({"a": [0, 1, 2, 3], "b": [0, 0, 1, 1], "y": list("xyxy"), "z": list("uuvv")})
    ds = Dataset(df, quasi_identifiers=["a", "b"], sensitive=["y"], insensitive=["z"])
    wl = range_query_workload(ds, queries=5)
    assert wl.qd == 3 and wl.selectivity == 0.06 and wl.qis.shape == (5, 2)  # qd = min(5, d + 1)
    with pytest.raises(InvalidParameterError, match=r"^qd must be an integer in \[2, 3\] \(the sensitive attribute plus "
                                                    r"qd-1 of the 2 QIs\); got 4\.$"):
        range_query_workload(ds, qd=4)
    wide = Dataset(pd.DataFrame({f"q{i}": [0, 1, 0, 1] for i in range(6)} | {"y": list("xyxy")}),
                   quasi_identifiers=[f"q{i}" for i in range(6)], sensitive=["y"])
    assert range_query_workload(wide, queries=2).qd == 5
    two = Dataset(df, quasi_identifiers=["a", "b"], sensitive=["y", "z"])
    with pytest.raises(MeasureUnavailable, match="^range_query_error needs exactly one sensitive attribute$"):
        range_query_error(Release.build(two, two.X, two.X))


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(1, 60), r=st.integers(1, 4))
def test_kl_box_mass_equals_a_box_by_box_sum_for_every_index(seed, n, r):
    """The mass of each point (the weights of the boxes holding it) is the same whichever columns
    index the boxes (one, two or three, in any order, and the ones the measure picks), and equals
    the sum over every box tested one by one; the index's count of boxes covering each point on
    its columns equals a recount."""
    from ktype.measures import kl

    rng = np.random.default_rng(seed)
    sizes = rng.integers(1, 7, r)
    points = np.stack([rng.integers(0, m, n) for m in sizes], axis=1).astype(np.int64)
    nb = int(rng.integers(1, 30))
    a = np.stack([rng.integers(0, m, nb) for m in sizes], axis=1)
    b = np.stack([rng.integers(0, m, nb) for m in sizes], axis=1)
    blo, bhi = np.minimum(a, b).astype(np.int64), np.maximum(a, b).astype(np.int64)
    w = rng.random(nb)
    inside = ((blo[None] <= points[:, None]) & (points[:, None] <= bhi[None])).all(axis=2)
    want = np.array([sum(w[j] for j in np.flatnonzero(row)) for row in inside])  # box by box, in box order
    picked = kl._index_columns(points, blo, bhi, sizes)
    assert 1 <= len(picked) <= r and len(set(picked)) == len(picked)
    for cols in [picked, *itertools.chain.from_iterable(itertools.permutations(range(r), d) for d in (1, 2, 3))]:
        got = kl._box_mass(points, blo, bhi, w, np.asarray(cols, dtype=np.int64), sizes[list(cols)].astype(np.int64))
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=0)
        cover = kl._cover(points, blo, bhi, list(cols), [int(sizes[c]) for c in cols])
        np.testing.assert_array_equal(cover, ((blo[None, :, list(cols)] <= points[:, None, list(cols)])
                                              & (points[:, None, list(cols)] <= bhi[None, :, list(cols)])).all(axis=2).sum(1))
