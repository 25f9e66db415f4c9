"""Greedy, SortGreedy and Hungarian freeform generalization (Doka et al. §5-7).

All three share the outer shell the paper describes in §5 and reuses in §6-7: rows in
lexicographic order (§5), the identity as iteration 1, then ``k − 1`` iterations that each add one perfect matching of
post-images to pre-images, avoiding the edges already used, by the current edge weights
(the GCP increase of extending ``T_j``'s box with ``q_i``). The result is a k-regular
generalization graph; each box is the tight range / value set of its ``k`` pre-images.
The published true assignment is drawn afresh (§2.2, :func:`._prep.publish`). With
``partition_size`` the sorted table is cut into consecutive blocks that are processed
independently and in parallel (§8.1); the union graph is still k-regular and the release
is verified as one.
"""

from __future__ import annotations

from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor

import numba
import numpy as np
from scipy.optimize import linear_sum_assignment

from ... import _progress
from ..._validation import Interval
from ...data.dataset import Dataset
from ...exceptions import VerificationError
from ...models._base import PrivacyModel
from ...models.freeform import FreeformKAnonymity
from ...models.ktype_models import KConcealment
from ...release import Release
from .._registry import register
from . import _kernels as K
from ._prep import Problem, blocks, check_block_sizes, model_k, publish

__all__ = ["freeform_greedy", "freeform_sortgreedy", "freeform_hungarian", "build_graph", "hungarian_workers"]

REFERENCE = "Doka, Xue, Tsoumakos, Karras. k-Anonymization by Freeform Generalization. ASIA CCS 2015"
_MODELS = (FreeformKAnonymity, KConcealment)
_PART = {"partition_size": [None, Interval(int, 2, None, closed="left")]}
#: largest block SortGreedy / Hungarian accept (dense m x m weights, ~16 m^2 bytes)
DENSE_LIMIT = 6000

_METHOD = {"greedy": 0, "sortgreedy": 1}


def _pruning_columns(p: Problem) -> tuple[int, int, int, int]:
    """The two categorical columns of largest weight ``1/(|A|−1)`` (smallest domains > 1)
    for Greedy's exact lower-bound pruning, with their domain sizes; ``-1`` if fewer than two."""
    cat = np.flatnonzero(~p.is_range)
    sizes = np.asarray(p.dataset.domain_sizes)[cat]
    cand = [int(c) for c in np.argsort(-p.wcat, kind="stable") if p.wcat[c] > 0]
    if len(cand) < 2:
        return -1, -1, 0, 0
    c1, c2 = cand[0], cand[1]
    return c1, c2, int(sizes[c1]), int(sizes[c2])


def _hungarian_block(p: Problem, k: int, a: int, e: int) -> tuple[np.ndarray, np.ndarray]:
    """All ``k`` iterations of §7 on the block ``[a, e)``: ``lpre`` (block-local) and costs.

    Both the weight kernel (numba, ``nogil``) and ``linear_sum_assignment`` (C, releases
    the GIL) run without the GIL, so blocks can run in threads.
    """
    xn, xc = p.xnum[a:e], p.xcat[a:e]
    lpre = np.empty((e - a, k), dtype=np.int64)
    lpre[:, 0] = np.arange(e - a)
    costs = np.zeros(k, dtype=np.float64)
    for t in range(1, k):  # loop over iterations
        W = K.block_weights(xn, xc, p.wcat, p.n_words, lpre, t)
        rows, cols = linear_sum_assignment(W)
        costs[t] = float(W[rows, cols].sum())
        lpre[cols, t] = rows
    return lpre, costs


def hungarian_workers() -> int:
    """Threads the partitioned Hungarian uses: numba's thread count (``NUMBA_NUM_THREADS``,
    ``numba.set_num_threads``), the same knob as Greedy's and SortGreedy's parallel blocks."""
    return max(1, int(numba.get_num_threads()))


