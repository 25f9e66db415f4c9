"""Many quasi-identifiers: the size guard of the exact lattice searches, the sparse searches
(datafly, samarati) that never build the lattice, and their agreement with brute force."""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ktype.algorithms import run
from ktype.algorithms.fulldomain import MEASURES, _lattice, lattice_search
from ktype.algorithms.fulldomain._datafly import datafly_search
from ktype.algorithms.fulldomain._engine import Encoded
from ktype.algorithms.fulldomain._lattice import dense_search_bytes, lattice_size, run_search
from ktype.algorithms.fulldomain._lightning import lightning_search
from ktype.algorithms.fulldomain._samarati import layer, layer_sizes
from ktype.data.dataset import Dataset
from ktype.data.hierarchy import Hierarchy
from ktype.exceptions import InfeasibleError, KtypeError, LatticeTooLargeError
from ktype.models.kanonymity import KAnonymity
from tests.test_fulldomain_props import random_case


def synthetic(r: int, n: int = 300, m: int = 8, seed: int = 0) -> Dataset:
    """``r`` QIs with ``m`` values and a 3-level hierarchy each (pairs, quadruples, ``*``)."""
    rng = np.random.default_rng(seed)
    data, hier = {}, {}
    for j in range(r):
        vals = [f"v{i}" for i in range(m)]
        rows = [[v, f"g{i // 2}", f"h{i // 4}", "*"] for i, v in enumerate(vals)]
        name = f"q{j}"
        hier[name] = Hierarchy.from_table(rows, name=name)
        data[name] = rng.choice(vals, n, p=rng.dirichlet(np.ones(m)))
    return Dataset(pd.DataFrame(data), quasi_identifiers=list(hier), hierarchies=hier)


@pytest.mark.parametrize("name", ["flash", "exhaustive", "incognito", "samarati"])
def test_sixty_qis_refused_with_numbers(name):
    """60 QIs (4^60 nodes; int64 overflowed to an IndexError before): a clear error that names
    the lattice size, the memory and the way out, before any per-node allocation."""
    ds = synthetic(60)
    with pytest.raises(LatticeTooLargeError) as e:
        run(name, ds, KAnonymity(5), max_suppression=0.02)
    msg = str(e.value)
    assert msg.startswith(name) and f"{4**60:,} nodes" in msg and "lightning" in msg and "fewer quasi-identifiers" in msg
    assert isinstance(e.value, KtypeError)


def test_sixty_qis_lattice_search_refused():
    with pytest.raises(LatticeTooLargeError, match="nodes"):
        lattice_search(synthetic(60), KAnonymity(5), max_suppression=0.02)


def test_sixty_qis_datafly_runs_sparse():
    """datafly walks one chain of a 4^60-node lattice: at most Σh+1 nodes visited."""
    ds = synthetic(60)
    rel = run("datafly", ds, KAnonymity(5), max_suppression=0.02)
    lat = rel.provenance["lattice"]
    assert lat["nodes"] == str(4**60)
    assert lat["nodes_evaluated"] == len(lat["steps"]) + 1 <= 181
    assert rel.n_suppressed <= 0.02 * ds.n


def test_guard_limit_applies(monkeypatch):
    """A lattice whose per-node arrays exceed the limit is refused (the estimate is exact and
    shown); below the limit the same search runs."""
    ds = synthetic(4)
    need = dense_search_bytes([3, 3, 3, 3])
    assert lattice_size([3, 3, 3, 3]) == 256 and need == 256 * (26 * 4 + 96)
    monkeypatch.setattr(_lattice, "MAX_LATTICE_BYTES", need - 1)
    for name in ("flash", "exhaustive", "incognito"):
        with pytest.raises(LatticeTooLargeError, match="256 nodes"):
            run(name, ds, KAnonymity(2))
    monkeypatch.setattr(_lattice, "MAX_LATTICE_BYTES", need)
    assert run("flash", ds, KAnonymity(2)).levels is not None


