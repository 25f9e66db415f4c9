"""Tests of :class:`ktype.data.hierarchy.Hierarchy`: builders, DFS contiguity, closure, export."""

from __future__ import annotations

import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ktype.data.hierarchy import Hierarchy
from ktype.exceptions import HierarchyError
from ktype.testing import repo_data

ADULT_H = sorted(repo_data.dataset_dir("adult").glob("adult_hierarchy_*.csv"))  # the bundled copy
FARS_H = sorted(repo_data.dataset_dir("fars").glob("fars_int_hierarchy_*.csv"))  # data/fars


# ---------------------------------------------------------------------------- helpers
def subtree_leaf_ranks(h: Hierarchy) -> list[set[int]]:
    """Leaf ranks below each node, computed from parent pointers only (not lo/hi)."""
    below: list[set[int]] = [set() for _ in range(len(h.node_lo))]
    for rank in range(h.size):
        node = int(h.leaf_node[rank])
        while node >= 0:
            below[node].add(rank)
            node = int(h.node_parent[node])
    return below


def ancestors(h: Hierarchy, node: int) -> list[int]:
    out = []
    while node >= 0:
        out.append(node)
        node = int(h.node_parent[node])
    return out


def assert_dfs_contiguous(h: Hierarchy) -> None:
    for node, ranks in enumerate(subtree_leaf_ranks(h)):
        assert ranks, f"node {node} has no leaves"
        assert ranks == set(range(int(h.node_lo[node]), int(h.node_hi[node]) + 1)), (
            f"node {node} ({h.node_label[node]!r}) covers {sorted(ranks)} but claims "
            f"[{h.node_lo[node]}, {h.node_hi[node]}]"
        )


def read_arx(path: Path) -> pd.DataFrame:
    return pd.read_csv(path, sep=";", header=None, dtype=str, keep_default_na=False)


@st.composite
def random_laminar(draw, max_leaves: int = 14):
    """A random domain (in random order) and a random laminar family over it."""
    m = draw(st.integers(1, max_leaves))
    domain = [f"v{i}" for i in range(m)]
    perm = draw(st.permutations(domain))
    subsets: list[list[str]] = []

    def split(items: list[str], depth: int) -> None:
        if len(items) <= 1 or depth > 4:
            return
        n_parts = draw(st.integers(1, min(4, len(items))))
        cuts = sorted(draw(st.lists(st.integers(1, len(items) - 1), min_size=n_parts - 1, max_size=n_parts - 1, unique=True))) if n_parts > 1 and len(items) > 1 else []
        bounds = [0, *cuts, len(items)]
        for a, b in zip(bounds[:-1], bounds[1:]):
            part = items[a:b]
            if 1 < len(part) < len(items):
                subsets.append(part)
            split(part, depth + 1)

    split(list(perm), 0)
    order = draw(st.permutations(list(range(len(subsets))))) if subsets else []
    return domain, [subsets[i] for i in order]


# ---------------------------------------------------------------------------- ARX CSV builder
@pytest.mark.parametrize("path", ADULT_H + FARS_H, ids=lambda p: p.stem)
def test_arx_csv_all_shared_hierarchies(path):
    """Every ARX hierarchy of adult and fars loads, is contiguous and uniform, and matches the file."""
    assert len(ADULT_H) == 9 and len(FARS_H) == 8
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        h = Hierarchy.from_arx_csv(path)
    table = read_arx(path).drop_duplicates()
    assert h.name == path.stem.split("hierarchy_")[-1]
    assert h.kind == "tree" and h.uniform
    assert h.size == len(table)
    assert h.height == table.shape[1] - 1
    assert sorted(map(str, h.leaves)) == sorted(table[0].str.strip())
    assert_dfs_contiguous(h)
    # every value's ancestor at level L carries the label of column L of the file
    by_value = table.set_index(0)
    for level in range(h.height + 1):
        nodes = h.level_nodes(level)
        got = [h.node_label[n] for n in nodes]
        want = by_value.loc[[str(v) for v in h.leaves], level].str.strip().tolist() if level else [str(v) for v in h.leaves]
        assert got == want


