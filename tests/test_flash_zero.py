"""flash without suppression: the search by static value (``LatticeSearch.optimum_by_value``).

With ``max_suppression = 0`` and an additive measure (entropy, loss, precision, height) every
feasible node's value is the static ``Encoded.gen_cost``; ``flash`` visits nodes by increasing
``(value, height, id)`` and stops at the first feasible one (plus the tie window). These tests
compare it with ``exhaustive`` on random tables, on tables built to tie (identical hierarchies
and mirrored data, levels that merge nothing), check the proof it relies on (every node of
lower value is classified infeasible) and the fallback when the column totals are not
monotone in floating point.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ktype.algorithms.fulldomain._engine import Encoded
from ktype.algorithms.fulldomain._lattice import run_search
from ktype.data.dataset import Dataset
from ktype.data.hierarchy import Hierarchy
from ktype.exceptions import InfeasibleError
from ktype.models.kanonymity import KAnonymity
from ktype.models.ldiversity import DistinctLDiversity
from tests.test_flash_bounds import assert_bounded_agrees, random_hierarchy, random_table

ADDITIVE = ("non_uniform_entropy", "loss_metric", "precision", "height")


def _both(ds, models, meas):
    """(flash default, exhaustive) at 0% suppression; (None, None) when infeasible."""
    try:
        a = run_search(Encoded(ds, models, 0.0, meas), "flash")
    except InfeasibleError:
        with pytest.raises(InfeasibleError):
            run_search(Encoded(ds, models, 0.0, meas), "exhaustive")
        return None, None
    return a, run_search(Encoded(ds, models, 0.0, meas), "exhaustive")


def _check(a, b, enc):
    """``a`` took the by-value path, agrees with exhaustive ``b``, and proved its optimum:
    every node of smaller value is classified infeasible, and so is every node of the same
    value (within the tolerance) that the tie rule would prefer."""
    assert a.extra.get("k_minimal_complete") is False and "nodes_pruned" in a.extra
    assert_bounded_agrees(a, b)
    value = enc.gen_cost(a.levels)
    best = a.value
    lower = value < best - 1e-9 * max(1.0, abs(best))
    assert (a.state[lower] == -1).all()
    height = a.levels.sum(axis=1)
    opt = int(np.flatnonzero((a.levels == a.optimum).all(axis=1))[0])
    tie = (np.abs(value - best) <= 1e-9 * max(1.0, abs(best))) & (
        (height < height[opt]) | ((height == height[opt]) & (np.arange(len(value)) < opt))
    )
    assert (a.state[tie] == -1).all()


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**32 - 1))
def test_by_value_equals_exhaustive_on_random_tables(seed):
    ds, k, _ = random_table(seed)
    for models in ((KAnonymity(k),), (KAnonymity(k), DistinctLDiversity(2))):
        for meas in ADDITIVE:
            a, b = _both(ds, models, meas)
            if a is None:
                continue
            _check(a, b, Encoded(ds, models, 0.0, meas))


def tie_table(seed: int) -> Dataset:
    """Two or three QIs with the *same* random hierarchy and mirrored rows (every row also
    appears with its first two values swapped): nodes that swap the first two levels have the
    same value and feasibility, so the tie rule (lowest height, then lexicographic) decides.
    A third column, when present, has a level that merges nothing (equal column totals)."""
    rng = np.random.default_rng(seed)
    m = int(rng.integers(2, 7))
    values = [f"v{i}" for i in range(m)]
    h = int(rng.integers(1, 4))
    base = random_hierarchy(rng, "q0", values, h)
    rows = base.to_table().values.tolist()
    n = int(rng.integers(4, 40))
    p = rng.dirichlet(np.full(m, 0.7))
    x = rng.choice(values, n, p=p)
    y = rng.choice(values, n, p=p)
    data = {"q0": np.concatenate([x, y]), "q1": np.concatenate([y, x])}
    hier = {"q0": Hierarchy.from_table(rows, name="q0"), "q1": Hierarchy.from_table(rows, name="q1")}
    if rng.random() < 0.6:
        w = ["a", "b", "c"]
        # level 1 repeats the leaves (merges nothing), level 2 merges a and b
        hier["q2"] = Hierarchy.from_table([[v, f"{v}1", "ab" if v != "c" else "c2", "*"] for v in w], name="q2")
        z = rng.choice(w, n)
        data["q2"] = np.concatenate([z, z])
    return Dataset(pd.DataFrame(data), quasi_identifiers=list(hier), hierarchies=hier)


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**32 - 1))
def test_by_value_resolves_ties_like_exhaustive(seed):
    ds = tie_table(seed)
    k = int(np.random.default_rng(seed).integers(2, 5))
    for meas in ADDITIVE:
        a, b = _both(ds, (KAnonymity(k),), meas)
        if a is None:
            continue
        _check(a, b, Encoded(ds, (KAnonymity(k),), 0.0, meas))
        mirror = a.optimum.copy()
        mirror[[0, 1]] = mirror[[1, 0]]
        assert a.optimum.tolist() <= mirror.tolist()  # mirrored nodes tie: the lexicographically first wins


def test_tie_fixture_picks_lexicographic_first():
    """Mirrored rows over identical hierarchies: (0,1) and (1,0) have equal loss and are both
    2-anonymous, (0,0) is not; the rule of exhaustive picks (0,1)."""
    rows = [["a", "ab", "*"], ["b", "ab", "*"], ["c", "cd", "*"], ["d", "cd", "*"]]
    hier = {c: Hierarchy.from_table(rows, name=c) for c in ("q0", "q1")}
    x = ["a", "a", "b", "b"]
    y = ["c", "d", "c", "d"]  # (x, y) and (y, x): every tuple once, pairs share a value's group
    ds = Dataset(pd.DataFrame({"q0": x + y, "q1": y + x}), quasi_identifiers=["q0", "q1"], hierarchies=hier)
    for meas in ADDITIVE:
        a, b = _both(ds, (KAnonymity(2),), meas)
        _check(a, b, Encoded(ds, (KAnonymity(2),), 0.0, meas))
        assert a.optimum.tolist() == b.optimum.tolist() == [0, 1], meas


def test_static_values_fallback():
    """A column total that decreases with the level (impossible in exact arithmetic, possible
    after rounding) sends flash to the full classification, which still agrees."""
    ds, k, _ = random_table(7)
    enc = Encoded(ds, (KAnonymity(k),), 0.0, "loss_metric")
    assert enc.static_values()
    assert not Encoded(ds, (KAnonymity(k),), 0.05, "loss_metric").static_values()
    for j, h in enumerate(enc.heights):  # a fall at any level of any column is seen
        for lev in range(1, int(h) + 1):
            keep = enc.colcost[j, lev]
            enc.colcost[j, lev] = enc.colcost[j, lev - 1] - 1e-12
            assert not enc.static_values(), (j, lev)
            enc.colcost[j, lev] = keep
    assert enc.static_values()
    enc.colcost[0, 1] = enc.colcost[0, 0] - 1e-12
    assert not enc.static_values()
    res = run_search(enc, "flash")
    assert "k_minimal_complete" not in res.extra
    enc2 = Encoded(ds, (KAnonymity(k),), 0.0, "loss_metric")
    enc2.colcost[0, 1] = enc2.colcost[0, 0] - 1e-12
    assert res.optimum.tolist() == run_search(enc2, "exhaustive").optimum.tolist()


def test_by_value_on_adult_sample_evaluates_fewer_nodes():
    """Same optimum as exhaustive, never more evaluations than the full classification."""
    import ktype
    from ktype.algorithms.fulldomain import lattice_search

    ds = ktype.load_adult(quasi_identifiers=["sex", "age", "race", "marital-status", "education", "workclass"], n=4000)
    ours = full_total = 0
    for meas in ("loss_metric", "non_uniform_entropy"):
        for k in (5, 50):
            a = lattice_search(ds, KAnonymity(k), measure=meas)
            full = lattice_search(ds, KAnonymity(k), measure=meas, k_minimal=True)
            ex = lattice_search(ds, KAnonymity(k), measure=meas, algorithm="exhaustive")
            _check(a, ex, Encoded(ds, (KAnonymity(k),), 0.0, meas))
            assert a.n_evaluated <= full.n_evaluated, (meas, k)
            ours += a.n_evaluated
            full_total += full.n_evaluated
    assert ours < full_total


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**32 - 1))
def test_by_value_tie_window_with_rounding_noise(seed):
    """Values that tie only up to rounding (noise far below the 1e-9 tolerance, in any order):
    the nodes after the first feasible one in value order that tie with it and are lower (or
    lexicographically first at the same height) must still win, as in exhaustive's rule."""
    from ktype.algorithms.fulldomain._lattice import LatticeSearch

    ds = tie_table(seed) if seed % 2 else random_table(seed)[0]
    rng = np.random.default_rng(seed)
    k = int(rng.integers(2, 5))
    for meas in ADDITIVE:
        try:
            b = run_search(Encoded(ds, (KAnonymity(k),), 0.0, meas), "exhaustive")
        except InfeasibleError:
            continue
        enc = Encoded(ds, (KAnonymity(k),), 0.0, meas)
        search = LatticeSearch(enc)
        gc = enc.gen_cost(search.lat.levels)
        noisy = gc + rng.random(len(gc)) * 1e-12 * np.maximum(1.0, np.abs(gc))
        assert search.check(search.lat.top, tag=True)
        best = search.optimum_by_value(noisy)
        assert search.lat.levels[best].tolist() == b.optimum.tolist(), meas


