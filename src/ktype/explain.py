"""What a release published, in words a data steward can act on.

* :func:`qi_exactness` — per quasi-identifier, how many published cells are exact values, how
  many generalized, how many suppressed, and warnings where exact values are what an
  attacker links on: exact dates, five-digit ZIP codes (the HIPAA Safe Harbor method of 45 CFR
  §164.514(b)(2) keeps at most the first three digits), ranges whose ends are values that
  occur in the data (Mondrian's tight ranges end on real values);
* :func:`measure_lines` — each information-loss measure with its direction and, where the
  measure allows, normalized to [0, 1] (0 = nothing lost, 1 = every cell suppressed);
* :func:`recoding_note` — for k-type local recodings (k-concealment, (k,k), freeform), what an
  adversary can and cannot learn: rows may be unique in the table, yet each person matches at
  least k released rows (Tassa, Mazza & Gionis, "k-Concealment", Trans. Data Privacy 2012, §3).

Nothing here changes a release; the command line prints it under the summary.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .release import Release

__all__ = ["QIExactness", "MeasureLine", "qi_exactness", "measure_lines", "recoding_note", "explain"]


@dataclass(frozen=True)
class QIExactness:
    """How one quasi-identifier was published (counts of released cells)."""

    column: str
    cells: int
    exact: int
    generalized: int
    #: cells showing nothing: the record is suppressed or the cell is the whole domain (``*``)
    hidden: int
    warnings: tuple[str, ...] = ()

    @property
    def exact_share(self) -> float:
        return self.exact / self.cells if self.cells else 0.0

    def __str__(self) -> str:
        if not self.cells:
            return f"{self.column}: no released cells"
        parts = [f"{self.exact / self.cells:.0%} exact", f"{self.generalized / self.cells:.0%} generalized"]
        if self.hidden:
            parts.append(f"{self.hidden / self.cells:.0%} hidden (suppressed or *)")
        return f"{self.column}: " + ", ".join(parts)


_ZIP = re.compile(r"^\d{5}$")
_RANGE = re.compile(r"^\[(.+)\.\.(.+)\]$|^\[(.+)-(.+)\]$")


def _zip_like(leaves: list[Any]) -> bool:
    text = [str(v) for v in leaves]
    return len(text) >= 5 and all(_ZIP.match(t) for t in text)


def qi_exactness(release: Release) -> list[QIExactness]:
    """Per quasi-identifier: exact, generalized and suppressed cells among the released rows,
    with warnings (see the module docstring). Counted on the release's cells (leaf-rank
    intervals): a cell is exact when its interval is one value."""
    ds = release.dataset
    lo, hi = np.asarray(release.lo), np.asarray(release.hi)
    sup = np.asarray(release.suppressed, dtype=bool)
    shown = ~sup
    n_rows = int(len(lo))
    out = []
    for j, col in enumerate(ds.quasi_identifiers):
        h = ds.hierarchies[j]
        exact_cells = shown & (lo[:, j] == hi[:, j])
        full = (lo[:, j] == 0) & (hi[:, j] == h.size - 1)
        exact = int(exact_cells.sum())
        hidden = int((sup | (shown & full & (h.size > 1))).sum())
        generalized = n_rows - exact - hidden
        warnings: list[str] = []
        if exact and h.value_type == "date":
            warnings.append(f"{exact:,} of {n_rows:,} rows publish an exact date in {col!r}; generalize it "
                            "(e.g. a date hierarchy to month or year) unless exact dates are meant to be public.")
        if exact and h.value_type != "date" and _zip_like(h.leaves):
            warnings.append(f"{exact:,} of {n_rows:,} rows keep all five digits of {col!r}; HIPAA Safe Harbor "
                            "allows at most the first three (masking:2 or more).")
        ranged = shown & ~exact_cells & ~full
        if ranged.any() and not h.is_tree and h.value_type in ("date", "number"):
            warnings.append(f"{int(ranged.sum()):,} ranges of {col!r} end on values that occur in the data "
                            "(tight ranges: a range's ends are real values of some records).")
        out.append(QIExactness(col, n_rows, exact, generalized, hidden, tuple(warnings)))
    return out


@dataclass(frozen=True)
class MeasureLine:
    """One information-loss measure: raw value, normalized value (or None) and what it means."""

    name: str
    value: float
    normalized: float | None
    meaning: str
    extra: Mapping[str, Any] = field(default_factory=dict)

    def __str__(self) -> str:
        norm = f" ({self.normalized:.1%} of the maximum)" if self.normalized is not None else ""
        return f"{self.name} = {self.value:.6g}{norm}: {self.meaning}"


#: measure -> (meaning, how to normalize: "unit" already in [0, 1], "option" divided by its value at full suppression,
#: "dm" divided by n², "higher" higher is better, None not normalizable)
_MEANINGS: dict[str, tuple[str, str | None]] = {
    "loss_metric": ("share of generalization, 0 = nothing lost, 1 = every cell suppressed", "unit"),
    "gcp": ("global certainty penalty, 0 = nothing lost, 1 = every cell suppressed", "unit"),
    "ncp": ("total certainty penalty of all cells (gcp × cells); lower is better", "ncp"),
    "entropy": ("bits of information lost (Gionis–Tassa entropy); lower is better", "option"),
    "monotone_entropy": ("bits lost, monotone entropy measure; lower is better", "option"),
    "non_uniform_entropy": ("bits lost, non-uniform entropy (ARX's default); lower is better", "option"),
    "tree_measure": ("tree measure; lower is better", "option"),
    "discernibility": ("Σ class size² (suppressed rows count n each); 1 = one class of everything", "dm"),
    "precision": ("Sweeney's precision: 1 = nothing generalized, 0 = everything", "higher"),
    "height": ("Σ of the generalization levels (full-domain); lower is better", None),
    "perimeter": ("Σ normalized box widths × group size; lower is better", None),
    "kl_divergence": ("bits between the original and the best estimate from the release; 0 = same", None),
    "average_class_size": ("average class size / k; 1 is the best possible", None),
}


def measure_lines(release: Release, values: Mapping[str, float] | None = None) -> list[MeasureLine]:
    """The release's measures (``values``, default :func:`ktype.measures.compute`) explained."""
    from . import measures

    vals = dict(values) if values is not None else dict(measures.compute(release))
    n = max(int(release.dataset.n), 1)
    cells = n * max(int(release.dataset.r), 1)
    out = []
    for name, value in vals.items():
        meaning, how = _MEANINGS.get(name, ("lower is better", None))
        norm: float | None = None
        v = float(value)
        if how == "unit":
            norm = v
        elif how == "ncp":
            norm = v / cells
        elif how == "dm":
            norm = v / float(n) ** 2
        elif how == "higher":
            norm = 1.0 - v
        elif how == "option":
            top = _at_full_suppression(release, name)
            norm = v / top if top else None
        if norm is not None and not np.isfinite(norm):
            norm = None
        out.append(MeasureLine(name, v, None if norm is None else min(max(norm, 0.0), 1.0), meaning))
    return out