def test_arx_fars_iage_duplicate_row_warns():
    with pytest.warns(UserWarning, match=r"'iage': dropped 1 exact duplicate row.*'99'"):
        h = Hierarchy.from_arx_csv(repo_data.hierarchy_file("fars", "fars_int", "iage"))
    assert h.size == 99
    assert "98" not in h.leaves and "99" in h.leaves


def test_arx_adult_data_fully_covered():
    df = repo_data.read_csv("adult", "adult.csv", sep=";", dtype=str)
    for path in ADULT_H:
        h = Hierarchy.from_arx_csv(path)
        ranks = h.encode(df[h.name])
        assert ranks.dtype == np.int32 and ranks.min() >= 0 and ranks.max() < h.size


def test_from_table_value_with_two_generalizations():
    t = [["a", "g1", "*"], ["b", "g1", "*"], ["a", "g2", "*"]]
    with pytest.raises(HierarchyError, match=r"'x' lists value 'a' twice with different generalizations"):
        Hierarchy.from_table(t, name="x")


def test_from_table_two_roots():
    with pytest.raises(HierarchyError, match=r"single root.*found 2"):
        Hierarchy.from_table([["a", "r1"], ["b", "r2"]], name="x")


def test_from_table_one_column():
    with pytest.raises(HierarchyError, match=r"at least two columns"):
        Hierarchy.from_table([["a"], ["b"]], name="x")


def test_from_table_groups_scattered_rows_contiguously():
    t = [["a", "g1", "*"], ["c", "g2", "*"], ["b", "g1", "*"], ["d", "g2", "*"]]
    h = Hierarchy.from_table(t, name="x")
    assert h.leaves == ["a", "b", "c", "d"]
    assert_dfs_contiguous(h)


def test_arx_csv_missing_file(tmp_path):
    with pytest.raises(HierarchyError, match=r"Hierarchy file for 'zip' not found"):
        Hierarchy.from_arx_csv(tmp_path / "nope.csv", name="zip")


def test_arx_csv_malformed_too_many_fields(tmp_path):
    p = tmp_path / "h.csv"
    p.write_text("a;g;*\nb;g;*\nc;g;x;*;y\n")
    with pytest.raises(HierarchyError, match=r"is malformed"):
        Hierarchy.from_arx_csv(p, name="x")


def test_arx_csv_empty_file(tmp_path):
    p = tmp_path / "h.csv"
    p.write_text("")
    with pytest.raises(HierarchyError, match=r"malformed"):
        Hierarchy.from_arx_csv(p, name="x")


def test_arx_csv_ragged_rows_refused(tmp_path):
    p = tmp_path / "h.csv"
    p.write_text("a;g;*\nb;*\n")
    with pytest.raises(HierarchyError, match=r"empty cell at row 2.*ragged rows are not allowed"):
        Hierarchy.from_arx_csv(p, name="x")


# ---------------------------------------------------------------------------- intervals
def test_intervals_widths_labels():
    h = Hierarchy.intervals(range(17, 91), [5, 10, 20], name="age")
    assert h.numeric and h.uniform and h.height == 4
    assert_dfs_contiguous(h)
    r = h.rank_of(33)
    assert [h.label_interval(r, r, level=lev) for lev in range(5)] == ["33", "[30-34]", "[30-39]", "[20-39]", "*"]
    lo, hi = h.level_intervals(2)
    assert h.leaves[lo[r]] == 30 and h.leaves[hi[r]] == 39
    assert h.labels(lo[r : r + 1], hi[r : r + 1]) == ["[30-39]"]
    # leaves in numeric order
    assert h.leaves == list(range(17, 91))


def test_intervals_cut_points_and_coding():
    h = Hierarchy.intervals(range(0, 100), [[20, 40, 60, 80], [40, 80]], name="age", bottom=10, top=90)
    lab = {v: h.label_interval(h.rank_of(v), h.rank_of(v), level=1) for v in (5, 15, 25, 85, 95)}
    assert lab == {5: "<10", 15: "[10-19]", 25: "[20-39]", 85: "[80-89]", 95: ">=90"}
    lab2 = {v: h.label_interval(h.rank_of(v), h.rank_of(v), level=2) for v in (5, 15, 45, 85, 95)}
    assert lab2 == {5: "<10", 15: "[10-39]", 45: "[40-79]", 85: "[80-89]", 95: ">=90"}
    assert_dfs_contiguous(h)


