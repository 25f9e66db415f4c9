"""Hierarchies against an independent oracle: the laminar family of value sets they were built from.

A tree hierarchy is a laminar family of subsets of its domain (singletons and the whole domain
included). Random families are drawn here, built with ``Hierarchy.from_subsets`` /
``Hierarchy.from_table``, and every query of the hierarchy (which intervals are nodes, the
closure of an interval, depths, children, ancestors, level intervals, labels and their parsing,
encoding of values in and out of the domain) is compared with the answer read directly off the
family of value sets, in plain Python. A hierarchy that accepts a value or an interval that is no
node of it would let a release publish a generalization the hierarchy does not allow.
"""

from __future__ import annotations

import random

import numpy as np
import pandas as pd
import pytest

from ktype import Hierarchy
from ktype.exceptions import HierarchyError

pytestmark = pytest.mark.timeout(120)


def _family(rng: random.Random, domain: list) -> list[list]:
    """A random laminar family over ``domain``: recursive random splits of a shuffled copy."""
    vals = list(domain)
    rng.shuffle(vals)
    out: list[list] = []

    def split(seg: list) -> None:
        if len(seg) < 2:
            return
        parts = rng.randint(2, min(4, len(seg)))
        cuts = sorted(rng.sample(range(1, len(seg)), parts - 1))
        bounds = [0, *cuts, len(seg)]
        for a, b in zip(bounds, bounds[1:]):
            sub = seg[a:b]
            if 1 < len(sub) < len(domain) and rng.random() < 0.8:
                out.append(sub)
            split(sub)

    split(vals)
    rng.shuffle(out)
    return out


def _domain(rng: random.Random, numeric: bool) -> list:
    n = rng.randint(2, 11)
    if numeric:
        return sorted(rng.sample(range(-20, 60), n))
    return [f"v{i:02d}" for i in rng.sample(range(100), n)]


def _case(seed: int):
    rng = random.Random(seed)
    numeric = seed % 2 == 0
    domain = _domain(rng, numeric)
    fam = _family(rng, domain)
    labels = [f"G{i}" for i in range(len(fam))]
    h = Hierarchy.from_subsets(domain, fam, name="a", labels=labels)
    sets = {frozenset(domain): "*"}
    for s, lab in zip(fam, labels):
        sets.setdefault(frozenset(s), lab)
    for v in domain:
        sets.setdefault(frozenset([v]), str(v))
    return h, domain, sets


SEEDS = range(40)


@pytest.mark.parametrize("seed", SEEDS)
def test_nodes_closure_and_depths_match_the_family(seed):
    h, domain, sets = _case(seed)
    m = len(domain)
    assert h.size == m and sorted(map(str, h.leaves)) == sorted(map(str, domain))
    leaves = list(h.leaves)
    # every set of the family is a contiguous run of leaves (the depth-first order)
    for s in sets:
        ranks = sorted(leaves.index(v) for v in s)
        assert ranks == list(range(ranks[0], ranks[-1] + 1))
    a, b = np.meshgrid(np.arange(m), np.arange(m), indexing="ij")
    a, b = a.ravel(), b.ravel()
    allowed = h.is_allowed(a, b)
    node = h.node_of(np.minimum(a, b), np.maximum(a, b))
    clo, chi = h.closure(np.minimum(a, b), np.maximum(a, b))
    for i in range(len(a)):
        x, y = int(a[i]), int(b[i])
        run = frozenset(leaves[min(x, y): max(x, y) + 1])
        assert bool(allowed[i]) == (x <= y and run in sets), (x, y)
        assert (node[i] >= 0) == (run in sets)
        if run in sets:
            # deepest node with that interval: its depth is the number of strict supersets
            depth = sum(1 for s in sets if run < s)
            assert h.node_depth[node[i]] == depth
            assert h.interval_depth(np.array([min(x, y)]), np.array([max(x, y)]))[0] == depth
        smallest = min((s for s in sets if run <= s), key=len)
        assert frozenset(leaves[clo[i]: chi[i] + 1]) == smallest
    # out-of-domain intervals are never allowed
    bad_lo = np.array([-1, 0, 0, m - 1, m])
    bad_hi = np.array([0, m, -1, m, m])
    assert not h.is_allowed(bad_lo, bad_hi).any()


