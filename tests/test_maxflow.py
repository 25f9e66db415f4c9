"""The consistency graph's maximum flow (ktype.models._maxflow): OR-Tools and scipy give flows of
the same (maximum) value that pass the independent flow check, the check refuses a flow that
breaks a capacity, conservation or its value, and the graph's answers (matches, k-factor
existence, short records) do not depend on the solver."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ktype.algorithms import get_algorithm
from ktype.datasets.synthetic import census_dataset
from ktype.exceptions import InternalError, InvalidParameterError
from ktype.models import _graph_kernels, _maxflow
from ktype.models._graph import ConsistencyGraph
from ktype.models.freeform import FreeformKAnonymity


def _network(seed: int):
    """A random bipartite transport network: source -> left (cap), left -> right, right -> sink."""
    rng = np.random.default_rng(seed)
    a, b = int(rng.integers(1, 9)), int(rng.integers(1, 9))
    pairs = np.argwhere(rng.random((a, b)) < 0.4)
    s, t = 0, a + b + 1
    tail = np.concatenate([np.zeros(a, dtype=np.int64), 1 + pairs[:, 0], 1 + a + np.arange(b)])
    head = np.concatenate([1 + np.arange(a), 1 + a + pairs[:, 1], np.full(b, t)])
    cap = rng.integers(0, 5, size=len(tail))
    return tail, head, cap, a + b + 2, s, t


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10**6))
def test_both_solvers_find_a_maximum_flow_that_checks(seed):
    tail, head, cap, N, s, t = _network(seed)
    values = {}
    for solver in ("ortools", "scipy"):
        _maxflow.BACKEND = solver
        try:
            value, flow = _maxflow.max_flow(tail, head, cap, N, s, t)
        finally:
            _maxflow.BACKEND = "auto"
        _maxflow.check_flow(tail, head, cap, flow, N, s, t, value)
        values[solver] = value
    # the value is maximum: no augmenting path is left in the residual network (max-flow min-cut)
    assert values["ortools"] == values["scipy"]
    assert values["scipy"] == _brute_max_flow(tail, head, cap, N, s, t)


def _brute_max_flow(tail, head, cap, N, s, t) -> int:
    """Edmonds-Karp on a dense matrix (tiny networks only)."""
    R = np.zeros((N, N), dtype=np.int64)
    np.add.at(R, (tail, head), cap)
    total = 0
    while True:
        prev = np.full(N, -1)
        prev[s] = s
        queue = [s]
        for u in queue:  # breadth-first search over a tiny matrix
            for v in np.flatnonzero((R[u] > 0) & (prev < 0)):
                prev[v] = u
                queue.append(int(v))
        if prev[t] < 0:
            return total
        path, v = [], t
        while v != s:
            path.append((prev[v], v))
            v = prev[v]
        push = min(R[u, v] for u, v in path)
        for u, v in path:
            R[u, v] -= push
            R[v, u] += push
        total += int(push)


def test_check_flow_refuses_broken_flows():
    tail, head, cap, N, s, t = _network(3)
    value, flow = _maxflow.max_flow(tail, head, cap, N, s, t)
    assert value > 0
    _maxflow.check_flow(tail, head, cap, flow, N, s, t, value)
    e = int(np.flatnonzero(flow > 0)[0])
    for bad, v in ((_with(flow, e, cap[e] + 1), value),  # over capacity (and not conserved)
                   (_with(flow, e, flow[e] - 1), value),  # not conserved
                   (flow, value + 1)):  # not of its value
        with pytest.raises(InternalError):
            _maxflow.check_flow(tail, head, cap, bad, N, s, t, v)


def _with(a: np.ndarray, i: int, x: int) -> np.ndarray:
    b = a.copy()
    b[i] = x
    return b


@pytest.mark.parametrize("seed", range(3))
def test_graph_answers_do_not_depend_on_the_solver(monkeypatch, seed):
    ds = census_dataset(60, rng=seed)
    rel = get_algorithm("freeform_sortgreedy").func(ds, FreeformKAnonymity(3), rng=seed, partition_size=20)
    view = SimpleNamespace(dataset=rel.dataset, lo=rel.lo, hi=rel.hi, source=None, cells=rel.cells)
    got = {}
    for solver in ("ortools", "scipy"):
        monkeypatch.setattr(_maxflow, "BACKEND", solver)
        g = ConsistencyGraph(view)
        matches = ConsistencyGraph(view).is_match.copy()  # from the perfect-matching flow
        factors = {k: g.k_factor(k) for k in (3, 4, 60)}
        got[solver] = (matches, g.is_match.copy(), factors)
    (m1, f1, k1), (m2, f2, k2) = got["ortools"], got["scipy"]
    assert np.array_equal(m1, m2) and np.array_equal(f1, f2) and np.array_equal(m1, f1)
    for k in k1:  # existence and the short records (those of a failed flow come from scipy's on any install)
        assert k1[k][0] == k2[k][0] and np.array_equal(k1[k][1], k2[k][1])
    assert k1[3][0] and not k1[60][0] and k1[60][1].any()


@pytest.mark.parametrize("solver", ["ortools", "other"])
def test_short_records_of_a_failed_k_factor_do_not_depend_on_the_flow_found(monkeypatch, solver):
    """Records A, B, C; rows {A,B}, C, C: no perfect matching, and A or B is left short depending
    on the maximum flow found (OR-Tools leaves A, scipy B). The reported ones are scipy's on any
    install. ``other`` stands in for a further solver: scipy on the network with its inner nodes
    numbered backwards."""
    import pandas as pd

    from ktype import Dataset
    from ktype.audit import parse_release

    real = _maxflow.max_flow

    def other(tail, head, cap, n_nodes, s, t, solver=None):
        if solver == "scipy":
            return real(tail, head, cap, n_nodes, s, t, solver="scipy")
        p = np.arange(n_nodes)
        p[1:-1] = p[1:-1][::-1]
        return real(p[tail], p[head], cap, n_nodes, p[s], p[t], solver="scipy")

    ds = Dataset(pd.DataFrame({"x": list("ABC")}), quasi_identifiers=["x"], hierarchies={"x": "flat"})
    rel = parse_release(ds, pd.DataFrame({"x": ["{A,B}", "C", "C"]}), recoding="freeform")
    monkeypatch.setattr(_maxflow, "BACKEND", "scipy")
    want = ConsistencyGraph(rel).k_factor(1)
    assert not want[0] and want[1].sum() == 1 and not want[1][2]
    monkeypatch.setattr(_maxflow, "BACKEND", solver)
    if solver == "other":
        monkeypatch.setattr(_maxflow, "max_flow", other)
    g = ConsistencyGraph(rel)
    # the solver's own flow leaves the other record short ...
    A = g.n_orig_types
    net = g._type_network(g.orig_mult, np.minimum(g.orig_mult[g.edge_orig], g.box_mult[g.edge_box]), g.box_mult)
    _, f = _maxflow.max_flow(*net)
    assert not np.array_equal((f[:A] < g.orig_mult)[g.orig_type], want[1])
    # ... but the graph reports scipy's
    got = g.k_factor(1)
    assert not got[0] and np.array_equal(got[1], want[1])


def test_a_full_flow_is_believed_only_once_checked(monkeypatch):
    """A solver that claims the full value with a flow that does not carry it is caught, on the
    k-factor and on the matching flow alike: a check never passes on the solver's word."""
    ds = census_dataset(30, rng=1)
    rel = get_algorithm("freeform_sortgreedy").func(ds, FreeformKAnonymity(2), rng=1, partition_size=10)
    view = SimpleNamespace(dataset=rel.dataset, lo=rel.lo, hi=rel.hi, source=None, cells=rel.cells)

    def liar(tail, head, cap, n_nodes, s, t, solver=None):
        return int(cap[tail == s].sum()), np.zeros(len(tail), dtype=np.int64)

    monkeypatch.setattr(_maxflow, "max_flow", liar)
    # the forced edges fix nothing here, so the solver is asked for the whole k-factor flow
    monkeypatch.setattr(_graph_kernels, "forced_flow", _fixes_nothing)
    with pytest.raises(InternalError, match="not conserved or not of its value"):
        ConsistencyGraph(view).k_factor(2)
    with pytest.raises(InternalError, match="not conserved or not of its value"):
        _ = ConsistencyGraph(view).flow