def test_intervals_non_coarsening_levels():
    with pytest.raises(HierarchyError, match=r"level 2 splits a group of level 1"):
        Hierarchy.intervals(range(30), [10, 15], name="age")


def test_intervals_bad_width_and_values():
    with pytest.raises(HierarchyError, match=r"width 0 at level 1 must be > 0"):
        Hierarchy.intervals(range(10), [0], name="age")
    with pytest.raises(HierarchyError, match=r"'age' needs numeric values"):
        Hierarchy.intervals(["a", "b"], [5], name="age")
    with pytest.raises(HierarchyError, match=r"at least one level"):
        Hierarchy.intervals(range(10), [], name="age")


def test_numeric_hierarchy_non_numeric_value():
    h = Hierarchy.intervals(range(10), [5], name="age")
    with pytest.raises(HierarchyError, match=r"'age' is numeric but value 'x' \(row 2\) is not a number"):
        h.encode([1, 2, "x"])


def test_absent_value_message_shows_plain_number():
    """BUG (core): ``encode`` formats the bad value with ``repr`` of a numpy scalar, so the message
    reads ``value np.int64(42)`` instead of ``value 42``. Fix: ``.item()`` numpy scalars first."""
    h = Hierarchy.intervals(range(10), [5], name="age")
    with pytest.raises(HierarchyError, match=r"'age' has no entry for value 42 \(row 1\)"):
        h.encode(pd.Series([1, 42]))


# ---------------------------------------------------------------------------- masking
def test_masking_zip():
    h = Hierarchy.masking([94142, 94139, 94305, 10001], name="zip", levels=[1, 2, 5])
    r = h.rank_of("94142")
    assert [h.label_interval(r, r, level=lev) for lev in range(4)] == ["94142", "9414*", "941**", "*"]
    assert h.uniform and h.height == 3
    assert_dfs_contiguous(h)
    # 94139 and 94142 share 941** but not 9414*
    a, b = h.rank_of(94139), h.rank_of(94142)
    lo, hi = h.closure(np.array([min(a, b)]), np.array([max(a, b)]))
    assert h.labels(lo, hi) == ["941**"]


def test_masking_default_levels_and_errors():
    h = Hierarchy.masking(["123", "124", "456"], name="code")
    assert h.height == 3  # 12*, 1**, *
    with pytest.raises(HierarchyError, match=r"one length; found lengths \[2, 3\]"):
        Hierarchy.masking(["12", "123"], name="code")
    with pytest.raises(HierarchyError, match=r"levels must increase within 1\.\.3"):
        Hierarchy.masking(["123"], name="code", levels=[2, 1])


def test_masking_keeps_leading_zeros():
    """BUG (core): ``masking`` runs values through ``_sorted_unique``, which turns the strings
    ``'02139'`` into the number 2139, so padded ZIP codes fail the one-length check."""
    h = Hierarchy.masking(["02139", "94142"], name="zip", levels=[1, 2])
    assert h.leaves == ["02139", "94142"]
    r = h.rank_of("02139")
    assert h.label_interval(r, r, level=1) == "0213*"


def test_flat_keeps_string_codes():
    """BUG (core): ``flat``/``ordered`` of string codes convert them to numbers, so the label of
    ``'02139'`` becomes ``'2139'`` (the published value is wrong)."""
    h = Hierarchy.flat(["02139", "94142"], name="zip")
    r = h.rank_of("02139")
    assert h.label_interval(r, r) == "02139"


# ---------------------------------------------------------------------------- subsets
def test_from_subsets_artificial_a6_ragged():
    dom = ["a1", "a2", "a3", "a4", "a5"]
    h = Hierarchy.from_subsets(dom, [["a1", "a2"], ["a4", "a5"], ["a3", "a4", "a5"]], name="A6")
    assert not h.uniform and h.height == 3
    assert sorted(h.leaf_depth.tolist()) == [2, 2, 2, 3, 3]
    assert h.leaf_depth[h.rank_of("a4")] == 3 and h.leaf_depth[h.rank_of("a1")] == 2
    assert_dfs_contiguous(h)
    with pytest.raises(HierarchyError, match=r"'A6' is ragged \(leaves at depths \[2, 3\]\).*same depth"):
        h.require_levels()
    with pytest.raises(HierarchyError, match=r"ragged"):
        h.level_intervals(1)
    with pytest.raises(HierarchyError, match=r"ragged"):
        h.to_table()