@settings(max_examples=50, deadline=None)
@given(heights=st.lists(st.integers(0, 4), min_size=1, max_size=5), data=st.data())
def test_layers_match_brute_force(heights, data):
    """Samarati's height layers: every level vector of height t, lexicographic; sizes exact."""
    h = np.array(heights, dtype=np.int64)
    allv = sorted(itertools.product(*[range(x + 1) for x in heights]))
    sizes = layer_sizes(h)
    assert sizes == [sum(1 for v in allv if sum(v) == t) for t in range(int(h.sum()) + 1)]
    t = data.draw(st.integers(0, int(h.sum())))
    assert [tuple(v) for v in layer(h, t).tolist()] == [v for v in allv if sum(v) == t]


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32 - 1))
def test_datafly_matches_greedy_oracle(seed):
    """Sparse datafly = the greedy rule applied with each node evaluated from the bottom and
    distinct values counted on the materialized columns."""
    ds, models, sup = random_case(seed)
    enc = Encoded(ds, models, sup, "loss_metric")
    zero = np.zeros(enc.r, dtype=np.int64)
    lv = zero.copy()
    while True:
        ev = enc.evaluate(enc.bottom, zero, lv, always_value=True)
        if ev.feasible:
            break
        distinct = np.array([len(np.unique(enc.gmap[j][lv[j]][ds.X[:, j]])) for j in range(enc.r)])
        distinct[lv >= enc.heights] = -1
        if (distinct < 0).all():
            with pytest.raises(InfeasibleError):
                datafly_search(enc)
            return
        lv[int(np.argmax(distinct))] += 1
    res = datafly_search(enc)
    assert res.optimum.tolist() == lv.tolist()
    assert res.optimum_suppressed == ev.suppressed
    assert res.value == pytest.approx(ev.value, rel=1e-12, abs=1e-12)
    assert res.n_nodes == lattice_size(enc.heights)
    assert res.n_evaluated == len(res.extra["steps"]) + 1 == int(lv.sum()) + 1


# ---------------------------------------------------------------- lightning (best-effort)
def _exhaustive(ds, models, sup, meas):
    try:
        return run_search(Encoded(ds, models, sup, meas), "exhaustive")
    except InfeasibleError:
        return None


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32 - 1))
def test_lightning_without_budget_is_exact(seed):
    """With no budget Lightning runs until its queue is empty: the exhaustive optimum's value,
    ``exhausted`` set and the lower bound equal to the value (pruning by bounds is sound)."""
    ds, models, sup = random_case(seed)
    for meas in MEASURES:
        ex = _exhaustive(ds, models, sup, meas)
        enc = Encoded(ds, models, sup, meas)
        if ex is None:
            with pytest.raises(InfeasibleError):
                lightning_search(enc, time_limit=None, max_nodes=None)
            continue
        res = lightning_search(enc, time_limit=None, max_nodes=None)
        assert res.value == pytest.approx(ex.value, rel=1e-9, abs=1e-9), meas
        assert res.extra["exhausted"] and res.extra["stopped"] == ""
        assert res.optimum_suppressed <= enc.limit
        if res.extra["lower_bound"] is not None:
            assert res.extra["lower_bound"] == pytest.approx(res.value) and res.extra["gap"] == pytest.approx(0.0, abs=1e-9)


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), budget=st.integers(1, 12))
def test_lightning_budget_bound_brackets_optimum(seed, budget):
    """Under a node budget the result is feasible, never better than the optimum, and the
    reported lower bound never exceeds the optimum."""
    ds, models, sup = random_case(seed)
    for meas in ("loss_metric", "non_uniform_entropy", "discernibility", "height"):
        ex = _exhaustive(ds, models, sup, meas)
        if ex is None:
            continue
        res = lightning_search(Encoded(ds, models, sup, meas), time_limit=None, max_nodes=budget)
        tol = 1e-9 * max(1.0, abs(ex.value))
        assert res.optimum_suppressed <= Encoded(ds, models, sup, meas).limit
        assert res.value >= ex.value - tol
        lb = res.extra["lower_bound"]
        assert lb is not None and lb <= ex.value + tol, (meas, lb, ex.value)
        assert res.n_evaluated <= budget + 2


def test_lightning_sixty_qis_release():
    """60 QIs (4^60 nodes): a verified release within a node budget, reproducible, with the
    progress trace and the sparse summary."""
    ds = synthetic(60)
    a = run("lightning", ds, KAnonymity(5), measure="loss_metric", max_suppression=0.02, time_limit=None, max_nodes=400)
    b = run("lightning", ds, KAnonymity(5), measure="loss_metric", max_suppression=0.02, time_limit=None, max_nodes=400)
    lat = a.provenance["lattice"]
    assert a.levels.tolist() == b.levels.tolist()
    assert lat["nodes"] == str(4**60) and lat["stopped"] == "max_nodes" and not lat["exhausted"]
    assert lat["progress"] and lat["progress"][-1]["value"] == pytest.approx(lat["value"])
    assert 0 <= lat["lower_bound"] <= lat["value"] and a.n_suppressed <= 0.02 * ds.n