def _at_full_suppression(release: Release, name: str) -> float | None:
    """The measure's value had every cell been suppressed (its maximum for these records)."""
    from . import measures

    ds = release.dataset
    n, r = int(ds.n), int(ds.r)
    hi = np.broadcast_to((np.asarray(ds.domain_sizes) - 1).astype(release.hi.dtype), (n, r)).copy()
    try:
        everything = Release.build(ds, np.zeros((n, r), dtype=release.lo.dtype), hi, recoding="local",
                                   source=np.arange(n))
        value = float(measures.MEASURES[name](everything))
    except Exception:  # noqa: BLE001 - a measure that cannot value this release is shown raw
        return None
    return value if value > 0 and np.isfinite(value) else None


def recoding_note(release: Release) -> str | None:
    """For local/freeform recodings: what the guarantee is and is not (None otherwise)."""
    if release.recoding not in ("local", "freeform"):
        return None
    shown = ~np.asarray(release.suppressed, dtype=bool)
    if shown.any():
        _, counts = np.unique(_published_keys(release, shown), axis=0, return_counts=True)
        unique_rows = int((counts == 1).sum())
    else:
        unique_rows = 0
    names = ", ".join(str(m) for m in release.models) or "its model"
    return (f"Local recoding ({names}): {unique_rows:,} of {int(shown.sum()):,} released rows have a combination of "
            "quasi-identifiers that no other released row has. That is expected: this model does not make rows "
            "look alike, it guarantees that each person's quasi-identifiers are consistent with (match) at least k "
            "released rows, so an adversary who knows them cannot tell which of those rows is the person's. It does "
            "not hide whether a person is in the table, and a unique row still shows its sensitive values to "
            "whoever can single it out by other means.")


def _published_keys(release: Release, shown: np.ndarray) -> np.ndarray:
    """Each shown row's exact published QI content as one row of integers: its intervals, or for
    a freeform release its cells (ranges and value sets; ``lo``/``hi`` are only their closure)."""
    lo, hi, sets = release.cells()  # every Release has them: intervals, and value sets where published
    parts = [np.asarray(lo)[shown].astype(np.int64), np.asarray(hi)[shown].astype(np.int64)]
    parts += [np.packbits(np.asarray(sets[j], dtype=bool), axis=1)[shown].astype(np.int64) for j in sorted(sets)]
    return np.concatenate(parts, axis=1)


def explain(release: Release, values: Mapping[str, float] | None = None) -> dict[str, Any]:
    """All of the above as plain data (for ``--json`` summaries and reports)."""
    return {
        "quasi_identifiers": [{"column": q.column, "cells": q.cells, "exact": q.exact, "generalized": q.generalized,
                               "hidden": q.hidden, "warnings": list(q.warnings)} for q in qi_exactness(release)],
        "measures": [{"name": m.name, "value": m.value, "normalized": m.normalized, "meaning": m.meaning}
                     for m in measure_lines(release, values)],
        "recoding_note": recoding_note(release),
    }
