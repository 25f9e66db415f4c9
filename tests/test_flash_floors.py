"""flash's static infeasibility floors (``LatticeSearch.tag_floors``).

Before searching, flash classifies infeasible, without evaluating them, the nodes below a
column's *floor* (``Encoded.column_floor``) or below a pair of columns' *stair*
(``Encoded.pair_stairs``): a group of one column (or of a pair of columns) with ``1 ..
relax_k − 1`` records holds only classes too small to pass, so its records are suppressed at
every node that publishes the column(s) at that level or finer. These tests recompute the
floors and stairs by brute force (pandas over the hierarchy's own level nodes, not the
encoder's maps), check that every tagged node is infeasible by exhaustive evaluation, and
compare flash with exhaustive search on random tables and on Adult / FARS samples for several
k, with and without suppression, for every measure.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import ktype
from ktype.algorithms.fulldomain import MEASURES
from ktype.algorithms.fulldomain._engine import Encoded
from ktype.algorithms.fulldomain._lattice import LatticeSearch, run_search
from ktype.data.dataset import Dataset
from ktype.data.hierarchy import Hierarchy
from ktype.exceptions import InfeasibleError
from ktype.models.kanonymity import KAnonymity
from ktype.models.ldiversity import DistinctLDiversity, EntropyLDiversity
from tests.test_flash_bounds import assert_bounded_agrees, random_table
from tests.test_flash_zero import tie_table


def _level_groups(ds, j: int, lev: int) -> np.ndarray:
    """Each record's group (hierarchy node) of column ``j`` at level ``lev``."""
    h = ds.hierarchies[j]
    return np.asarray(h.level_nodes(lev))[ds.X[:, j]]


def _small(keys: pd.DataFrame, t: int) -> int:
    """Records in groups of 1 .. t − 1 records (groups: equal rows of ``keys``)."""
    size = keys.groupby(list(keys.columns)).size()
    return int(size[size < t].sum())


def brute_floors(ds, t: int, limit: int):
    """Column floors and pair stairs recomputed from the records (see the module docstring)."""
    H = [h.height for h in ds.hierarchies]
    r = len(H)
    floor = []
    for j in range(r):
        lev = 0
        while lev <= H[j] and _small(pd.DataFrame({"a": _level_groups(ds, j, lev)}), t) > limit:
            lev += 1
        floor.append(lev)
    stairs = {}
    for a in range(r):
        for b in range(a + 1, r):
            st_ab = []
            for la in range(H[a] + 1):
                lb = 0
                while lb <= H[b] and _small(pd.DataFrame({"a": _level_groups(ds, a, la), "b": _level_groups(ds, b, lb)}), t) > limit:
                    lb += 1
                st_ab.append(lb)
            stairs[a, b] = st_ab
    return floor, stairs


def _check_floors(ds, models, sup, meas="loss_metric"):
    enc = Encoded(ds, models, sup, meas)
    t, limit = enc.relax_k, enc.limit
    floor, stairs = brute_floors(ds, t, limit)
    got = enc.column_floor()
    H = enc.heights
    top_ok = all(f <= h for f, h in zip(floor, H)) and all(st_ab[H[a]] <= H[b] for (a, b), st_ab in stairs.items())
    if t <= 1:
        assert got is not None and not got.any()
        return enc, None
    if any(f > h for f, h in zip(floor, H)):
        assert got is None
        return enc, None
    assert got.tolist() == floor
    ps = enc.pair_stairs(got)
    if ps is not None:
        pa, pb, st_arr = ps
        for p, (a, b) in enumerate(zip(pa.tolist(), pb.tolist())):
            for la in range(int(H[a]) + 1):
                # below a's floor every level of b is infeasible; elsewhere the exact stair
                want = int(H[b]) + 1 if la < floor[a] else max(stairs[a, b][la], floor[b])
                assert int(st_arr[p, la]) == want, (a, b, la)
    if not top_ok:
        assert ps is None  # the top fails a pair: no pair tags (the search evaluates the top)
    # tagging: exactly the nodes below a floor or a stair, and each of them is infeasible
    search = LatticeSearch(enc)
    if enc.relaxed:
        search._init_bounds()  # as run_search: state holds the relaxation's feasibility
    search.tag_floors()
    lat = search.lat
    below = np.zeros(lat.size, dtype=bool)
    for j in range(enc.r):
        below |= lat.levels[:, j] < floor[j]
    if ps is not None:
        for p, (a, b) in enumerate(zip(ps[0].tolist(), ps[1].tolist())):
            below |= lat.levels[:, b] < ps[2][p, lat.levels[:, a]]
    tagged = search.state == -1
    evaluated = search.evaluated
    assert (tagged[~evaluated] == below[~evaluated]).all()
    zero = np.zeros(enc.r, dtype=np.int64)
    for node in np.flatnonzero(tagged):
        ev = enc.evaluate(enc.bottom, zero, lat.levels[node], keep=False)
        sup_node = ev.relaxed_sup if enc.relaxed else ev.suppressed
        assert sup_node > limit, (lat.levels[node], sup_node, limit)
    return enc, below


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**32 - 1))
def test_floors_and_stairs_equal_brute_force_and_tag_only_infeasible_nodes(seed):
    ds, k, sup = random_table(seed)
    rng = np.random.default_rng(seed)
    for models in ((KAnonymity(k),), (KAnonymity(k), DistinctLDiversity(2)), (EntropyLDiversity(float(rng.choice([1.5, 2.0]))),)):
        try:
            models[-1].validate(ds)
        except Exception:
            continue
        for s in (0.0, sup):
            _check_floors(ds, models, s)