def test_the_whole_networks_flow_is_checked_when_the_forced_path_gives_none(monkeypatch):
    """Where the forced edges and the reduced network give no full flow, the whole network's
    maximum flow decides: a full one is believed only once checked, and found when it exists."""
    ds = census_dataset(30, rng=1)
    rel = get_algorithm("freeform_sortgreedy").func(ds, FreeformKAnonymity(2), rng=1, partition_size=10)
    view = SimpleNamespace(dataset=rel.dataset, lo=rel.lo, hi=rel.hi, source=None, cells=rel.cells)
    monkeypatch.setattr(ConsistencyGraph, "_forced_then_max_flow", lambda self, *caps: None)
    assert ConsistencyGraph(view).k_factor(2)[0]

    def liar(tail, head, cap, n_nodes, s, t, solver=None):
        return int(cap[tail == s].sum()), np.zeros(len(tail), dtype=np.int64)

    monkeypatch.setattr(_maxflow, "max_flow", liar)
    with pytest.raises(InternalError, match="not conserved or not of its value"):
        ConsistencyGraph(view).k_factor(2)


def test_scipy_refuses_capacities_from_2_to_the_31():
    """scipy's solver holds capacities in int32: 2^31 is refused, 2^31 - 1 solved."""
    tail, head = np.array([0]), np.array([1])
    value, _ = _maxflow.max_flow(tail, head, np.array([2**31 - 1]), 2, 0, 1, solver="scipy")
    assert value == 2**31 - 1
    with pytest.raises(InvalidParameterError, match="below 2\\^31"):
        _maxflow.max_flow(tail, head, np.array([2**31]), 2, 0, 1, solver="scipy")