def test_from_subsets_non_laminar():
    with pytest.raises(HierarchyError, match=r"'x' is not laminar: subsets \{a,b\} and \{b,c\} overlap"):
        Hierarchy.from_subsets(["a", "b", "c", "d"], [["a", "b"], ["b", "c"]], name="x")


def test_from_subsets_bad_members():
    with pytest.raises(HierarchyError, match=r"subset 1 contains 'z', which is not in the domain"):
        Hierarchy.from_subsets(["a", "b", "c"], [["a", "b"], ["z"]], name="x")
    with pytest.raises(HierarchyError, match=r"subset 0 is empty"):
        Hierarchy.from_subsets(["a", "b", "c"], [[]], name="x")
    with pytest.raises(HierarchyError, match=r"domain lists a value twice"):
        Hierarchy.from_subsets(["a", "a", "c"], [], name="x")


def test_from_subsets_same_label_twice_refused():
    """BUG (core): two distinct subsets given the same label are merged into one node
    (node identity is the label path), silently changing the hierarchy. Proposed: refuse it."""
    with pytest.raises(HierarchyError, match=r"'x'.*label 'g' names two different subsets"):
        Hierarchy.from_subsets(list("abcd"), [["a", "b"], ["c", "d"]], name="x", labels=["g", "g"])
    # the same subset listed twice under one label is harmless
    h = Hierarchy.from_subsets(list("abcd"), [["a", "b"], ["b", "a"]], name="x", labels=["g", "g"])
    assert sorted(h.node_label) == sorted(["*", "g", "a", "b", "c", "d"])


@settings(max_examples=60, deadline=None)
@given(random_laminar())
def test_from_subsets_dfs_contiguity_and_family(case):
    domain, subsets = case
    h = Hierarchy.from_subsets(domain, subsets, name="x")
    assert_dfs_contiguous(h)
    # the nodes are exactly the family + singletons + root
    fam = {frozenset(s) for s in subsets} | {frozenset([v]) for v in domain} | {frozenset(domain)}
    got = {frozenset(str(h.leaves[i]) for i in range(lo, hi + 1)) for lo, hi in zip(h.node_lo, h.node_hi)}
    assert got == fam


@settings(max_examples=60, deadline=None)
@given(random_laminar(), st.data())
def test_closure_is_brute_force_lca(case, data):
    domain, subsets = case
    h = Hierarchy.from_subsets(domain, subsets, name="x")
    m = h.size
    pairs = data.draw(st.lists(st.tuples(st.integers(0, m - 1), st.integers(0, m - 1)), min_size=1, max_size=20))
    lo = np.array([min(p) for p in pairs])
    hi = np.array([max(p) for p in pairs])
    clo, chi = h.closure(lo, hi)
    fam_sets = [frozenset(s) for s in subsets] + [frozenset(domain)]
    for a, b, x, y in zip(lo, hi, clo, chi):
        # LCA by parent pointers
        anc_a = ancestors(h, int(h.leaf_node[a]))
        anc_b = set(ancestors(h, int(h.leaf_node[b])))
        lca = next(n for n in anc_a if n in anc_b)
        assert (x, y) == (h.node_lo[lca], h.node_hi[lca])
        # the smallest member of the family that contains every value of ranks a..b
        need = {str(h.leaves[i]) for i in range(a, b + 1)}
        best = min((s for s in fam_sets if need <= s), key=len)
        assert {str(h.leaves[i]) for i in range(x, y + 1)} == (best if len(need) > 1 else need)
        assert h.is_allowed(np.array([x]), np.array([y]))[0]
        assert h.node_of(np.array([x]), np.array([y]))[0] >= 0


