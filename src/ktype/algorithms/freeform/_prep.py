"""Shared shell of the freeform algorithms: encoding, lexicographic order, partitions,
boxes from a generalization graph, randomized true assignment, and the release.

Doka et al., ASIA CCS 2015: the outer shell shared by §5-7 (lexicographic order, §5), tight
boxes (§3), the uniform choice of the true assignment among k random disjoint assignments
(§2.2) and the partitions of §8.1. Everything here is vectorized.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ..._grouping import lexsort_rows
from ...data.dataset import Dataset
from ...exceptions import InvalidParameterError, UnsupportedModelError, VerificationError
from ...freeform_release import FreeformRelease, range_columns
from ...models._base import PrivacyModel
from ...release import _sort_codes

__all__ = ["Problem", "model_k", "blocks", "cells_from_preimages", "chunks", "random_decomposition", "publish"]


def model_k(models: Sequence[PrivacyModel], algo: str) -> int:
    """The ``k`` to build for: the largest ``k`` among the models (all carry one)."""
    ks = [getattr(m, "k", None) for m in models]
    if any(k is None for k in ks):
        bad = next(m for m in models if getattr(m, "k", None) is None)
        raise UnsupportedModelError(f"{algo} builds for a model with a 'k'; {type(bad).__name__} has none.")
    return int(max(ks))


@dataclass
class Problem:
    """A dataset encoded for the freeform kernels, rows in lexicographic order (§5).

    Attributes
    ----------
    order : ndarray of int64, shape (n,)
        Input row at each sorted position.
    X : ndarray of int32, shape (n, r)
        Leaf ranks in sorted order.
    is_range : ndarray of bool, shape (r,)
        Range (numeric) or value-set (categorical) column.
    xnum : ndarray of float64, shape (n, n_num)
        Numeric values scaled by ``1/(U−L)`` (data range; 0 where ``U = L``).
    xcat : ndarray of int64, shape (n, n_cat)
        Leaf ranks of the categorical columns.
    wcat : ndarray of float64, shape (n_cat,)
        ``1/(|A|−1)`` per categorical column (0 when ``|A| = 1``).
    n_words : int
        64-bit words per categorical bit set.
    """

    dataset: Dataset
    order: np.ndarray
    X: np.ndarray
    is_range: np.ndarray
    xnum: np.ndarray
    xcat: np.ndarray
    wcat: np.ndarray
    n_words: int

    @property
    def n(self) -> int:
        return int(self.X.shape[0])

    @property
    def d(self) -> int:
        return int(self.X.shape[1])

    @classmethod
    def from_dataset(cls, dataset: Dataset) -> Problem:
        X = np.asarray(dataset.X)
        n, r = X.shape
        sizes = np.asarray(dataset.domain_sizes, dtype=np.int64)
        # §5: attributes from lowest to highest cardinality (ties: column order); rows
        # with equal QIs ordered by their other values, so the order depends on content only
        rank = np.argsort(sizes, kind="stable")
        keys = [X[:, j] for j in rank]
        for c in dataset.sensitive:
            keys.append(np.asarray(dataset.sensitive_codes[c]))
        for c in dataset.insensitive:
            keys.append(_sort_codes(dataset.data[c].to_numpy()))
        order = lexsort_rows(keys).astype(np.int64)
        Xs = np.ascontiguousarray(X[order])
        is_range = range_columns(dataset)
        num = np.flatnonzero(is_range)
        cat = np.flatnonzero(~is_range)
        xnum = np.zeros((n, len(num)), dtype=np.float64)
        for a, j in enumerate(num):  # loop over numeric columns
            vals = dataset.hierarchies[j].numeric_values()
            col = vals[X[:, j]]
            L, U = float(col.min()), float(col.max())
            if U > L:
                xnum[:, a] = (vals[Xs[:, j]] - L) / (U - L)
        xcat = np.ascontiguousarray(Xs[:, cat].astype(np.int64))
        msz = sizes[cat]
        wcat = np.where(msz > 1, 1.0 / np.maximum(msz - 1, 1), 0.0).astype(np.float64)
        n_words = int((int(msz.max()) + 63) // 64) if len(cat) else 1
        return cls(dataset, order, Xs, is_range, np.ascontiguousarray(xnum), xcat, wcat, n_words)


def blocks(n: int, partition_size: int | None) -> np.ndarray:
    """Block boundaries (§8.1): equal consecutive segments of the sorted order, each of at
    least ``partition_size`` rows (the remainder is spread over the blocks)."""
    if partition_size is None or partition_size >= n:
        return np.array([0, n], dtype=np.int64)
    nb = n // partition_size
    return (np.arange(nb + 1, dtype=np.int64) * n) // nb


def check_block_sizes(starts: np.ndarray, k: int, algo: str, *, greedy: bool, dense_limit: int | None) -> None:
    """Refuse a ``k`` the block sizes cannot support, with what to change."""
    sizes = np.diff(starts)
    m = int(sizes.min())
    part = len(sizes) > 1
    where = f"the smallest partition has {m} rows" if part else f"the table has {m} rows"
    if greedy and k > (m + 2) // 2:
        raise InvalidParameterError(
            f"{algo} needs k <= (m + 2) / 2 for blocks of m rows (Doka et al. Theorem 5.2: its single-swap "
            f"backtracking is proven only there); k={k} but {where}. Use a larger partition_size, a smaller k, "
            "or freeform_hungarian."
        )
    if k > m:
        raise InvalidParameterError(f"{algo}: k={k} exceeds the block size ({where}); use a larger partition_size.")
    if dense_limit is not None and int(sizes.max()) > dense_limit:
        raise InvalidParameterError(
            f"{algo} keeps a dense m x m weight matrix per block; blocks of {int(sizes.max())} rows exceed its limit "
            f"of {dense_limit}. Pass partition_size (the paper uses 150 for SortGreedy, 100 for Hungarian) or use "
            "freeform_greedy."
        )


def cells_from_preimages(p: Problem, pre: np.ndarray, *, include_self: bool = False):
    """Tight boxes (§3): per box ``j`` (sorted position), the range / value set of its
    pre-images ``pre[j]`` (sorted positions) — plus ``j`` itself if ``include_self``.

    Returns ``(cell_lo, cell_hi, value_sets)`` in sorted order (leaf ranks).
    """
    from ._kernels import box_members, box_ranges

    n, r = p.X.shape
    idx = pre if not include_self else np.column_stack([pre, np.arange(n)])
    idx = np.ascontiguousarray(idx, dtype=np.int64)
    X = np.ascontiguousarray(p.X)
    cell_lo = np.empty((n, r), dtype=np.int32)
    cell_hi = np.empty((n, r), dtype=np.int32)
    if n and idx.shape[1]:
        box_ranges(X, idx, cell_lo, cell_hi)
    sets: dict[int, np.ndarray] = {}
    for j in np.flatnonzero(~p.is_range):  # loop over set columns
        member = np.zeros((n, p.dataset.hierarchies[j].size), dtype=bool)
        if n and idx.shape[1]:
            box_members(X, int(j), idx, member)
        sets[int(j)] = member
    return cell_lo, cell_hi, sets


def chunks(pre: np.ndarray) -> np.ndarray:
    """Boundaries ``[0, c1, ..., n]`` of the finest cut of positions that no edge of the
    graph crosses (edge ``pre[j, s] -> j``): each chunk is a union of connected components.
    Partitioned heuristics (§8.1) give at least one chunk per partition."""
    n = pre.shape[0]
    if n == 0 or pre.shape[1] == 0:
        return np.array([0, n], dtype=np.int64)
    j = np.arange(n, dtype=np.int64)
    lo = np.minimum(pre.min(axis=1), j)
    hi = np.maximum(pre.max(axis=1), j)
    # cover[x] = number of edges spanning the gap between positions x - 1 and x
    cover = np.cumsum(np.bincount(lo + 1, minlength=n + 1)[: n + 1] - np.bincount(hi + 1, minlength=n + 1)[: n + 1])
    cuts = np.flatnonzero(cover[1:n] == 0) + 1
    return np.concatenate([[0], cuts, [n]]).astype(np.int64)


def random_decomposition(pre: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Split a k-regular bipartite graph into k disjoint perfect matchings at random.

    Doka et al. (§2.2) defer the randomization to Wong et al.'s random-walk cycle extraction;
    ktype uses a simpler decomposition that also yields k disjoint perfect matchings drawn
    with secret randomness: per round, relabel both sides with a secret
    random permutation,
    find a perfect matching (Hopcroft-Karp, :mod:`ktype._matching`; scipy's takes
    exponential time on the layered graphs of few attributes), remove it. A
    ``t``-regular bipartite graph always has one (Hall), so every round succeeds.

    The matching is computed per chunk of positions that no edge crosses (:func:`chunks`;
    the partitions of §8.1), in parallel, each chunk's rows and columns in the order of their
    labels (:func:`._kernels.chunk_matchings`): Hopcroft–Karp on a disjoint union of graphs
    finds on each part exactly what it finds on the part alone, so the result is the
    matching of the whole relabelled graph, with the work of small graphs that fit in cache.

    Parameters
    ----------
    pre : ndarray of int, shape (n, k)
        ``pre[j]`` = the k originals of box ``j`` (distinct; each original in k rows).

    Returns
    -------
    ndarray of int64, shape (k, n)
        ``M[t, i]`` = the box matched to original ``i`` in matching ``t``.
    """
    from ._kernels import chunk_matchings

    pre = np.ascontiguousarray(pre, dtype=np.int64)
    n, k = pre.shape
    starts = chunks(pre)
    alive = np.ones((n, k), dtype=bool)
    out = np.empty((k, n), dtype=np.int64)
    for t in range(k):  # loop over the k matchings
        pr = rng.permutation(n)
        pc = rng.permutation(n)
        if chunk_matchings(pre, alive, pr, pc, starts, out[t]):  # pragma: no cover - impossible for a regular graph
            raise VerificationError("The generalization graph is not regular: no perfect matching left.")
    return out


def publish(
    p: Problem,
    pre: np.ndarray,
    rng: np.random.Generator,
    info: dict,
    *,
    include_self: bool = False,
) -> FreeformRelease:
    """Boxes from the graph, a secret uniformly chosen true assignment, the release (§2.2).

    The construction assignments (identity + iterations) are never used for publication:
    the k-regular graph is re-decomposed at random and one of the k matchings, chosen
    uniformly, decides which record's non-QI values each box carries.
    """
    n, k = pre.shape
    cell_lo, cell_hi, sets = cells_from_preimages(p, pre, include_self=include_self)
    M = random_decomposition(pre, rng)
    alpha = M[int(rng.integers(k))]  # original (sorted pos) -> box (sorted pos)
    carrier = np.empty(n, dtype=np.int64)
    carrier[alpha] = np.arange(n)  # box -> original
    order = p.order
    return FreeformRelease.from_cells(
        p.dataset,
        cell_lo,
        cell_hi,
        sets,
        source=order[carrier],
        preimages=order[pre],
        provenance={"freeform": {**info, "true_assignment": "uniform among k random disjoint perfect matchings"}},
    )