def build_graph(
    p: Problem, k: int, method: str, starts: np.ndarray, *, window: int = 0, workers: int | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """The k-regular generalization graph: ``pre`` (n, k) pre-images per box (sorted
    positions) and the per-iteration cost sums (selected weights, in NCP units).

    Blocks are independent (§8.1): Greedy and SortGreedy run them in a numba ``prange``,
    Hungarian in a thread pool of ``workers`` threads (default :func:`hungarian_workers`)
    over contiguous chunks of blocks. Each block's result does not depend on the others or on
    the scheduling, so the graph is identical to the sequential one.
    """
    n = p.n
    nb = len(starts) - 1
    pre = np.empty((n, k), dtype=np.int64)
    costs = np.zeros((nb, k), dtype=np.float64)
    if method == "hungarian":
        workers = min(nb, hungarian_workers() if workers is None else max(1, int(workers)))

        def chunk(c: int) -> None:
            for b in range(c * nb // workers, (c + 1) * nb // workers):  # loop over this worker's blocks
                a, e = int(starts[b]), int(starts[b + 1])
                lpre, costs[b] = _hungarian_block(p, k, a, e)
                pre[a:e] = a + lpre

        if workers == 1:
            chunk(0)
        else:  # parallel where it pays: several blocks and several threads
            with ThreadPoolExecutor(workers) as ex:
                list(ex.map(chunk, range(workers)))
    else:
        c1, c2, m1, m2 = _pruning_columns(p) if method == "greedy" else (-1, -1, 0, 0)
        status = K.run_blocks(p.xnum, p.xcat, p.wcat, p.n_words, k, _METHOD[method], window, starts, pre, costs, c1, c2, m1, m2)
        if (status != 0).any():  # pragma: no cover - excluded by Theorem 5.2 (checked up front)
            b = int(np.flatnonzero(status)[0])
            raise VerificationError(
                f"freeform {method}: iteration {-int(status[b])} of block {b} found no single-swap resolution "
                "of a dead end; use freeform_hungarian."
            )
    return pre, costs.sum(axis=0)


def _run(
    dataset: Dataset, models: Sequence[PrivacyModel], method: str, partition_size: int | None, rng, algo: str, *, window: int = 0
) -> Release:
    k = model_k(models, algo)
    p = Problem.from_dataset(dataset)
    starts = blocks(p.n, partition_size)
    check_block_sizes(starts, k, algo, greedy=method != "hungarian", dense_limit=None if method == "greedy" else DENSE_LIMIT)
    with _progress.stage("generalization graph", detail=f"{method}, {len(starts) - 1:,} blocks"):
        pre, costs = build_graph(p, k, method, starts, window=window)
    info = {
        "method": method,
        "k": k,
        "blocks": int(len(starts) - 1),
        "partition_size": partition_size,
        "lexicographic_order": [dataset.quasi_identifiers[j] for j in np.argsort(dataset.domain_sizes, kind="stable")],
        "iteration_costs": [float(c) for c in costs],
        "gcp": float(costs.sum() / (p.d * p.n)) if p.d and p.n else 0.0,
    }
    if window:
        info["candidate_window"] = window
    with _progress.stage("assignment", detail="random perfect matchings"):
        return publish(p, pre, rng, info)


@register(
    "freeform_greedy",
    models=_MODELS,
    recoding="freeform",
    randomized=True,
    constraints={**_PART, "candidates": [None, Interval(int, 1, None, closed="left")]},
    description="freeform generalization: Greedy (Alg. 1), k-regular graph, random true assignment",
    reference=REFERENCE + ", §5 Algorithm 1",
)
def freeform_greedy(
    dataset: Dataset,
    models: Sequence[PrivacyModel],
    *,
    partition_size: int | None = None,
    candidates: int | None = None,
    rng: np.random.Generator,
) -> Release:
    """Freeform k-anonymization by Greedy (Doka et al. §5, Algorithm 1).

    Per iteration each record, in lexicographic order, takes the cheapest available
    post-image; a dead end (only already-used edges left) is resolved by one swap with an
    earlier record (Lemma 5.1). O(k n² d) time, O(n k) memory. The scan is pruned exactly
    (same result as the full scan; not in the paper): boxes holding the record's values of
    the two heaviest categorical attributes (e.g. Gender, Marital Status) are scanned first,
    and the other classes only when their lower bound (the weight of the value missing from
    them) does not exceed the best weight found.

    Parameters
    ----------
    partition_size : int, optional
        Process consecutive blocks of this many rows (at least) independently (§8.1; the
        paper uses 250 for Greedy). Needs ``k <= (partition_size + 2) / 2`` (Theorem 5.2).
    candidates : int, optional
        Candidate pruning (not in the paper): first look only at post-images within this
        many positions of the record in the lexicographic order, falling back to all free
        ones when none is available there. Makes an iteration O(n · candidates · d).
    rng : int, numpy Generator or None
        Secret randomness for the published assignment (None = OS entropy).
    """
    return _run(dataset, models, "greedy", partition_size, rng, "freeform_greedy", window=candidates or 0)


@register(
    "freeform_sortgreedy",
    models=_MODELS,
    recoding="freeform",
    randomized=True,
    constraints=dict(_PART),
    description="freeform generalization: SortGreedy (Alg. 2), k-regular graph, random true assignment",
    reference=REFERENCE + ", §6 Algorithm 2",
)
def freeform_sortgreedy(
    dataset: Dataset, models: Sequence[PrivacyModel], *, partition_size: int | None = None, rng: np.random.Generator
) -> Release:
    """Freeform k-anonymization by SortGreedy (Doka et al. §6, Algorithm 2).

    Per iteration all available edges are scanned by ascending weight (stable: ties by
    record position, then post-image position; the paper leaves ties open) and an edge
    is kept when both ends are free; left-over records are resolved by one swap with their
    nearest lexicographic neighbours (pos−1, pos+1, pos−2, ...). O(k n² log n) time, O(n²)
    memory per block (blocks above 6000 rows are refused: pass ``partition_size``; the paper
    uses 150).
    """
    return _run(dataset, models, "sortgreedy", partition_size, rng, "freeform_sortgreedy")


@register(
    "freeform_hungarian",
    models=_MODELS,
    recoding="freeform",
    randomized=True,
    constraints=dict(_PART),
    description="freeform generalization: optimal assignment per iteration (Hungarian, §7)",
    reference=REFERENCE + ", §7",
)
def freeform_hungarian(
    dataset: Dataset, models: Sequence[PrivacyModel], *, partition_size: int | None = None, rng: np.random.Generator
) -> Release:
    """Freeform k-anonymization with a minimum-weight perfect matching per iteration
    (Doka et al. §7), solved by ``scipy.optimize.linear_sum_assignment`` (a Jonker–Volgenant
    solver, not the textbook Kuhn–Munkres the paper describes; same optimum, ties may differ).
    Optimal for k = 2 among graphs containing the identity. O(k n³) time, O(n²) memory per
    block (paper: partitions of 100). With ``partition_size`` the blocks run in parallel
    threads (:func:`hungarian_workers`: numba's thread count; the weight kernel and scipy's
    solver both release the GIL); the result is identical to a sequential run.
    """
    return _run(dataset, models, "hungarian", partition_size, rng, "freeform_hungarian")