@settings(max_examples=40, deadline=None)
@given(random_laminar(), st.data())
def test_node_of_and_is_allowed(case, data):
    domain, subsets = case
    h = Hierarchy.from_subsets(domain, subsets, name="x")
    m = h.size
    node_iv = {(int(a), int(b)) for a, b in zip(h.node_lo, h.node_hi)}
    a = data.draw(st.integers(0, m - 1))
    b = data.draw(st.integers(a, m - 1))
    nid = h.node_of(np.array([a]), np.array([b]))[0]
    assert bool(h.is_allowed(np.array([a]), np.array([b]))[0]) == ((a, b) in node_iv)
    if (a, b) in node_iv:
        assert (h.node_lo[nid], h.node_hi[nid]) == (a, b)
        # deepest node with that interval
        assert h.node_depth[nid] == max(d for lo_, hi_, d in zip(h.node_lo, h.node_hi, h.node_depth) if (lo_, hi_) == (a, b))
    else:
        assert nid == -1
    # out-of-range or inverted intervals are never allowed
    assert not h.is_allowed(np.array([-1, 0, b]), np.array([0, m, a - 1 if a > 0 else -1])).any()


@settings(max_examples=40, deadline=None)
@given(st.integers(1, 6), st.integers(1, 3), st.data())
def test_uniform_table_levels_and_roundtrip(width, height, data):
    """Random uniform-depth ARX tables: level_intervals, export and round trip."""
    m = data.draw(st.integers(1, 20))
    values = data.draw(st.permutations([f"x{i}" for i in range(m)]))
    rows = []
    for i, v in enumerate(values):
        path = [f"L{lev}_{i // (width ** lev)}" for lev in range(1, height)]
        rows.append([v, *path, "*"])
    h = Hierarchy.from_table(rows, name="x")
    assert h.uniform and h.height == height
    assert_dfs_contiguous(h)
    for level in range(height + 1):
        lo, hi = h.level_intervals(level)
        nodes = h.level_nodes(level)
        assert (h.node_depth[nodes] == height - level).all()
        assert (lo <= np.arange(m)).all() and (np.arange(m) <= hi).all()
        # members of each group share the label of the file's column
        labels_file = {r[0]: r[level] for r in rows}
        for rank in range(m):
            assert h.node_label[nodes[rank]] == labels_file[str(h.leaves[rank])]
    t = h.to_table()
    h2 = Hierarchy.from_table(t, name="x")
    assert h2.fingerprint() == h.fingerprint()


# ---------------------------------------------------------------------------- flat / ordered
def test_flat():
    h = Hierarchy.flat(["b", "a", "c", "a"], name="x")
    assert h.leaves == ["a", "b", "c"] and h.height == 1 and h.uniform
    lo, hi = h.closure(np.array([0, 1]), np.array([1, 1]))
    assert lo.tolist() == [0, 1] and hi.tolist() == [2, 1]
    assert h.labels(lo, hi) == ["*", "b"]
    assert h.is_allowed(np.array([0, 0]), np.array([2, 1])).tolist() == [True, False]


def test_ordered():
    h = Hierarchy.ordered([5, 1, 3, 3], name="n")
    assert h.kind == "ordered" and h.leaves == [1, 3, 5] and h.numeric
    lo, hi = h.closure(np.array([0, 1]), np.array([1, 2]))
    assert lo.tolist() == [0, 1] and hi.tolist() == [1, 2]
    assert h.is_allowed(np.array([0, 1, 2]), np.array([1, 2, 1])).tolist() == [True, True, False]
    assert h.labels(np.array([0, 0, 1]), np.array([1, 2, 1])) == ["[1-3]", "*", "3"]
    with pytest.raises(HierarchyError, match=r"'n' has no hierarchy nodes"):
        h.node_of(np.array([0]), np.array([1]))
    with pytest.raises(HierarchyError, match=r"'n' has no hierarchy \(any interval allowed\); full-domain recoding"):
        h.require_levels()


def test_duplicate_values_and_empty_domain():
    with pytest.raises(HierarchyError, match=r"'x' lists value 'a' twice"):
        Hierarchy("x", "ordered", ["a", "b", "a"])
    with pytest.raises(HierarchyError, match=r"'x' has an empty domain"):
        Hierarchy.flat([], name="x")
    with pytest.raises(HierarchyError, match=r"missing values"):
        Hierarchy.flat(["a", None], name="x")
    with pytest.raises(HierarchyError, match=r"Unknown hierarchy kind 'forest'"):
        Hierarchy("x", "forest", ["a"])