def test_without_ortools_scipy_solves(monkeypatch):
    """An install without the fast-audit extra: the backend is scipy, and a flow asked of scipy
    never touches OR-Tools."""
    import sys

    for name in ("ortools", "ortools.graph", "ortools.graph.python", "ortools.graph.python.max_flow"):
        monkeypatch.setitem(sys.modules, name, None)  # every import of it fails
    assert _maxflow.backend() == "scipy"
    tail, head, cap, N, s, t = _network(5)
    value, flow = _maxflow.max_flow(tail, head, cap, N, s, t, solver="scipy")
    _maxflow.check_flow(tail, head, cap, flow, N, s, t, value)
    assert value == _brute_max_flow(tail, head, cap, N, s, t)


def test_no_arcs_no_flow():
    value, flow = _maxflow.max_flow(np.zeros(0), np.zeros(0), np.zeros(0), 2, 0, 1)
    assert value == 0 and flow.dtype == np.int64 and flow.shape == (0,)


def test_check_flow_names_each_fault():
    """Over capacity, unconserved at one inner node only (the source still sends the value),
    and a network whose last node is not the sink."""
    # s=0 -> 1 -> 2 -> t=3, and a spare node 4 nobody enters
    tail, head, cap = np.array([0, 1, 2, 4]), np.array([1, 2, 3, 0]), np.array([2, 2, 2, 0])
    flow = np.array([2, 2, 2, 0])
    _maxflow.check_flow(tail, head, cap, flow, 5, 0, 3, 2)  # valid; node 4 (the last) has no in-arc
    with pytest.raises(InternalError, match="^the maximum-flow solver returned a flow outside the capacities$"):
        _maxflow.check_flow(tail, head, cap, np.array([2, 3, 2, 0]), 5, 0, 3, 2)
    unconserved = "^the maximum-flow solver returned a flow that is not conserved or not of its value$"
    with pytest.raises(InternalError, match=unconserved):
        _maxflow.check_flow(tail, head, cap, np.array([2, 1, 1, 0]), 5, 0, 3, 2)  # node 1 keeps a unit
    # the source sends the value and the sink receives it, but node 4 makes a unit from nothing
    tail4, head4, cap4 = np.array([0, 1, 2, 4]), np.array([1, 2, 3, 2]), np.array([2, 3, 2, 1])
    with pytest.raises(InternalError, match=unconserved):
        _maxflow.check_flow(tail4, head4, cap4, np.array([2, 2, 2, 1]), 5, 0, 3, 2)