@pytest.mark.parametrize("heights", [[1, 4, 1, 2, 3, 2, 2, 2, 1], [0, 2], [3], [0], [2, 0, 1]])
def test_lattice_arrays_by_id(heights):
    """``Lattice`` (odometer kernel): level vectors by mixed-radix id, heights, int8 copy."""
    from ktype.algorithms.fulldomain._lattice import Lattice

    lat = Lattice(np.array(heights))
    radix = np.array(heights) + 1
    ids = np.arange(lat.size)
    ref = (ids[:, None] // lat.strides[None, :]) % radix[None, :]
    assert lat.levels.dtype == np.int64 and (lat.levels == ref).all() and (lat.levels8 == ref).all()
    assert (lat.height == ref.sum(axis=1)).all()
    mid = ref[lat.size // 2]
    assert (lat.below(mid) == (ref <= mid).all(axis=1)).all() and (lat.above(mid) == (ref >= mid).all(axis=1)).all()


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32 - 1))
def test_lattice_cost_and_bottom_encoding(seed):
    """``Encoded.lattice_cost`` (outer sums) equals ``gen_cost`` of every node bit for bit, and
    the bottom frequency set built straight from the rows (``_bottom_kernel``) equals the
    general roll-up of the rows (same distinct rows, order, counts, codes, row map)."""
    from ktype.algorithms.fulldomain._kernels import _pack_kernel, _rollup_kernel
    from ktype.algorithms.fulldomain._lattice import Lattice

    ds, k, _ = random_table(seed)
    for meas in (*ADDITIVE, "discernibility"):
        enc = Encoded(ds, (KAnonymity(k),), 0.0, meas)
        lat = Lattice(enc.heights)
        assert (enc.lattice_cost() == enc.gen_cost(lat.levels)).all(), meas
    ident = np.concatenate([enc.gmap[j][0] for j in range(enc.r)]).astype(np.int32)
    offs = np.concatenate([[0], np.cumsum([len(enc.gmap[j][0]) for j in range(enc.r)])[:-1]]).astype(np.int64)
    tab, cnt, inv = _rollup_kernel(np.ascontiguousarray(ds.X, dtype=enc.tab_dtype), np.ones(ds.n, dtype=np.int64), ident, offs)
    b = enc.bottom
    assert b.tab.dtype == tab.dtype and (b.tab == tab).all() and (b.cnt == cnt).all() and (enc.row_tuple == inv).all()
    assert (b.codes == _pack_kernel(tab, enc._shifts)).all()
    loss = Encoded(ds, (KAnonymity(k),), 0.0, "loss_metric")
    ent = Encoded(ds, (KAnonymity(k),), 0.0, "non_uniform_entropy")
    for j, h in enumerate(ds.hierarchies):  # the column counts and groups behind the costs, row by row
        for lev in range(h.height + 1):
            uniq, ids = np.unique(h.level_nodes(lev), return_inverse=True)
            assert (loss.gmap[j][lev] == ids).all() and (loss.gnode[j][lev] == uniq).all()
            nodes = h.level_nodes(lev)[ds.X[:, j]]
            direct = float(((h.node_hi - h.node_lo)[nodes] / max(h.size - 1, 1)).sum())
            assert loss.colcost[j, lev] == pytest.approx(direct, rel=1e-12, abs=1e-12)
            # non-uniform entropy: Σ_rows log2(N(group) / N(value))
            _, vinv, vcnt = np.unique(ds.X[:, j], return_inverse=True, return_counts=True)
            _, ginv, gcnt = np.unique(nodes, return_inverse=True, return_counts=True)
            direct = float(np.log2(gcnt[ginv] / vcnt[vinv]).sum())
            assert ent.colcost[j, lev] == pytest.approx(direct, rel=1e-9, abs=1e-9)


