"""Property tests: the optimal lattice search equals the exhaustive oracle; node values equal
the measures of the materialized release."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ktype._grouping import group_rows
from ktype.algorithms.fulldomain import MEASURES
from ktype.algorithms.fulldomain._engine import Encoded
from ktype.algorithms.fulldomain._incognito import incognito_search
from ktype.algorithms.fulldomain._lattice import run_search
from ktype.algorithms.fulldomain._samarati import samarati_search
from ktype.data.dataset import Dataset
from ktype.exceptions import InfeasibleError
from ktype.models.kanonymity import KAnonymity
from ktype.release import Release
from tests.test_flash_bounds import assert_bounded_agrees, random_hierarchy

try:
    from ktype.models.ldiversity import DistinctLDiversity, EntropyLDiversity
except ImportError:  # pragma: no cover
    DistinctLDiversity = EntropyLDiversity = None


def random_case(seed: int):
    """A random small table with random uniform-depth hierarchies."""
    rng = np.random.default_rng(seed)
    r = int(rng.integers(1, 4))
    n = int(rng.integers(2, 15))
    data, hier = {}, {}
    for j in range(r):
        m = int(rng.integers(1, 6))
        height = int(rng.integers(1, 4))
        values = [f"v{i}" for i in range(m)]
        name = f"q{j}"
        hier[name] = random_hierarchy(rng, name, values, height)
        data[name] = rng.choice(values, n)
    data["s"] = rng.choice(["a", "b", "c"], n)
    ds = Dataset(pd.DataFrame(data), quasi_identifiers=list(hier), sensitive=["s"], hierarchies=hier)
    k = int(rng.integers(1, min(n, 4) + 1))
    models = [KAnonymity(k)]
    kind = int(rng.integers(0, 3))
    if DistinctLDiversity is not None and len(set(data["s"])) >= 2 and kind == 1:
        models.append(DistinctLDiversity(2))
    if EntropyLDiversity is not None and len(set(data["s"])) >= 2 and kind == 2:
        try:
            m = EntropyLDiversity(1.5)
            m.validate(ds)
            models.append(m)
        except Exception:
            pass
    sup = float(rng.choice([0.0, 0.1, 0.3]))
    return ds, tuple(models), sup


def _search(ds, models, sup, meas, alg, k_minimal=False):
    try:
        return run_search(Encoded(ds, models, sup, meas), alg, k_minimal=k_minimal)
    except InfeasibleError:
        return None


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**32 - 1))
def test_flash_equals_exhaustive(seed):
    ds, models, sup = random_case(seed)
    for meas in MEASURES:
        for s in (0.0, sup):
            a = _search(ds, models, s, meas, "flash", k_minimal=True)
            b = _search(ds, models, s, meas, "exhaustive")
            assert (a is None) == (b is None)
            if a is None:
                continue
            assert a.optimum.tolist() == b.optimum.tolist(), (meas, s)
            assert a.value == pytest.approx(b.value, rel=1e-9, abs=1e-9)
            assert a.minimal.tolist() == b.minimal.tolist()
            assert (a.state == b.state).all()
            assert_bounded_agrees(_search(ds, models, s, meas, "flash"), b)


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32 - 1))
def test_samarati_and_incognito_minimal_nodes(seed):
    ds, models, sup = random_case(seed)
    models = models[:1]  # k-anonymity
    ex = run_search(Encoded(ds, models, sup, "height"), "exhaustive")
    sam = samarati_search(Encoded(ds, models, sup, "height"))
    h = ex.minimal.sum(axis=1)
    assert sam.minimal.tolist() == ex.minimal[h == h.min()].tolist()
    inc = incognito_search(Encoded(ds, models, sup, "height"))
    assert inc.minimal.tolist() == ex.minimal.tolist()
    assert (inc.state == ex.state).all()
    assert inc.optimum.tolist() == ex.optimum.tolist()


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), pick=st.integers(0, 10**6))
def test_node_values_match_materialized_release(seed, pick):
    from ktype import measures

    ds, models, sup = random_case(seed)
    enc0 = Encoded(ds, models, sup, "height")
    node = np.array([pick % (h + 1) for h in enc0.heights])
    # materialize: every record generalized to the node's levels
    X = ds.X
    lo = np.empty(X.shape, dtype=np.int32)
    hi = np.empty(X.shape, dtype=np.int32)
    for j, h in enumerate(ds.hierarchies):
        a, b = h.level_intervals(int(node[j]))
        lo[:, j], hi[:, j] = a[X[:, j]], b[X[:, j]]
    full = Release.build(ds, lo, hi, recoding="full-domain", levels=node)
    bad = np.zeros(full.n, dtype=bool)
    for m in models:
        bad |= ~m.check(full).per_record
    suppressed = np.zeros(ds.n, dtype=bool)
    suppressed[full.source[bad]] = True
    rel = Release.build(ds, lo, hi, suppressed=suppressed, recoding="full-domain", levels=node)
    S = int(suppressed.sum())
    keep = ~rel.suppressed
    ids, g = group_rows(rel.lo[keep], rel.hi[keep]) if keep.any() else (np.zeros(0, dtype=np.int64), 0)
    sizes = np.bincount(ids, minlength=g).astype(float)
    n = ds.n
    k = max(m.k for m in models if isinstance(m, KAnonymity))
    expected = {
        "discernibility": float((sizes**2).sum() + S * n),
        "average_class_size": (n - S) / g / k if g else float("inf"),
        "height": float(node.sum()),
        "precision": float(
            np.mean(np.where(rel.suppressed[:, None], 1.0, node[None, :] / np.maximum(enc0.heights[None, :], 1)))
        ),
    }
    # the same values from ktype.measures on the materialized release, where available
    ms = {
        "discernibility": lambda: measures.discernibility(rel),
        "average_class_size": lambda: measures.average_class_size(rel, k=k) if g else float("inf"),
        "height": lambda: measures.height(rel),
        "precision": lambda: 1.0 - measures.precision(rel),
        "loss_metric": lambda: measures.loss_metric(rel),
        "non_uniform_entropy": lambda: measures.non_uniform_entropy(rel),
    }
    for meas, f in ms.items():
        if hasattr(measures, meas):
            got = float(f())
            if meas in expected:
                assert got == pytest.approx(expected[meas], rel=1e-9, abs=1e-9), meas
            expected[meas] = got
    for meas, want in expected.items():
        enc = Encoded(ds, models, sup, meas)
        ev = enc.evaluate(enc.bottom, np.zeros(enc.r, dtype=np.int64), node, always_value=True)
        assert ev.suppressed == S
        assert ev.feasible == (S <= enc.limit)
        if want is not None:
            assert ev.value == pytest.approx(want, rel=1e-9, abs=1e-9), meas
        lo2, hi2, sup2, _ = enc.release_arrays(node)
        assert (sup2 == suppressed).all() and (lo2 == lo).all() and (hi2 == hi).all()


@pytest.mark.slow
def test_flash_equals_exhaustive_on_adult_sample():
    import ktype
    from ktype.algorithms.fulldomain import lattice_search

    ds = ktype.load_adult(
        quasi_identifiers=["sex", "age", "race", "marital-status", "education", "workclass"], sensitive=("salary-class",), n=3000
    )
    for models in (KAnonymity(5), [KAnonymity(3), DistinctLDiversity(2)]):
        for meas in MEASURES:
            for sup in (0.0, 0.04):
                a = lattice_search(ds, models, measure=meas, max_suppression=sup, k_minimal=True)
                b = lattice_search(ds, models, measure=meas, max_suppression=sup, algorithm="exhaustive")
                assert a.optimum.tolist() == b.optimum.tolist(), (meas, sup)
                assert a.value == pytest.approx(b.value, rel=1e-9)
                assert a.minimal.tolist() == b.minimal.tolist()
                assert (a.state == b.state).all()
                assert a.n_evaluated <= b.n_evaluated
                c = lattice_search(ds, models, measure=meas, max_suppression=sup)
                assert_bounded_agrees(c, b)


def _evaluate_all(enc):
    """Every node's NodeEval, each rolled up from the bottom and from a direct specialization."""
    from ktype.algorithms.fulldomain._lattice import Lattice

    lat = Lattice(enc.heights)
    out = {}
    for node in range(lat.size):
        lv = lat.levels[node]
        a = enc.evaluate(enc.bottom, np.zeros(enc.r, dtype=np.int64), lv, always_value=True)
        preds = lat.predecessors(node)
        if preds:
            p = preds[-1]
            src = enc.evaluate(enc.bottom, np.zeros(enc.r, dtype=np.int64), lat.levels[p]).fs
            b = enc.evaluate(src, lat.levels[p], lv, always_value=True)
            assert (b.suppressed, b.n_classes) == (a.suppressed, a.n_classes)
            assert b.value == pytest.approx(a.value, rel=1e-12, abs=1e-12)
        out[node] = a
    return lat, out


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32 - 1))
def test_packed_rows_match_table_rows(seed):
    """Bit-packed frequency sets (one int64 per class) and (g, r) tables give the same classes
    and node values; a roll-up from a finer node equals the roll-up from the bottom."""
    from ktype.algorithms.fulldomain import _engine

    ds, models, sup = random_case(seed)
    for meas in MEASURES:
        packed = Encoded(ds, models, sup, meas)
        with pytest.MonkeyPatch.context() as mp:
            mp.setattr(_engine, "_PACK_BITS", 0)
            table = Encoded(ds, models, sup, meas)
            assert packed.packed and not table.packed
            _, ev_t = _evaluate_all(table)
        _, ev_p = _evaluate_all(packed)
        for node, a in ev_p.items():
            b = ev_t[node]
            assert (a.suppressed, a.n_classes, a.feasible) == (b.suppressed, b.n_classes, b.feasible)
            assert a.value == pytest.approx(b.value, rel=1e-12, abs=1e-12) or (np.isinf(a.value) and np.isinf(b.value))
            assert a.dm_bound == b.dm_bound
            rows_p = sorted(zip(map(tuple, packed.table(a.fs).tolist()), a.fs.cnt.tolist()))
            rows_t = sorted(zip(map(tuple, table.table(b.fs).tolist()), b.fs.cnt.tolist()))
            assert rows_p == rows_t


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32 - 1))
def test_discernibility_bound_with_suppression_is_sound(seed):
    """The bound flash prunes discernibility with: for every node L, finer P and coarser M,
    DM(L) >= Σ_{E of P} |E|·max(|E|, k) + (n - k)·sup(M) (k-anonymity alone)."""
    from ktype.algorithms.fulldomain._lattice import LatticeSearch

    ds, models, sup = random_case(seed)
    models = models[:1]
    enc = Encoded(ds, models, max(sup, 0.3), "discernibility")
    lat, ev = _evaluate_all(enc)
    search = LatticeSearch(enc)
    ba = search._propagate(np.array([ev[i].dm_bound for i in range(lat.size)]))
    least_sup = search._propagate(np.array([float(ev[i].suppressed) for i in range(lat.size)]), upward=False)
    value = np.array([ev[i].value for i in range(lat.size)])
    assert (ba + (enc.n - enc.k) * least_sup <= value + 1e-9).all()


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 2**32 - 1))
def test_lattice_kernels_match_brute_force(seed):
    """Predictive tagging (box odometer), upward/downward max propagation and flash paths."""
    from ktype.algorithms.fulldomain._kernels import _path_kernel, _tag_kernel
    from ktype.algorithms.fulldomain._lattice import Lattice, LatticeSearch

    rng = np.random.default_rng(seed)
    lat = Lattice(rng.integers(0, 4, size=int(rng.integers(1, 5))))
    lv = np.array([rng.integers(0, h + 1) for h in lat.heights], dtype=np.int64)
    for up in (True, False):
        state = rng.choice(np.array([-1, 0, 1], dtype=np.int8), lat.size)
        want = state.copy()
        box = lat.above(lv) if up else lat.below(lv)
        want[box & (want == 0)] = 5
        _tag_kernel(lat.heights, lat.strides, state, lv, up, 5)
        assert (state == want).all()
    vals = rng.random(lat.size)
    search = LatticeSearch.__new__(LatticeSearch)
    search.lat = lat
    up = search._propagate(vals.copy())
    down = search._propagate(vals.copy(), upward=False)
    for i in range(lat.size):
        assert up[i] == vals[lat.below(lat.levels[i])].max()
        assert down[i] == vals[lat.above(lat.levels[i])].max()
    state = rng.choice(np.array([0, 0, 1], dtype=np.int8), lat.size)
    climb = rng.random(lat.size)
    start = int(rng.integers(0, lat.size))
    path = _path_kernel(lat.levels8, lat.heights, lat.strides, state, climb, start).tolist()
    cur = start
    assert path[0] == start
    for nxt in path[1:]:
        succ = [s for s in lat.successors(cur) if state[s] == 0]
        assert nxt == min(succ, key=lambda s: (climb[s], s))
        cur = nxt
    assert not [s for s in lat.successors(cur) if state[s] == 0]