def test_a_failed_k_factor_is_solved_once_with_scipy(monkeypatch):
    """With scipy as the solver, the short records of a failed k-factor come from its one flow."""
    ds = census_dataset(30, rng=2)
    rel = get_algorithm("freeform_sortgreedy").func(ds, FreeformKAnonymity(2), rng=2, partition_size=10)
    view = SimpleNamespace(dataset=rel.dataset, lo=rel.lo, hi=rel.hi, source=None, cells=rel.cells)
    calls = []
    real = _maxflow.max_flow
    monkeypatch.setattr(_maxflow, "BACKEND", "scipy")
    monkeypatch.setattr(_maxflow, "max_flow", lambda *a, **kw: calls.append(1) or real(*a, **kw))
    exists, short = ConsistencyGraph(view).k_factor(30)
    assert not exists and short.all() and len(calls) == 1


@pytest.mark.parametrize("seed", range(4))
def test_released_match_counts_equal_brute_force(seed):
    """Per released row, the number of records it is a match of: the column sums of the
    record-level matches (perfect matchings enumerated on a tiny release), hidden rows too."""
    import pandas as pd

    from ktype import Dataset
    from ktype.models._graph import matches_from_adjacency
    from ktype.release import Release

    rng = np.random.default_rng(seed)
    n = 6
    df = pd.DataFrame({"a": rng.integers(0, 4, n), "b": rng.integers(0, 3, n)})
    ds = Dataset(df, quasi_identifiers=["a", "b"], hierarchies={"a": "ordered", "b": "ordered"})
    X, m = ds.X, np.asarray(ds.domain_sizes)
    lo = rng.integers(0, X + 1)
    hi = X + rng.integers(0, m - X)
    rel = Release.build(ds, lo.astype(np.int32), hi.astype(np.int32), recoding="local")
    g = ConsistencyGraph(rel)
    adj = ((X[:, None, :] >= rel.lo[None]) & (X[:, None, :] <= rel.hi[None])).all(axis=2)
    assert np.array_equal(g.released_match_counts(), matches_from_adjacency(adj).sum(axis=0))
    assert np.array_equal(g.record_adjacency().toarray().astype(bool), adj)
    labels, sizes = g.components()
    assert sizes.dtype == np.int64 and sizes.sum() == n  # record counts, printed as integers
    # a file without its last row: the hidden whole-domain row takes the last box type
    short = SimpleNamespace(dataset=ds, lo=rel.lo[:-1], hi=rel.hi[:-1], source=None,
                            cells=lambda: (rel.lo[:-1], rel.hi[:-1], {}))
    gs = ConsistencyGraph(short)
    full = np.concatenate([adj[:, :-1], np.ones((n, 1), dtype=bool)], axis=1)  # hidden: covers every record
    assert np.array_equal(gs.record_adjacency().toarray().astype(bool), adj[:, :-1])
    assert np.array_equal(gs.released_match_counts(), matches_from_adjacency(full).sum(axis=0)[:-1])
    # boxes [0, x]: the hidden whole-domain row's box type is the last one (no published row has it)
    lo0, hi0 = np.zeros_like(X)[:-1], X[:-1].copy()
    first = SimpleNamespace(dataset=ds, lo=lo0, hi=hi0, source=None, cells=lambda: (lo0, hi0, {}))
    gf = ConsistencyGraph(first)
    assert gf.hidden_type == gf.n_box_types - 1  # (seeds 0-2: a type no published row has)
    adj0 = (X[:, None, :] <= hi0[None]).all(axis=2)
    assert np.array_equal(gf.record_adjacency().toarray().astype(bool), adj0)


