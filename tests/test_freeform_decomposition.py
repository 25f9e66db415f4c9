"""The random decomposition of a freeform generalization graph, solved chunk by chunk.

``random_decomposition`` runs Hopcroft–Karp per chunk of positions that no edge crosses
(the partitions of §8.1). Claim: Hopcroft–Karp on a disjoint union of graphs finds on each
part what it finds on the part alone, so the k matchings (hence the published true
assignment) are exactly those of one Hopcroft–Karp run on the whole relabelled graph. The
reference below is that whole-graph run (scipy CSR with sorted column indices, as the
decomposition built it before it went chunk-wise).
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy import sparse

from ktype._matching import maximum_bipartite_matching
from ktype.algorithms.freeform._prep import chunks, random_decomposition


def _whole_graph_decomposition(pre: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Reference: per round, one Hopcroft–Karp on the whole graph relabelled by (pr, pc)."""
    n, k = pre.shape
    ei = pre.ravel()
    ej = np.repeat(np.arange(n), k)
    alive = np.ones(n * k, dtype=bool)
    out = np.empty((k, n), dtype=np.int64)
    for t in range(k):  # loop over the k matchings
        pr, pc = rng.permutation(n), rng.permutation(n)
        inv_pc = np.empty(n, dtype=np.int64)
        inv_pc[pc] = np.arange(n)
        idx = np.flatnonzero(alive)
        G = sparse.csr_array((np.ones(len(idx), dtype=np.int8), (pr[ei[idx]], pc[ej[idx]])), shape=(n, n))
        G.sort_indices()
        out[t] = inv_pc[maximum_bipartite_matching(G)[pr]]
        alive[idx[out[t][ei[idx]] == ej[idx]]] = False
    return out


def _regular(n: int, k: int, bounds: list[tuple[int, int]], rng: np.random.Generator) -> np.ndarray:
    """A k-regular graph: on each segment ``[a, e)`` the union of k cyclic shifts of a random
    permutation (k distinct pre-images per box), slots shuffled."""
    pre = np.empty((n, k), dtype=np.int64)
    for a, e in bounds:  # loop over segments
        m = e - a
        perm = rng.permutation(m)
        for s in range(k):  # loop over shifts
            pre[a + perm, s] = a + perm[(np.arange(m) + s) % m]
    return np.take_along_axis(pre, rng.permuted(np.tile(np.arange(k), (n, 1)), axis=1), axis=1)


def _segments(n: int, k: int, rng: np.random.Generator) -> list[tuple[int, int]]:
    cuts = sorted(set(rng.choice(np.arange(k, n - k + 1), size=min(5, max(n - 2 * k + 1, 0)), replace=True).tolist()))
    edges = [0] + [c for c in cuts if c >= k and n - c >= k] + [n]
    edges = [e for i, e in enumerate(edges) if i == 0 or e - edges[i - 1] >= k]
    edges[-1] = n
    return list(zip(edges[:-1], edges[1:]))


@pytest.mark.parametrize("seed", range(12))
def test_chunkwise_decomposition_equals_whole_graph_hopcroft_karp(seed):
    rng = np.random.default_rng(seed)
    for _ in range(15):  # loop over random graphs
        k = int(rng.integers(1, 7))
        n = int(rng.integers(2 * k, 140))
        bounds = _segments(n, k, rng)
        pre = _regular(n, k, bounds, rng)
        if seed % 3 == 0:  # one random relabelling of the whole graph: chunks merge (edges cross)
            perm = rng.permutation(n)
            inv = np.empty(n, dtype=np.int64)
            inv[perm] = np.arange(n)
            pre = perm[pre[inv]]
        s = int(rng.integers(1 << 30))
        want = _whole_graph_decomposition(pre, np.random.default_rng(s))
        got = random_decomposition(pre, np.random.default_rng(s))
        assert np.array_equal(got, want)


def test_chunks_are_the_cuts_no_edge_crosses():
    rng = np.random.default_rng(3)
    pre = _regular(12, 2, [(0, 4), (4, 9), (9, 12)], rng)
    assert chunks(pre).tolist() == [0, 4, 9, 12]
    # a segment whose graph splits further is cut there too; an edge across a cut merges
    pre2 = _regular(12, 1, [(0, 12)], rng)  # k = 1: the identity, every position alone
    assert chunks(pre2).tolist() == list(range(13))
    crossed = pre.copy()
    (a, sa), (b, sb) = np.argwhere(pre == 3)[0], np.argwhere(pre == 4)[0]
    crossed[a, sa], crossed[b, sb] = 4, 3  # swap two pre-images across the cut at 4: still 2-regular
    assert chunks(crossed).tolist() == [0, 9, 12]
    assert chunks(np.zeros((0, 3), dtype=np.int64)).tolist() == [0, 0]