def _agree(ds, models, s, meas):
    try:
        a = run_search(Encoded(ds, models, s, meas), "flash")
    except InfeasibleError as e:
        with pytest.raises(InfeasibleError) as e2:
            run_search(Encoded(ds, models, s, meas), "exhaustive")
        # the same message after the algorithm's name; with k-anonymity alone also the least
        # suppression (flash evaluates the top, the node of least suppression)
        mine, theirs = str(e).split(": ", 1)[1], str(e2.value).split(": ", 1)[1]
        if not all(type(m) is KAnonymity for m in models):
            mine, theirs = mine.split("; the best node needs")[0], theirs.split("; the best node needs")[0]
        assert mine == theirs
        return None
    b = run_search(Encoded(ds, models, s, meas), "exhaustive")
    assert_bounded_agrees(a, b)
    full = run_search(Encoded(ds, models, s, meas), "flash", k_minimal=True)
    assert full.optimum.tolist() == b.optimum.tolist()
    assert (full.state == b.state).all()  # the full classification, floors included, is exact
    assert sorted(map(tuple, full.minimal.tolist())) == sorted(map(tuple, b.minimal.tolist()))
    return a


@settings(max_examples=50, deadline=None)
@given(seed=st.integers(0, 2**32 - 1))
def test_flash_with_floors_equals_exhaustive_on_random_tables(seed):
    ds, k, sup = random_table(seed)
    for meas in MEASURES:
        for s in (0.0, sup):
            _agree(ds, (KAnonymity(k),), s, meas)
    for s in (0.0, sup):
        _agree(ds, (KAnonymity(k), DistinctLDiversity(2)), s, "discernibility")
        _agree(ds, (EntropyLDiversity(1.5),), s, "loss_metric")


ADULT_QIS = ["age", "education", "marital-status", "occupation", "race", "sex", "native-country"]


@pytest.mark.parametrize("k", [2, 5, 20, 60])
def test_flash_with_floors_equals_exhaustive_on_an_adult_sample(k):
    """Adult (1,500 rows, 7 QIs, ARX hierarchies): the floors tag nodes, and flash returns
    exhaustive's optimum for every measure at 0% and 4% suppression."""
    full = ktype.load_adult(quasi_identifiers=ADULT_QIS)
    ds = full.subset(np.sort(np.random.default_rng(k).choice(full.n, 1500, replace=False)))
    search = LatticeSearch(Encoded(ds, (KAnonymity(k),), 0.0, "discernibility"))
    assert search.tag_floors() > 0
    for meas in ("discernibility", "non_uniform_entropy", "loss_metric"):
        for s in (0.0, 0.04):
            _agree(ds, (KAnonymity(k),), s, meas)


@pytest.mark.parametrize("k", [3, 10, 40])
def test_flash_with_floors_equals_exhaustive_on_a_fars_sample(k):
    from tests.test_edge_cases import _fars_sample

    ds = _fars_sample(1200, k, ["iage", "isex", "irace", "ihispanic", "istatenum", "iinjury"])
    search = LatticeSearch(Encoded(ds, (KAnonymity(k),), 0.0, "discernibility"))
    assert search.tag_floors() > 0
    for meas in ("discernibility", "non_uniform_entropy", "loss_metric"):
        for s in (0.0, 0.04):
            _agree(ds, (KAnonymity(k),), s, meas)