def _fixes_nothing(ea, eb, cap, da, db):
    return (np.zeros(len(ea), dtype=np.int64), np.ones(len(ea), dtype=bool), cap.copy(), da.copy(), db.copy(), True)


def _transport(seed: int):
    """A random balanced transportation network as the k-factor flow has it: supplies ``k·ma``,
    demands ``k·mb`` of the same total, edge capacities ``min(ma·mb, k·ma, k·mb)``."""
    rng = np.random.default_rng(seed)
    A, B, k = int(rng.integers(1, 7)), int(rng.integers(1, 7)), int(rng.integers(1, 4))
    ma = rng.integers(1, 4, size=A)
    mb = np.bincount(rng.integers(0, B, size=int(ma.sum())), minlength=B)
    keep = mb > 0
    mb = mb[keep]
    B = len(mb)
    pairs = np.argwhere(rng.random((A, B)) < rng.uniform(0.3, 0.9))
    ea, eb = pairs[:, 0].astype(np.int64), pairs[:, 1].astype(np.int64)
    graph = SimpleNamespace(edge_orig=ea, edge_box=eb, n_orig_types=A, n_box_types=B, n_edges=len(ea))
    net = ConsistencyGraph._type_network(graph, k * ma, np.minimum(np.minimum(ma[ea] * mb[eb], k * ma[ea]), k * mb[eb]),
                                         k * mb)
    return graph, net, k


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10**6))
def test_forced_edges_then_a_maximum_flow_find_a_full_flow_exactly_when_one_exists(seed):
    """Fixing the flow on the edges every full flow fills, then solving what is left, gives a
    full flow (checked) whenever the whole network has one (brute force), and None otherwise."""
    graph, net, k = _transport(seed)
    tail, head, cap, N, s, t = net
    full = int(cap[tail == s].sum())
    exists = _brute_max_flow(tail, head, cap, N, s, t) == full
    cap_a, cap_e, cap_b = _caps(graph, cap)
    got = ConsistencyGraph._forced_then_max_flow(graph, cap_a, cap_e, cap_b)
    assert (got is not None) == exists
    if got is not None:
        _maxflow.check_flow(tail, head, cap, np.concatenate([cap_a, got, cap_b]), N, s, t, full)
        _maxflow.check_transport_flow(graph.edge_orig, graph.edge_box, cap_a, cap_e, cap_b, got)


def _caps(graph, cap):
    """The supplies, edge capacities and demands of a network from :func:`_transport`."""
    A, E = graph.n_orig_types, graph.n_edges
    return cap[:A], cap[A:A + E], cap[A + E:]


def test_check_transport_flow_refuses_a_conserved_flow_beyond_an_edge():
    """Supplies and demands met exactly, but along an edge beyond its capacity, or below 0."""
    src, dst = np.array([0, 0, 1, 1]), np.array([0, 1, 0, 1])
    supply = demand = np.array([2, 2])
    cap = np.array([1, 1, 1, 1])
    _maxflow.check_transport_flow(src, dst, supply, cap, demand, np.array([1, 1, 1, 1]))
    for bad, caps in (([2, 0, 0, 2], cap), ([3, -1, -1, 3], 3 * cap)):
        with pytest.raises(InternalError, match="outside the capacities"):
            _maxflow.check_transport_flow(src, dst, supply, caps, demand, np.array(bad))


