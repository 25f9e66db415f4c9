"""Column names of an encoded table and its releases, and the packed integer keys the
distributed group-bys run on (one-to-one packings of a row's cells, see ``tests/test_dask_keys.py``)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from ..exceptions import InvalidParameterError

__all__ = ["SUP", "FORCED", "xcol", "locol", "hicol", "scol"]

SUP = "__sup"
#: True for the records a ``suppress`` missing-value policy removes from every release
FORCED = "__forced"


def xcol(j: int) -> str:
    return f"__x{j}"


def locol(j: int) -> str:
    return f"__lo{j}"


def hicol(j: int) -> str:
    return f"__hi{j}"


def scol(i: int) -> str:
    return f"__s{i}"


def _key_chunks(sizes: Sequence[int]) -> list[list[int]]:
    """QI indices grouped so that each group's cells pack into one int64: the product of
    ``size**2`` over a group stays below 2**62 (a cell is a pair of leaf ranks)."""
    chunks: list[list[int]] = [[]]
    prod = 1
    for j, size in enumerate(sizes):
        w = int(size) * int(size)
        if chunks[-1] and prod * w >= 2**62:
            chunks.append([])
            prod = 1
        chunks[-1].append(j)
        prod *= w
    return chunks


class _ClassKeys:
    """Partition of a release -> class keys and sensitive codes of its published rows (picklable)."""

    def __init__(self, sizes: Sequence[int], n_sensitive: int) -> None:
        self.sizes = [int(v) for v in sizes]
        self.chunks = _key_chunks(self.sizes)
        self.n_sensitive = n_sensitive

    def __call__(self, part: pd.DataFrame) -> pd.DataFrame:
        keep = ~part[SUP].to_numpy(bool)
        out: dict[str, np.ndarray] = {}
        for c, chunk in enumerate(self.chunks):
            key = np.zeros(int(keep.sum()), dtype=np.int64)
            for j in chunk:
                size = self.sizes[j]
                key *= size * size
                key += part[locol(j)].to_numpy(np.int64)[keep] * size + part[hicol(j)].to_numpy(np.int64)[keep]
            out[f"__k{c}"] = key
        for i in range(self.n_sensitive):
            out[scol(i)] = part[scol(i)].to_numpy(np.int32)[keep]
        return pd.DataFrame(out)


class _CellTriples:
    """Partition of a release -> one int64 column ``__t{j}`` per QI packing the triple
    (leaf rank, lo, hi) of every row (suppressed rows included: their cell is the whole
    domain), ``(x * size + lo) * size + hi``; :meth:`unpack` inverts it. A hierarchy has
    fewer than 2**21 leaves here (``size**3 < 2**63``); :func:`measures` refuses more."""

    def __init__(self, sizes: Sequence[int]) -> None:
        self.sizes = [int(v) for v in sizes]
        big = [v for v in self.sizes if v >= 2**21]
        if big:
            raise InvalidParameterError(
                f"ktype.dask measures take hierarchies of fewer than 2,097,152 leaves; one has {big[0]:,}.")

    def __call__(self, part: pd.DataFrame) -> pd.DataFrame:
        out = {}
        for j, size in enumerate(self.sizes):
            x = part[xcol(j)].to_numpy(np.int64)
            out[f"__t{j}"] = (x * size + part[locol(j)].to_numpy(np.int64)) * size + part[hicol(j)].to_numpy(np.int64)
        return pd.DataFrame(out, index=part.index)

    def unpack(self, j: int, t: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        size = self.sizes[j]
        return t // (size * size), (t // size) % size, t % size
