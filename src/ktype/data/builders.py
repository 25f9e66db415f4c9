"""Hierarchy builders: turn a domain (or a table of levels) into a :class:`Hierarchy`.

Each builder is also a :class:`Hierarchy` classmethod of the same name: ``intervals(...)``
here is ``Hierarchy.intervals(...)``. How the trees are made is in ``_shapes.py``; this
module adds :func:`with_missing` (the ``category`` missing-value policy) and
:func:`build_hierarchy` (a hierarchy from a config or command-line specification).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from .._validation import unknown_name
from ..exceptions import HierarchyError
from ._shapes import DATE_LEVELS, DEFAULT_DATE_LEVELS, _date_type
from ._values import MISSING_LABEL, SUPPRESSED_LABEL, _all_numeric, _sorted_unique, value_keys
from .hierarchy import Hierarchy
from .types import _textual

__all__ = [
    "from_table", "from_arx_csv", "flat", "ordered", "intervals", "masking", "from_subsets", "dates",
    "with_missing", "build_hierarchy", "DATE_LEVELS",
]


def from_table(table: pd.DataFrame | Sequence[Sequence], name: str = "attribute") -> Hierarchy:
    """Build from an ARX-style table: one row per value, one column per level (:meth:`Hierarchy.from_table`)."""
    return Hierarchy.from_table(table, name=name)


def from_arx_csv(path: str | Path, name: str | None = None, sep: str = ";") -> Hierarchy:
    """Read an ARX hierarchy CSV (:meth:`Hierarchy.from_arx_csv`)."""
    return Hierarchy.from_arx_csv(path, name=name, sep=sep)


def flat(values: Iterable, name: str = "attribute") -> Hierarchy:
    """Two-level hierarchy: each value or ``*`` (:meth:`Hierarchy.flat`)."""
    return Hierarchy.flat(values, name=name)


def ordered(values: Iterable, name: str = "attribute") -> Hierarchy:
    """'No hierarchy' for an ordered attribute (:meth:`Hierarchy.ordered`)."""
    return Hierarchy.ordered(values, name=name)


def intervals(
    values: Iterable[float], levels: Sequence[float | Sequence[float]], name: str = "attribute", *,
    bottom: float | None = None, top: float | None = None,
) -> Hierarchy:
    """Numeric interval hierarchy with several levels (:meth:`Hierarchy.intervals`)."""
    return Hierarchy.intervals(values, levels, name=name, bottom=bottom, top=top)


def masking(values: Iterable, name: str = "attribute", *, levels: Sequence[int] | None = None, char: str = "*") -> Hierarchy:
    """Masking hierarchy for codes of equal length (:meth:`Hierarchy.masking`)."""
    return Hierarchy.masking(values, name=name, levels=levels, char=char)


def from_subsets(
    domain: Sequence, subsets: Iterable[Iterable], name: str = "attribute", *,
    root_label: str = SUPPRESSED_LABEL, labels: Sequence[str] | None = None,
) -> Hierarchy:
    """Build from an explicit laminar family of subsets (:meth:`Hierarchy.from_subsets`)."""
    return Hierarchy.from_subsets(domain, subsets, name=name, root_label=root_label, labels=labels)


def dates(values: Iterable, levels: Sequence[str] = DEFAULT_DATE_LEVELS, name: str = "attribute") -> Hierarchy:
    """Date hierarchy, e.g. day -> month -> quarter -> year -> decade -> ``*`` (:meth:`Hierarchy.dates`)."""
    return Hierarchy.dates(values, levels, name=name)


def with_missing(h: Hierarchy, label: str = MISSING_LABEL) -> Hierarchy:
    """``h`` plus a leaf ``label`` for missing values (the ``category`` missing-value policy).

    Tree: the missing value is its own branch under the root, repeated at every level
    (generalized only to ``*``). Ordered: the last value of the domain.
    """
    keys = value_keys(h.leaves)
    if label in keys:
        return h
    vt = "text" if h.value_type == "number" else h.value_type  # numbers + a label: compared as text
    if not h.is_tree:
        return Hierarchy(h.name, "ordered", keys + [label], numeric=False, value_type=vt)
    paths = []
    for r in range(h.size):
        chain = []
        node = int(h.node_parent[h.leaf_node[r]])
        while node > 0:
            chain.append(h.node_label[node])
            node = int(h.node_parent[node])
        chain.append(h.node_label[0])
        paths.append(chain)
    paths.append([label] * (h.height - 1) + [h.node_label[0]])
    return Hierarchy._from_paths(h.name, keys + [label], paths, numeric=False, value_type=vt)


def build_hierarchy(column: str, spec: Any, values: pd.Series) -> Hierarchy:  # noqa: PLR0912
    """Turn a hierarchy specification into a :class:`Hierarchy` for ``column``.

    ``spec``: a :class:`Hierarchy`; None (``ordered`` for numbers and dates, ``flat``
    otherwise); ``"ordered"``, ``"flat"``, ``"dates"`` or ``"dates:month,year"``; a path to
    an ARX hierarchy CSV; or a one-key mapping ``{"intervals": [5, 10]}``,
    ``{"masking": [1, 2]}``, ``{"subsets": [...]}``, ``{"dates": ["month", "year"]}``.
    Cells equal to :data:`MISSING_LABEL` (the ``category`` missing-value policy) get their
    own leaf (:func:`with_missing`).
    """
    values = pd.Series(values).reset_index(drop=True)
    # every builder reads only the distinct values, so the checks and the builders run on them
    # (in order of first appearance, each indexed by the position of its first row), not on
    # every row: a column of 10^7 rows has a few hundred values
    distinct = values.drop_duplicates()
    textual = _textual(values)
    if textual and (distinct == SUPPRESSED_LABEL).any():
        i = int(distinct.index[(distinct == SUPPRESSED_LABEL).to_numpy()][0])
        raise HierarchyError(
            f"Column {column!r} holds the value '*' (position {i}), which ktype reserves for a suppressed cell; "
            "recode it (e.g. to 'star') before anonymizing."
        )
    is_missing = (distinct == MISSING_LABEL).to_numpy() if textual else np.zeros(len(distinct), dtype=bool)
    base = distinct[~is_missing]
    if len(base):
        base = pd.Series(base.tolist()) if textual else base.reset_index(drop=True)
        if base.dtype == object and len(base) and all(isinstance(v, pd.Timestamp) for v in base.head(1)):
            base = pd.to_datetime(base)
    if is_missing.all():
        h = flat([MISSING_LABEL], name=column)
        return h
    if isinstance(spec, Hierarchy):
        h = spec
    elif spec is None:
        numeric = _all_numeric(pd.unique(base).tolist())
        h = ordered(base, name=column) if numeric or _date_type(base) == "date" else flat(base, name=column)
    elif isinstance(spec, (str, Path)) and str(spec) in ("ordered", "flat"):
        h = ordered(base, name=column) if str(spec) == "ordered" else flat(base, name=column)
    elif isinstance(spec, str) and (spec == "dates" or spec.startswith("dates:")):
        lv = [x for x in spec.split(":", 1)[1].split(",") if x.strip()] if ":" in spec else DEFAULT_DATE_LEVELS
        h = dates(base, lv, name=column)
    elif isinstance(spec, (str, Path)):
        h = from_arx_csv(spec, name=column)
    elif isinstance(spec, Mapping):
        if len(spec) != 1:
            raise HierarchyError(f"Hierarchy spec for {column!r} must have one key: 'intervals', 'masking', 'subsets' or 'dates'.")
        (kind, arg), = spec.items()
        if kind == "intervals":
            if isinstance(arg, Mapping):
                h = intervals(base, arg["levels"], name=column, bottom=arg.get("bottom"), top=arg.get("top"))
            else:
                h = intervals(base, arg, name=column)
        elif kind == "masking":
            h = masking(base, name=column, levels=arg)
        elif kind == "subsets":
            h = from_subsets(_sorted_unique(base), arg, name=column)
        elif kind == "dates":
            h = dates(base, DEFAULT_DATE_LEVELS if arg in (None, True) else arg, name=column)
        else:
            raise unknown_name("hierarchy kind", str(kind), ["intervals", "masking", "subsets", "dates"])
    else:
        raise HierarchyError(f"Cannot build a hierarchy for {column!r} from {type(spec).__name__}.")
    if is_missing.any():
        h = with_missing(h)
    if h.name != column:
        h = h.copy()
        h.name = column
    return h