def test_floors_on_an_adult_sample_match_brute_force():
    full = ktype.load_adult(quasi_identifiers=ADULT_QIS)
    ds = full.subset(np.sort(np.random.default_rng(3).choice(full.n, 800, replace=False)))
    for k, s in ((5, 0.0), (12, 0.0), (5, 0.02)):
        _, below = _check_floors(ds, (KAnonymity(k),), s)
        assert below is not None and below.sum() > 0


def test_no_floors_when_the_top_fails():
    """n < k: the top node fails every floor, nothing is tagged, and flash raises the same
    InfeasibleError as exhaustive (the least suppression comes from the evaluated top)."""
    ds, _, _ = random_table(11)
    k = ds.n + 1
    enc = Encoded(ds, (KAnonymity(k),), 0.0, "discernibility")
    assert enc.column_floor() is None
    search = LatticeSearch(enc)
    assert search.tag_floors() == 0 and not (search.state != 0).any()
    with pytest.raises(InfeasibleError, match=f"needs {ds.n} suppressed"):
        run_search(enc, "flash")


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**32 - 1))
def test_height_order_is_lexsort(seed):
    """flash's walk order (two stable sorts) equals ``np.lexsort((priority, height))``, ties
    in priority included."""
    from ktype.algorithms.fulldomain._lattice import height_order

    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 400))
    height = rng.integers(0, int(rng.integers(1, 12)), n)
    priority = rng.integers(0, 5, n) / float(rng.integers(1, 4))
    assert (height_order(priority, height) == np.lexsort((priority, height))).all()


def _brute_dm(ds, k: int, limit: int):
    """(value, level vector) of the discernibility optimum with the tie rule (see above)."""
    import itertools

    H = [h.height for h in ds.hierarchies]
    rows = []
    for lv in itertools.product(*(range(h + 1) for h in H)):
        cols = np.stack([_level_groups(ds, j, lv[j]) for j in range(len(H))], axis=1)
        _, sizes = np.unique(cols, axis=0, return_counts=True)
        sup = int(sizes[sizes < k].sum())
        if sup <= limit:
            rows.append((float((sizes[sizes >= k].astype(float) ** 2).sum() + ds.n * sup), sum(lv), lv))
    if not rows:
        return None
    least = min(v for v, _, _ in rows)
    return min((h, lv, v) for v, h, lv in rows if v <= least + 1e-9 * max(1.0, least))


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), tie=st.booleans())
def test_flash_dm_optimum_equals_enumeration_with_ties(seed, tie):
    """flash's discernibility optimum (at 0% and with suppression) equals an enumeration that
    shares no code with the engine, on random tables and on tables built to tie (identical
    hierarchies, mirrored rows: the tie rule decides)."""
    if tie:
        ds = tie_table(seed)
        k, sup = int(np.random.default_rng(seed).integers(2, 5)), 0.1
    else:
        ds, k, sup = random_table(seed)
    for s in (0.0, sup):
        enc = Encoded(ds, (KAnonymity(k),), s, "discernibility")
        want = _brute_dm(ds, k, enc.limit)
        if want is None:
            with pytest.raises(InfeasibleError):
                run_search(enc, "flash")
            continue
        got = run_search(enc, "flash")
        assert tuple(got.optimum.tolist()) == tuple(want[1]), (s, got.optimum, want)
        assert got.value == pytest.approx(want[2], rel=1e-12)