def test_check_transport_flow_refuses_what_check_flow_refuses():
    """The per-edge check of a full transport flow against the whole network's check: on every
    small change of a full flow (one edge one unit up or down, two edges trading a unit) both
    refuse it or both accept it."""
    for seed in range(300):
        graph, net, k = _transport(seed)
        tail, head, cap, N, s, t = net
        full = int(cap[tail == s].sum())
        value, flow = _maxflow.max_flow(tail, head, cap, N, s, t, solver="scipy")
        if value != full:
            continue
        cap_a, cap_e, cap_b = _caps(graph, cap)
        A, E = graph.n_orig_types, graph.n_edges
        fe = flow[A:A + E]
        rng = np.random.default_rng(seed)
        for _ in range(6):
            bad = fe.copy()
            e = rng.integers(E)
            bad[e] += rng.choice([-1, 1])
            if rng.random() < 0.5:
                bad[rng.integers(E)] -= bad[e] - fe[e]
            whole = np.concatenate([cap_a, bad, cap_b])
            verdicts = []
            for check, args in ((_maxflow.check_flow, (tail, head, cap, whole, N, s, t, full)),
                                (_maxflow.check_transport_flow, (graph.edge_orig, graph.edge_box, cap_a, cap_e, cap_b, bad))):
                try:
                    check(*args)
                    verdicts.append(True)
                except InternalError:
                    verdicts.append(False)
            assert verdicts[0] == verdicts[1], (seed, bad.tolist(), fe.tolist())


def test_the_forced_edges_meet_part_of_the_flow_and_the_solver_the_rest(monkeypatch):
    """On a network with both kinds of edges the solver is asked only for the flow left, on the
    edges left; the flows put together are checked on the whole network."""
    seen = []
    real = _maxflow.max_flow
    monkeypatch.setattr(_maxflow, "max_flow", lambda *a, **kw: (seen.append(len(a[0])), real(*a, **kw))[1])
    mixed = 0
    for seed in range(200):
        graph, net, k = _transport(seed)
        seen.clear()
        got = ConsistencyGraph._forced_then_max_flow(graph, *_caps(graph, net[2]))
        if got is not None and seen and seen[0] < len(net[0]):
            fe = _graph_kernels.forced_flow(graph.edge_orig, graph.edge_box, *(
                net[2][graph.n_orig_types:graph.n_orig_types + graph.n_edges], net[2][:graph.n_orig_types],
                net[2][graph.n_orig_types + graph.n_edges:]))[0]
            mixed += bool(fe.any())
    assert mixed >= 10


def test_a_one_arc_network_and_an_empty_one():
    """The smallest networks: one arc from the source to the sink carries its capacity; no arc
    carries nothing (the solvers are not asked)."""
    for solver in ("ortools", "scipy"):
        value, flow = _maxflow.max_flow(np.array([0]), np.array([1]), np.array([5]), 2, 0, 1, solver=solver)
        assert value == 5 and flow.tolist() == [5]
    value, flow = _maxflow.max_flow(np.zeros(0), np.zeros(0), np.zeros(0), 2, 0, 1)
    assert value == 0 and flow.shape == (0,)


def test_node_numbers_of_either_integer_width_and_nothing_else():
    """Networks come with int32 node numbers (the k-factor networks) or int64 ones: the same
    flow from both solvers; float node numbers are refused, not truncated."""
    tail, head, cap, N, s, t = _network(3)
    for solver in ("ortools", "scipy"):
        v64, f64 = _maxflow.max_flow(tail.astype(np.int64), head.astype(np.int64), cap, N, s, t, solver=solver)
        v32, f32 = _maxflow.max_flow(tail.astype(np.int32), head.astype(np.int32), cap, N, s, t, solver=solver)
        assert v64 == v32 and np.array_equal(f64, f32)
        with pytest.raises(InvalidParameterError, match="integer node numbers"):
            _maxflow.max_flow(tail + 0.5, head, cap, N, s, t, solver=solver)
