"""Roll-ups of wide frequency sets with incremental 64-bit row hashes (sparse searches).

When a node's group ids do not fit one int64 (:attr:`Encoded.pack_base`: CREDITCARD's
amount columns at level 0 have 20,000+ values each), :class:`Encoded` rolls a
``(classes × r)`` table up by hashing all ``r`` columns of every class. Here each class
carries a 64-bit hash ``Σ_j R[j, level_j, group_j]`` (random words, wrapping sum) and its
per-record suppression surcharge ``Σ_j (root cost − cost of its group)``. Raising the
columns ``C`` from a finer node updates both by ``|C|`` table lookups per class — never
``r`` — and classes are merged on the hash (63 bits). Two distinct classes share a hash with
probability about ``g²/2⁶³`` (``g`` classes: 10⁻¹⁰ for 30,000), which could mislead the
search but never the release: it is rebuilt from the bottom by the exact roll-up and checked
by the model's independent checker. Only k-anonymity without sensitive histograms uses it.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..._jit import njit
from ._engine import Encoded, FrequencySet, NodeEval
from ._kernels import _class_stats, _merge_keys

__all__ = ["HashedSet", "HashedRollup"]

_SEED = 0x6B74797065  # fixed: the hashes only name classes, they randomize nothing released


@dataclass
class HashedSet(FrequencySet):
    """A table frequency set whose classes also carry a hash and a suppression surcharge."""

    hsh: np.ndarray | None = None  # (g,) uint64
    sur: np.ndarray | None = None  # (g,) float64, per record

    @property
    def nbytes(self) -> int:
        return super().nbytes + int(self.hsh.nbytes) + int(self.sur.nbytes)  # type: ignore[union-attr]


@njit
def _hashed_rollup_kernel(tab, cnt, hsh, sur, cols, src_lv, dst_lv, upflat, upoff, rnd, roff, costs, coff):  # pragma: no cover - compiled  # noqa: PLR0913
    """Raise the columns ``cols`` of every class from ``src_lv`` to ``dst_lv``; merge on the hash.

    Returns ``(tab, cnt, hsh, sur)`` of the coarser node (first-appearance order)."""
    d, r = tab.shape
    m = cols.shape[0]
    full = np.empty(d, dtype=np.uint64)
    keys = np.empty(d, dtype=np.int64)
    nsur = np.empty(d, dtype=np.float64)
    newg = np.empty((d, m), dtype=tab.dtype)
    for i in range(d):
        h = hsh[i]
        s = sur[i]
        for c in range(m):
            j = cols[c]
            a = src_lv[j]
            b = dst_lv[j]
            g = tab[i, j]
            g2 = upflat[upoff[j, a, b] + g]
            h = h - rnd[roff[j, a] + g] + rnd[roff[j, b] + g2]
            s += costs[coff[j, b] + g2] - costs[coff[j, a] + g]
            newg[i, c] = g2
        full[i] = h
        keys[i] = np.int64(h >> np.uint64(1))
        nsur[i] = s
    rep, out_cnt, _ = _merge_keys(keys, cnt, False)
    g = rep.shape[0]
    out = np.empty((g, r), dtype=tab.dtype)
    oh = np.empty(g, dtype=np.uint64)
    osur = np.empty(g, dtype=np.float64)
    for o in range(g):
        i = rep[o]
        for j in range(r):
            out[o, j] = tab[i, j]
        for c in range(m):
            out[o, cols[c]] = newg[i, c]
        oh[o] = full[i]
        osur[o] = nsur[i]
    return out, out_cnt, oh, osur


@njit
def _failing_surcharge(cnt, sur, k):  # pragma: no cover - compiled
    tot = 0.0
    for i in range(cnt.shape[0]):
        if cnt[i] < k:
            tot += cnt[i] * sur[i]
    return tot


class HashedRollup:
    """Hashed roll-ups for one encoding (k-anonymity only, wide rows)."""

    def __init__(self, enc: Encoded) -> None:
        self.enc = enc
        r = enc.r
        H = int(enc.heights.max()) + 1
        rng = np.random.default_rng(_SEED)
        self._roff = np.zeros((r, H), dtype=np.int64)
        sizes = [enc.ngroups[j][lev] for j in range(r) for lev in range(int(enc.heights[j]) + 1)]
        self._rnd = rng.integers(0, 2**64 - 1, size=sum(sizes), dtype=np.uint64, endpoint=True)
        pos = 0
        for j in range(r):
            for lev in range(int(enc.heights[j]) + 1):
                self._roff[j, lev] = pos
                pos += enc.ngroups[j][lev]
        b = enc.bottom
        tab = b.tab
        assert tab is not None
        hsh = np.zeros(b.n_rows, dtype=np.uint64)
        sur = np.zeros(b.n_rows, dtype=np.float64)
        for j in range(r):
            hsh += self._rnd[self._roff[j, 0] + tab[:, j].astype(np.int64)]
            sur += enc._costs[enc._coff[j, 0] + tab[:, j].astype(np.int64)]
        self.bottom = HashedSet(tab, b.cnt, {}, None, hsh, sur)

    @staticmethod
    def usable(enc: Encoded) -> bool:
        """Whether the encoding has table rows (not every node packed) and k-anonymity alone."""
        return enc.kanon_only and not enc.sens_cols and enc.bottom.codes is None and enc.bottom.tab is not None

    def evaluate(self, src: HashedSet, src_levels: np.ndarray, levels: np.ndarray) -> NodeEval:
        """Evaluate ``levels`` (not packed) from the hashed set ``src`` of a finer node."""
        enc = self.enc
        slv = np.asarray(src_levels, dtype=np.int64)
        lv = np.asarray(levels, dtype=np.int64)
        cols = np.flatnonzero(lv != slv).astype(np.int64)
        tab, cnt, hsh, sur = _hashed_rollup_kernel(
            src.tab, src.cnt, src.hsh, src.sur, cols, slv, lv, enc._upflat, enc._upoff, self._rnd, self._roff, enc._costs, enc._coff
        )
        k = enc.k
        ok = cnt >= k
        n_ok, sup, sq, dm = _class_stats(cnt, ok, k)
        extra = _failing_surcharge(cnt, sur, k) if sup and enc._surcharged else 0.0
        feasible = sup <= enc.limit
        value = enc._value(lv, n_ok, sup, sq, extra)
        dm_bound = dm if enc.measure == "discernibility" else 0.0
        return NodeEval(n_ok, sup, feasible, value, dm_bound, HashedSet(tab, cnt, {}, None, hsh, sur), ok, None)