def test_lightning_time_limit_stops():
    ds = synthetic(60)
    rel = run("lightning", ds, KAnonymity(5), measure="loss_metric", max_suppression=0.02, time_limit=0.2)
    assert rel.provenance["lattice"]["stopped"] == "time_limit"


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32 - 1))
def test_lightning_node_bound_is_sound(seed):
    """The bound Lightning prunes with holds for the node and every feasible generalization
    (no-suppression value for the additive measures, Σ|E|·max(|E|,k) for discernibility)."""
    from ktype.algorithms.fulldomain._lightning import _Lightning

    ds, models, sup = random_case(seed)
    for meas in MEASURES:
        ex = _exhaustive(ds, models, sup, meas)
        if ex is None:
            continue
        st = _Lightning(Encoded(ds, models, sup, meas), None, None)
        for lv in ex.levels:
            b = st.bound_of(lv, st.search.evaluate(lv, always_value=True))
            above = (ex.levels >= lv).all(axis=1) & (ex.state == 1)
            assert (ex.values[above] >= b - 1e-9 * max(1.0, abs(b))).all(), (meas, lv)


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), squeeze=st.integers(1, 4))
def test_packing_base_matches_table_rows(seed, squeeze):
    """When the level-0 group ids do not fit the packing bits, the columns with the most
    values are raised to a packing base: nodes at or above it are bit-packed (rolled up from
    the unpacked bottom, then from packed sets), the others stay tables; every node's classes
    and value equal those of an all-table encoding."""
    from ktype.algorithms.fulldomain import _engine
    from tests.test_fulldomain_props import _evaluate_all

    ds, models, sup = random_case(seed)
    models = (KAnonymity(2),)
    meas = "loss_metric"
    full = Encoded(ds, models, sup, meas)
    level0 = int(sum(max(1, int(g[0] - 1).bit_length()) for g in full.ngroups))
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(_engine, "_PACK_BITS", max(level0 - squeeze, 0))
        based = Encoded(ds, models, sup, meas)
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(_engine, "_PACK_BITS", 0)
        table = Encoded(ds, models, sup, meas)
    assert not table.packed
    if based.packed:
        assert based.pack_base.any() and based.bottom.codes is None
    _, ev_b = _evaluate_all(based)
    lat, ev_t = _evaluate_all(table)
    for node, a in ev_b.items():
        b = ev_t[node]
        assert (a.suppressed, a.n_classes, a.feasible) == (b.suppressed, b.n_classes, b.feasible)
        assert a.value == pytest.approx(b.value, rel=1e-12, abs=1e-12)
        assert (a.fs.codes is not None) == based.packs(lat.levels[node])
        rows_b = sorted(zip(map(tuple, based.table(a.fs).tolist()), a.fs.cnt.tolist()))
        rows_t = sorted(zip(map(tuple, table.table(b.fs).tolist()), b.fs.cnt.tolist()))
        assert rows_b == rows_t


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), k=st.integers(1, 4))
def test_hashed_rollup_matches_exact_rollup(seed, k):
    """Roll-ups by incremental row hashes (wide rows, k-anonymity) give every node the same
    classes, suppression and value as the exact table roll-up, from the bottom and from a
    hashed direct specialization; lightning on hashed rows stays exact without a budget."""
    from ktype.algorithms.fulldomain import _engine
    from ktype.algorithms.fulldomain._hashed import HashedRollup
    from ktype.algorithms.fulldomain._lattice import Lattice

    ds, _, sup = random_case(seed)
    models = (KAnonymity(k),)
    for meas in ("loss_metric", "non_uniform_entropy", "discernibility"):
        with pytest.MonkeyPatch.context() as mp:
            mp.setattr(_engine, "_PACK_BITS", 0)
            enc = Encoded(ds, models, sup, meas)
        assert HashedRollup.usable(enc)
        hr = HashedRollup(enc)
        lat = Lattice(enc.heights)
        zero = np.zeros(enc.r, dtype=np.int64)
        for node in range(lat.size):
            lv = lat.levels[node]
            exact = enc.evaluate(enc.bottom, zero, lv, always_value=True)
            hashed = [hr.evaluate(hr.bottom, zero, lv)]
            for p in lat.predecessors(node):
                hashed.append(hr.evaluate(hr.evaluate(hr.bottom, zero, lat.levels[p]).fs, lat.levels[p], lv))
            rows_e = sorted(zip(map(tuple, enc.table(exact.fs).tolist()), exact.fs.cnt.tolist()))
            for h in hashed:
                assert (h.n_classes, h.suppressed, h.feasible) == (exact.n_classes, exact.suppressed, exact.feasible)
                assert h.value == pytest.approx(exact.value, rel=1e-12, abs=1e-12)
                assert h.dm_bound == exact.dm_bound
                assert sorted(zip(map(tuple, h.fs.tab.tolist()), h.fs.cnt.tolist())) == rows_e
        want = _exhaustive(ds, models, sup, meas)
        with pytest.MonkeyPatch.context() as mp:
            mp.setattr(_engine, "_PACK_BITS", 0)
            wide = Encoded(ds, models, sup, meas)
        if want is None:
            with pytest.raises(InfeasibleError):
                lightning_search(wide, time_limit=None)
        else:
            assert lightning_search(wide, time_limit=None).value == pytest.approx(want.value, rel=1e-9, abs=1e-9)
