"""Baselines of the freeform paper's experiments (Doka et al. §8): NH and minCostFlow.

* **NH** — the ring generalization of Wong et al. (SIGMOD 2010) on partitions of size
  ``k..2k−1``. The freeform paper only sketches it (§8: ring generalization, Fig. 1b, on
  partitions of size ``k..2k−1``), so this is a **reconstruction**: the lexicographically
  sorted table (§5) is cut into consecutive segments of ``k..2k−1`` rows (``n // k`` equal
  segments); inside a segment of ``m`` rows (in sorted order) box ``j`` covers records ``j, j+1, ..., j+k−1 (mod m)``. Every record
  lies in exactly ``k`` boxes, so the graph is k-regular (a "ring", Fig. 1b); the true
  assignment is drawn like for every freeform method. Wong et al.'s own partitioning
  ("more demanding", not described in the paper) is not reproduced.
* **minCostFlow** — "the min-cost network-flow solver, minimizing the sum of edge weights
  of the original complete graph" (§8). The paper does not say whether self-edges are
  forced; its explanation of why the baseline is optimal at k = 2 (§8.2: the first
  assignment is the self-assignment) assumes they are, so here the identity is fixed and a
  ``(k−1)``-regular 0/1 flow on the off-diagonal edges minimizes ``Σ w⁰(i, j)``, where
  ``w⁰(i, j)`` is the NCP sum of recasting ``q_j`` as ``{q_i, q_j}``. The constraint matrix
  is totally unimodular, so the LP (``scipy.optimize.linprog``, HiGHS dual simplex, no
  commercial solver) has an integral optimum. Optimal for GCP at k = 2; not for k > 2
  (the weights ignore how boxes grow).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from scipy import sparse
from scipy.optimize import linprog

from ...data.dataset import Dataset
from ...exceptions import InvalidParameterError, VerificationError
from ...models._base import PrivacyModel
from ...release import Release
from .._registry import register
from . import _kernels as K
from ._prep import Problem, blocks, model_k, publish
from .heuristics import _MODELS, REFERENCE

__all__ = ["freeform_nh", "freeform_mincostflow", "ring_graph", "mincostflow_graph", "MCF_LIMIT"]

#: largest table minCostFlow accepts (n² edge variables)
MCF_LIMIT = 3000


def ring_graph(n: int, k: int) -> np.ndarray:
    """NH reconstruction: ``pre`` (n, k) of rings on segments of ``k..2k−1`` sorted rows."""
    starts = blocks(n, k)
    size = np.diff(starts)
    seg = np.repeat(np.arange(len(size)), size)
    a = starts[seg]
    m = size[seg]
    j = np.arange(n) - a  # position inside the segment
    s = np.arange(k)
    return a[:, None] + (j[:, None] + s[None, :]) % m[:, None]


def mincostflow_graph(p: Problem, k: int) -> tuple[np.ndarray, float]:
    """Identity + a min-cost ``(k−1)``-regular 0/1 flow on the complete graph (weights of the
    initial graph). Returns ``pre`` (n, k) and the flow's cost."""
    n = p.n
    pre = np.empty((n, k), dtype=np.int64)
    pre[:, 0] = np.arange(n)
    if k == 1:
        return pre, 0.0
    ident = np.arange(n)[:, None]
    W = K.block_weights(p.xnum, p.xcat, p.wcat, p.n_words, ident, 1)  # w0(i, j), inf on the diagonal
    ii, jj = np.nonzero(np.isfinite(W))
    c = W[ii, jj]
    e = np.arange(len(ii))
    A = sparse.csr_array(
        (np.ones(2 * len(ii)), (np.concatenate([ii, n + jj]), np.concatenate([e, e]))), shape=(2 * n, len(ii))
    )
    b = np.full(2 * n, float(k - 1))
    res = linprog(c, A_eq=A, b_eq=b, bounds=(0, 1), method="highs-ds")
    if res.status != 0:  # pragma: no cover - always feasible (complete graph)
        raise VerificationError(f"freeform_mincostflow: HiGHS failed ({res.message}).")
    x = res.x > 0.5
    if not np.allclose(res.x, x, atol=1e-6):  # pragma: no cover - TU matrix, simplex vertex
        raise VerificationError("freeform_mincostflow: the LP optimum is not integral.")
    cols = np.zeros((n, n), dtype=bool)
    cols[ii[x], jj[x]] = True  # cols[i, j]: original i in box j
    pre[:, 1:] = np.argsort(~cols.T, axis=1, kind="stable")[:, : k - 1]
    return pre, float(res.fun)


@register(
    "freeform_nh",
    models=_MODELS,
    recoding="freeform",
    randomized=True,
    constraints={},
    description="baseline: NH ring generalization on partitions of k..2k-1 rows (reconstruction)",
    reference="Wong, Mamoulis, Cheung. Non-homogeneous generalization in privacy preserving data publishing. SIGMOD 2010; as run in "
    + REFERENCE
    + ", §8",
)
def freeform_nh(dataset: Dataset, models: Sequence[PrivacyModel], *, rng: np.random.Generator) -> Release:
    """NH baseline (reconstruction, see the module docstring): rings of k consecutive records
    on lexicographic segments of ``k..2k−1`` rows. O(n k) time."""
    k = model_k(models, "freeform_nh")
    p = Problem.from_dataset(dataset)
    pre = ring_graph(p.n, k)
    return publish(p, pre, rng, {"method": "nh", "k": k, "blocks": int(p.n // k)})


@register(
    "freeform_mincostflow",
    models=_MODELS,
    recoding="freeform",
    randomized=True,
    constraints={},
    description="baseline: identity + min-cost (k-1)-regular flow on the initial edge weights (HiGHS LP)",
    reference=REFERENCE + ", §8 (minCostFlow)",
)
def freeform_mincostflow(dataset: Dataset, models: Sequence[PrivacyModel], *, rng: np.random.Generator) -> Release:
    """minCostFlow baseline (Doka et al. §8; identity fixed, see the module docstring). Tables of at most 3000
    rows (n² LP variables); optimal GCP at k = 2 only."""
    k = model_k(models, "freeform_mincostflow")
    if dataset.n > MCF_LIMIT:
        raise InvalidParameterError(
            f"freeform_mincostflow builds an LP over all n^2 edges; at most {MCF_LIMIT} rows, got {dataset.n}."
        )
    p = Problem.from_dataset(dataset)
    pre, cost = mincostflow_graph(p, k)
    return publish(p, pre, rng, {"method": "mincostflow", "k": k, "flow_cost": cost})
