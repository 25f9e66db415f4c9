"""Maximum flow for the consistency graph's checks (perfect matchings, k-factors).

One function, :func:`max_flow`, on an arc list (tail, head, capacity; every (tail, head) pair
at most once). Two exact solvers stand behind it:

* OR-Tools' ``SimpleMaxFlow`` (push-relabel, C++), when the optional ``fast-audit`` extra is
  installed (``pip install "ktype[fast-audit]"``). On the k-factor network of a freeform
  release of 10⁶ rows (1.55M nodes, 14.1M arcs) it solves in 8.6 s where scipy's Dinic takes
  26 s (``benchmarks/results/audit.md``);
* scipy's ``maximum_flow`` (Dinic) otherwise.

Which one ran never changes what a check reports: a full flow is a certificate
(:func:`check_flow` verifies capacities and conservation before it is believed); the value,
and the matches derived from any full flow, are the same for every maximum flow
(:mod:`ktype.models._graph`); and where a report depends on which maximum flow was found (the
records a failed k-factor flow leaves short), the caller asks scipy for it.
"""

from __future__ import annotations

import numpy as np

from ..exceptions import InternalError, InvalidParameterError

__all__ = ["max_flow", "check_flow", "check_transport_flow", "backend"]

#: ``"auto"`` (OR-Tools when importable, else scipy), ``"ortools"`` or ``"scipy"``
BACKEND = "auto"


def backend() -> str:
    """The solver :func:`max_flow` uses: ``"ortools"`` or ``"scipy"``."""
    if BACKEND != "auto":
        return BACKEND
    try:
        import ortools.graph.python.max_flow  # noqa: F401
    except ImportError:
        return "scipy"
    return "ortools"


def max_flow(tail: np.ndarray, head: np.ndarray, cap: np.ndarray, n_nodes: int, s: int, t: int,
             solver: str | None = None) -> tuple[int, np.ndarray]:
    """A maximum flow from ``s`` to ``t``: ``(value, flow per arc)`` (int64, in arc order).

    Arcs ``tail[i] -> head[i]`` with integer capacities ``cap[i] >= 0``; each (tail, head)
    pair at most once and no arc in both directions between the same nodes. ``solver``:
    ``"ortools"``, ``"scipy"`` or None (:func:`backend`). The value is the same for every
    solver; the flow itself may differ where several maximum flows exist.
    """
    tail = np.asarray(tail)
    head = np.asarray(head)
    cap = np.asarray(cap, dtype=np.int64)
    if len(tail) == 0:
        return 0, np.zeros(0, dtype=np.int64)
    if tail.dtype.kind not in "iu" or head.dtype.kind not in "iu":
        raise InvalidParameterError("max_flow needs integer node numbers")
    if (solver or backend()) == "ortools":
        from ortools.graph.python import max_flow as mf

        net = mf.SimpleMaxFlow()
        arcs = net.add_arcs_with_capacity(tail.astype(np.int32, copy=False), head.astype(np.int32, copy=False), cap)
        status = net.solve(int(s), int(t))
        if status != net.OPTIMAL:
            raise InternalError(f"OR-Tools max flow ended with status {status!r}")
        return int(net.optimal_flow()), np.asarray(net.flows(arcs), dtype=np.int64)
    from scipy import sparse
    from scipy.sparse.csgraph import maximum_flow

    if len(cap) and cap.max() >= 2**31:
        raise InvalidParameterError("scipy's maximum flow needs capacities below 2^31")
    G = sparse.csr_array((cap.astype(np.int32), (tail, head)), shape=(n_nodes, n_nodes))
    res = maximum_flow(G, int(s), int(t), method="dinic")
    F = sparse.csr_array(res.flow)
    flow = np.asarray(F[tail, head]).ravel().astype(np.int64)
    return int(res.flow_value), flow


def check_flow(tail: np.ndarray, head: np.ndarray, cap: np.ndarray, flow: np.ndarray, n_nodes: int,
               s: int, t: int, value: int) -> None:
    """Raise :class:`~ktype.exceptions.InternalError` unless ``flow`` is a flow of ``value``
    from s to t: within the capacities, conserved at every other node (vectorized; independent
    of the solver)."""
    flow = _within_capacities(flow, cap)
    out = np.bincount(tail, weights=flow, minlength=n_nodes)
    inn = np.bincount(head, weights=flow, minlength=n_nodes)
    net = np.rint(out - inn).astype(np.int64)
    others = np.ones(n_nodes, dtype=bool)
    others[[s, t]] = False
    if (net[others] != 0).any() or net[s] != value or net[t] != -value:
        raise InternalError("the maximum-flow solver returned a flow that is not conserved or not of its value")


def check_transport_flow(src: np.ndarray, dst: np.ndarray, supply: np.ndarray, cap: np.ndarray, demand: np.ndarray,
                         flow: np.ndarray) -> None:
    """:func:`check_flow` of a *full* flow of a bipartite transport network, given per edge:
    raise :class:`~ktype.exceptions.InternalError` unless ``flow[e]`` (edge ``src[e] ->
    dst[e]``) lies in ``[0, cap[e]]``, every first-side node ``i`` sends exactly ``supply[i]``
    and every second-side node ``j`` receives exactly ``demand[j]``. That is the flow of value
    ``supply.sum()`` on the network source -> first side -> second side -> sink, checked without
    building that network's arc list."""
    flow = _within_capacities(flow, cap)
    sent = np.rint(np.bincount(src, weights=flow, minlength=len(supply))).astype(np.int64)
    got = np.rint(np.bincount(dst, weights=flow, minlength=len(demand))).astype(np.int64)
    if not (np.array_equal(sent, supply) and np.array_equal(got, demand)):
        raise InternalError("the maximum-flow solver returned a flow that is not conserved or not of its value")


def _within_capacities(flow: np.ndarray, cap: np.ndarray) -> np.ndarray:
    """``flow`` as int64, after raising :class:`~ktype.exceptions.InternalError` unless it has
    one value per arc, each in ``[0, cap]``."""
    flow = np.asarray(flow, dtype=np.int64)
    if len(flow) != len(cap) or (flow < 0).any() or (flow > cap).any():
        raise InternalError("the maximum-flow solver returned a flow outside the capacities")
    return flow