@pytest.mark.parametrize("seed", SEEDS)
def test_arrays_and_height_match_the_family(seed):
    h, domain, sets = _case(seed)
    leaves = list(h.leaves)

    def depth(s):
        return sum(1 for t in sets if s < t)

    def ivl(s):
        r = sorted(leaves.index(v) for v in s)
        return r[0], r[-1]

    leaf_depths = [depth(frozenset([v])) for v in leaves]
    assert h.height == max(leaf_depths)
    assert h.uniform == (len(set(leaf_depths)) == 1)
    ar = h.arrays()
    assert h.arrays() is ar
    for n in range(len(ar.node_lo)):
        s = frozenset(leaves[ar.node_lo[n]: ar.node_hi[n] + 1])
        assert s in sets and ar.node_depth[n] == depth(s)
        kids = [int(c) for c in ar.child[ar.child_ptr[n]: ar.child_ptr[n + 1]]]
        kid_sets = [frozenset(leaves[ar.node_lo[c]: ar.node_hi[c] + 1]) for c in kids]
        want = sorted((t for t in sets if t < s and not any(t < u < s for u in sets)), key=lambda t: ivl(t)[0])
        assert kid_sets == want
        assert all(ar.node_parent[c] == n for c in kids)
        assert ar.node_height[n] == max(leaf_depths[r] for r in range(ar.node_lo[n], ar.node_hi[n] + 1)) - depth(s)
    for r, v in enumerate(leaves):
        chain = sorted((s for s in sets if v in s), key=len)  # the leaf first, the root last
        assert ar.leaf_node[r] >= 0 and ar.node_lo[ar.leaf_node[r]] == r == ar.node_hi[ar.leaf_node[r]]
        for t in range(h.height + 1):
            s = chain[t] if t < len(chain) else chain[-1]
            n = ar.anc[r, t]
            assert frozenset(leaves[ar.node_lo[n]: ar.node_hi[n] + 1]) == s
    for a in (ar.anc, ar.child, ar.node_lo):
        with pytest.raises(ValueError):
            a[0] = a[0]


@pytest.mark.parametrize("seed", SEEDS)
def test_labels_encode_and_parse_back(seed):
    h, domain, sets = _case(seed)
    m = h.size
    leaves = list(h.leaves)
    for s, lab in sets.items():
        lo, hi = h.parse_label(lab)
        assert frozenset(leaves[lo: hi + 1]) == s
        assert h.label_interval(lo, hi) == lab
    a, b = np.triu_indices(m)
    labs = h.labels(a, b)
    for x, y, lab in zip(a, b, labs):
        if frozenset(leaves[x: y + 1]) not in sets:
            assert lab.startswith("[") and lab.endswith("]")
            assert h.parse_label(lab, any_range=True) == (x, y)
            with pytest.raises(HierarchyError):  # no node of the tree: not a value it may publish
                h.parse_label(lab)
    shuffled = list(domain)
    random.Random(seed).shuffle(shuffled)
    ranks = h.encode(pd.Series(shuffled), row_offset=5)
    assert [leaves[r] for r in ranks] == shuffled
    assert h.rank_of(shuffled[0]) == leaves.index(shuffled[0])
    outsider = 99 if isinstance(domain[0], int) else "v999"
    with pytest.raises(HierarchyError, match=r"no entry for value .*row 6"):
        h.encode([shuffled[0], outsider], row_offset=5)
    with pytest.raises(HierarchyError, match="line 12"):
        h.encode([shuffled[0], outsider], first_line=11)
    with pytest.raises(HierarchyError, match="missing value"):
        h.encode([shuffled[0], None])
    with pytest.raises(HierarchyError):
        h.parse_label("nowhere")


@pytest.mark.parametrize("seed", range(20))
def test_level_intervals_match_the_table_paths(seed):
    """A uniform tree from an ARX table: the ancestor at level L of a value is the set of values
    whose table row agrees with its row from column L on."""
    rng = random.Random(seed)
    n = rng.randint(2, 12)
    height = rng.randint(1, 4)
    rows = []
    for i in range(n):
        path = [f"x{i}"]
        for lev in range(1, height):
            path.append(f"L{lev}-{rng.randint(0, 2)}" + (path[-1] if lev > 1 else ""))
        rows.append([*path[:1], *path[1:], "*"])
    # a label at level L is the same group only with the same ancestors above: make labels unique
    table = pd.DataFrame([[r[0], *["/".join(r[lev:-1]) or r[lev] for lev in range(1, len(r) - 1)], "*"] for r in rows])
    h = Hierarchy.from_table(table, name="t")
    leaves = list(h.leaves)
    assert h.uniform and h.height == table.shape[1] - 1 and h.n_levels == table.shape[1]
    row_of = {r[0]: list(r) for r in table.itertuples(index=False)}
    for lev in range(h.height + 1):
        lo, hi = h.level_intervals(lev)
        nodes = h.level_nodes(lev)
        for r, v in enumerate(leaves):
            group = {u for u in leaves if row_of[u][lev:] == row_of[v][lev:]}
            assert set(leaves[lo[r]: hi[r] + 1]) == group
            assert h.node_label[nodes[r]] == row_of[v][lev]
    with pytest.raises(HierarchyError):
        h.level_nodes(h.height + 1)
    with pytest.raises(HierarchyError):
        h.level_nodes(-1)
    back = Hierarchy.from_table(h.to_table(), name="t")
    assert back.fingerprint() == h.fingerprint()
