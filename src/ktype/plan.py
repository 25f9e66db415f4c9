"""Recoding plans: what an algorithm decided, apart from the rows it is applied to.

A plan is a value computed once from the whole table (or its frequency set) and then applied
to rows wherever they are: to the in-memory table by the release builder, and partition by
partition by :mod:`ktype.dask`, through the same ``apply``. The schema it is applied with (the
quasi-identifiers' hierarchies) travels apart from the data: a
:class:`~ktype.data.dataset.Dataset` in memory, the driver's proxy of a partitioned table in
Dask.

* :class:`FullDomainPlan` — one generalization level per quasi-identifier (a node of the
  full-domain lattice): a record's cell on QI ``j`` is the interval of its leaf's ancestor at
  ``levels[j]``, whatever else is in the table.
* :class:`BoxPlan` — one box (an interval per QI) per class of a multidimensional partition
  (Mondrian): a record's cells are its class's box.
* Local and freeform recodings have no plan apart from their cells: the cell of a record
  depends on which records share its class in a way no rule over the QI values reproduces
  (two records with equal values may publish different cells), so the per-record cells
  (``Release.lo``/``hi``, the freeform value sets) are their plan.

:func:`qi_labels` turns cells into the published labels; :meth:`ktype.Release.to_pandas` and
the Dask writer both label through it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from .exceptions import InvalidParameterError

__all__ = ["FullDomainPlan", "BoxPlan", "qi_labels"]


@dataclass(frozen=True)
class FullDomainPlan:
    """Generalize QI ``j`` of every record to its ancestor at ``levels[j]``."""

    levels: tuple[int, ...]

    def __post_init__(self) -> None:
        object.__setattr__(self, "levels", tuple(int(v) for v in self.levels))

    def intervals(self, hierarchies: Sequence[Any]) -> list[tuple[np.ndarray, np.ndarray]]:
        """Per QI, the ``(lo, hi)`` interval of each leaf rank at the plan's level."""
        if len(hierarchies) != len(self.levels):
            raise InvalidParameterError(
                f"The plan has {len(self.levels)} levels for {len(hierarchies)} quasi-identifiers; give one level per QI.")
        return [h.level_intervals(lev) for h, lev in zip(hierarchies, self.levels)]

    def apply(self, hierarchies: Sequence[Any], codes: Sequence[np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
        """The cells ``(lo, hi)`` (int32, shape ``(n, r)``) of records whose QI leaf ranks are
        ``codes[j]`` (one array per QI, e.g. the columns of ``Dataset.X`` or of a partition)."""
        tables = self.intervals(hierarchies)
        n = len(codes[0]) if len(codes) else 0
        lo = np.empty((n, len(tables)), dtype=np.int32)
        hi = np.empty((n, len(tables)), dtype=np.int32)
        for j, (li, hj) in enumerate(tables):
            x = np.asarray(codes[j], dtype=np.int64)
            lo[:, j] = li[x]
            hi[:, j] = hj[x]
        return lo, hi


@dataclass(frozen=True)
class BoxPlan:
    """Class ``c`` publishes the box ``lo[c], hi[c]`` (one interval per QI)."""

    lo: np.ndarray
    hi: np.ndarray

    def apply(self, classes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The cells ``(lo, hi)`` (int32, shape ``(n, r)``) of records in ``classes``."""
        classes = np.asarray(classes, dtype=np.int64)
        # ``take`` along axis 0 copies whole rows; plain fancy indexing of a 2-D array is ~15x slower
        return (np.asarray(self.lo, dtype=np.int32).take(classes, axis=0),
                np.asarray(self.hi, dtype=np.int32).take(classes, axis=0))


def qi_labels(hierarchies: Sequence[Any], lo: np.ndarray, hi: np.ndarray,
              levels: Sequence[int] | np.ndarray | None = None) -> list[list[str]]:
    """The published label of every cell, one list per QI: ``[30-39]``, ``941**``, ``*`` or a
    hierarchy label; with ``levels`` (a full-domain release) each level's own labels."""
    return [h.labels(lo[:, j], hi[:, j], level=None if levels is None else int(levels[j]))
            for j, h in enumerate(hierarchies)]