@pytest.mark.parametrize("d", [1, 7, 4095, 4096, 4097, 9000])
def test_pair_counts_equal_bincount_across_blocks(d):
    """_pair_counts (rows in blocks of 4,096) against np.bincount per pair, mapped ids included."""
    from ktype.algorithms.fulldomain._kernels import _pair_counts

    rng = np.random.default_rng(d)
    r = 4
    G0 = rng.integers(2, 9, r)  # groups at level 0
    maps = [rng.integers(0, max(2, g // 2), g).astype(np.int32) for g in G0]  # level 0 -> floor
    G = np.array([int(m.max()) + 1 for m in maps], dtype=np.int64)
    upflat = np.concatenate(maps).astype(np.int32)
    base = np.concatenate([[0], np.cumsum(G0)[:-1]]).astype(np.int64)
    tab = np.stack([rng.integers(0, g, d) for g in G0], axis=1).astype(np.int16)
    cnt = rng.integers(1, 5, d).astype(np.int64)
    pa = np.array([a for a in range(r) for b in range(a + 1, r)], dtype=np.int64)
    pb = np.array([b for a in range(r) for b in range(a + 1, r)], dtype=np.int64)
    sizes = G[pa] * G[pb]
    poff = np.concatenate([[0], np.cumsum(sizes)[:-1]]).astype(np.int64)
    out = _pair_counts(tab, cnt, upflat, base, G, pa, pb, poff, int(sizes.sum()))
    for p, (a, b) in enumerate(zip(pa, pb)):
        x = maps[a][tab[:, a]].astype(np.int64) * G[b] + maps[b][tab[:, b]]
        want = np.bincount(x, weights=cnt, minlength=int(sizes[p])).astype(np.int64)
        assert (out[poff[p] : poff[p] + sizes[p]] == want).all(), (a, b)


def test_pair_budget_keeps_the_smallest_tables(monkeypatch):
    """With a budget of cells smaller than all pair tables, pair_stairs keeps the smallest
    tables first; the search stays exact with fewer (or no) pairs."""
    from ktype.algorithms.fulldomain import _engine

    full = ktype.load_adult(quasi_identifiers=ADULT_QIS)
    ds = full.subset(np.sort(np.random.default_rng(5).choice(full.n, 1500, replace=False)))
    enc = Encoded(ds, (KAnonymity(5),), 0.0, "discernibility")
    floor = enc.column_floor()
    pa, pb, _ = enc.pair_stairs(floor)
    G = np.array([enc.ngroups[j][int(floor[j])] for j in range(enc.r)])
    cells = G[pa] * G[pb]
    budget = int(np.sort(cells)[: len(cells) // 2].sum())
    monkeypatch.setattr(_engine, "_PAIR_TOTAL", budget)
    pa2, pb2, _ = enc.pair_stairs(floor)
    kept = G[pa2] * G[pb2]
    assert kept.sum() <= budget and len(pa2) >= len(cells) // 2
    assert kept.max() <= np.sort(cells)[len(pa2) - 1]  # no larger table kept in place of a smaller one
    for meas in ("discernibility", "loss_metric"):
        _agree(ds, (KAnonymity(5),), 0.0, meas)
    monkeypatch.setattr(_engine, "_PAIR_TOTAL", 0)
    assert enc.pair_stairs(floor) is None
    _agree(ds, (KAnonymity(5),), 0.0, "discernibility")


def test_a_column_with_many_groups_keeps_the_pair_scratch_small():
    """A column of 100,000 groups at its floor (each value twice, k = 2) is in no pair (its
    tables exceed 2^16 cells); the stairs' scratch is sized by the pairs kept (here 2 x 5), not
    by the widest column (100,000^2 cells would not be allocated)."""
    m = 100_000
    zips = [f"z{i:06d}" for i in range(m)]
    hz = Hierarchy.from_table([[z, z[:4], "*"] for z in zips], name="zip")
    rng = np.random.default_rng(0)
    n = 2 * m
    df = pd.DataFrame({"zip": np.repeat(zips, 2), "sex": rng.choice(["f", "m"], n), "race": rng.choice(list("abcde"), n)})
    hier = {"zip": hz, "sex": Hierarchy.from_table([["f", "*"], ["m", "*"]], name="sex"),
            "race": Hierarchy.from_table([[v, "*"] for v in "abcde"], name="race")}
    ds = Dataset(df, quasi_identifiers=["zip", "sex", "race"], hierarchies=hier)
    enc = Encoded(ds, (KAnonymity(2),), 0.0, "discernibility")
    floor = enc.column_floor()
    assert floor.tolist() == [0, 0, 0]
    pa, pb, _ = enc.pair_stairs(floor)
    assert list(zip(pa.tolist(), pb.tolist())) == [(1, 2)]
    a = run_search(enc, "flash")
    b = run_search(Encoded(ds, (KAnonymity(2),), 0.0, "discernibility"), "exhaustive")
    assert_bounded_agrees(a, b)