def test_level_out_of_range():
    h = Hierarchy.flat(["a", "b"], name="x")
    with pytest.raises(HierarchyError, match=r"levels 0\.\.1; got 2"):
        h.level_nodes(2)


# ---------------------------------------------------------------------------- export
@pytest.mark.parametrize("path", ADULT_H + FARS_H, ids=lambda p: p.stem)
def test_arx_export_roundtrip(path, tmp_path):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        h = Hierarchy.from_arx_csv(path)
    out = tmp_path / "h.csv"
    h.to_arx_csv(out)
    h2 = Hierarchy.from_arx_csv(out, name=h.name)
    assert h2.fingerprint() == h.fingerprint()
    # the exported file holds the same rows as the source (dedup'ed), perhaps reordered
    a = read_arx(path).drop_duplicates()
    b = read_arx(out)
    key = lambda df: sorted(map(tuple, df.to_numpy().tolist()))  # noqa: E731
    assert key(a) == key(b)
    assert not list(tmp_path.glob(".*tmp"))


def test_intervals_export_roundtrip(tmp_path):
    h = Hierarchy.intervals(range(0, 50), [5, 10], name="age", top=40)
    h.to_arx_csv(tmp_path / "age.csv")
    h2 = Hierarchy.from_arx_csv(tmp_path / "age.csv")
    assert h2.name == "age" and h2.fingerprint() == h.fingerprint()
    r = h2.rank_of(33)
    assert h2.label_interval(r, r, level=1) == "[30-34]"


# ---------------------------------------------------------------- the shared node arrays
def _ragged_tree() -> Hierarchy:
    # root -> {A: {a, b}, B: {C: {c, d}}, e}: leaves at depths 2, 2, 3, 3, 1
    return Hierarchy.from_subsets(["a", "b", "c", "d", "e"], [["a", "b"], ["c", "d"], ["c", "d", "e"]], name="x")


@pytest.mark.parametrize("make", [_ragged_tree, lambda: Hierarchy.intervals(list(range(20)), [2, 4, 8], name="n"),
                                  lambda: Hierarchy.flat(list("abcd"), name="f")])
def test_arrays_are_computed_once_read_only_and_right(make):
    h = make()
    a = h.arrays()
    assert h.arrays() is a  # once per hierarchy object
    for name in ("anc", "node_lo", "node_hi", "node_parent", "node_depth", "leaf_node", "child_ptr", "child", "node_height"):
        arr = getattr(a, name)
        assert not arr.flags.writeable, name
        with pytest.raises(ValueError):
            arr[...] = 0
    nn = len(h.node_lo)
    # ancestors by walking parents from each leaf node, padded with the root
    for rank in range(h.size):
        node = int(h.leaf_node[rank])
        for t in range(h.height + 1):
            assert a.anc[rank, t] == node
            node = max(int(h.node_parent[node]), 0)
    # children: every non-root node once, under its parent, by increasing first leaf
    for v in range(nn):
        kids = a.child[a.child_ptr[v] : a.child_ptr[v + 1]].tolist()
        assert kids == sorted((c for c in range(1, nn) if h.node_parent[c] == v), key=lambda c: h.node_lo[c])
    # subtree heights: longest path down to a leaf, by recursion over the children
    def height(v):
        kids = a.child[a.child_ptr[v] : a.child_ptr[v + 1]]
        return 0 if len(kids) == 0 else 1 + max(height(int(c)) for c in kids)

    assert a.node_height.tolist() == [height(v) for v in range(nn)]


def test_arrays_need_a_tree():
    with pytest.raises(HierarchyError, match="no tree hierarchy"):
        Hierarchy.ordered(range(5), name="o").arrays()


def test_no_module_reads_the_private_ancestor_table():
    """Kernels get hierarchy structure from Hierarchy.arrays(), not the private _anc
    (docs/design/rules.md, where kernels live)."""
    src = Path(__file__).resolve().parents[1] / "src" / "ktype"
    readers = [str(p.relative_to(src)) for p in src.rglob("*.py") if "._anc" in p.read_text() and p.name != "hierarchy.py"]
    assert readers == []