@settings(max_examples=50, deadline=None)
@given(seed=st.integers(0, 2**32 - 1))
def test_value_order_equals_lexsort(seed):
    """``value_order`` = ``np.lexsort((ids, height, value))`` with many exact ties."""
    from ktype.algorithms.fulldomain._lattice import value_order

    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 300))
    value = rng.integers(0, int(rng.integers(1, 20)), n) * 0.1
    height = rng.integers(0, 12, n)
    assert (value_order(value, height) == np.lexsort((np.arange(n), height, value))).all()


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 2**32 - 1))
def test_by_value_infeasible_reports_like_exhaustive(seed):
    """No feasible node (k above some class of the top, or ℓ above the distinct values): the
    search by value raises InfeasibleError naming the same least suppression as exhaustive
    (it evaluated the top, the node of least suppression)."""
    ds, _, _ = random_table(seed)
    rng = np.random.default_rng(seed)
    models = (KAnonymity(ds.n + 1),) if rng.random() < 0.5 else (DistinctLDiversity(4),)
    for meas in ADDITIVE:
        msgs = []
        for alg in ("flash", "exhaustive"):
            try:
                run_search(Encoded(ds, models, 0.0, meas), alg)
            except InfeasibleError as e:
                msgs.append(str(e).split(": ", 1)[1])
        assert len(msgs) in (0, 2) and (not msgs or msgs[0] == msgs[1]), msgs
