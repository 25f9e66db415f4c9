"""How hierarchies are made: each builder computes a :class:`Shape` (the domain and each
value's path of ancestor labels, or an ordered domain) that :class:`~ktype.data.hierarchy.Hierarchy`
turns into a tree (``Hierarchy.intervals`` = ``Hierarchy._from_shape(intervals(...))``).

The public builder functions are :mod:`ktype.data.builders` and the ``Hierarchy``
classmethods of the same names; this module knows nothing of the ``Hierarchy`` class, so the
class can offer its builders without an import cycle.
"""

from __future__ import annotations

import math
import numbers
import warnings
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast

import numpy as np
import pandas as pd

from .._validation import unknown_name
from ..exceptions import HierarchyError
from ._values import SUPPRESSED_LABEL, _all_numeric, _sorted_unique, value_keys
from .types import _textual, shown

__all__ = ["Shape", "DATE_LEVELS"]

DATE_LEVELS = ("week", "month", "quarter", "half", "year", "decade", "century")
DEFAULT_DATE_LEVELS = ("month", "quarter", "year", "decade")


@dataclass(frozen=True)
class Shape:
    """What a builder computed: ``paths[i]`` lists value i's ancestor labels bottom-up (the
    root last) for a tree, or ``paths is None`` for an ordered domain."""

    name: str
    values: Sequence
    paths: Sequence[Sequence[str]] | None
    numeric: bool = False
    value_type: str | None = None


def _cell_text(x: Any) -> str:
    """A hierarchy cell as stripped text; a missing cell (None, NaN, NA) is empty."""
    if x is None or (not isinstance(x, str) and bool(pd.isna(x))):
        return ""
    return str(x).strip()


def from_table(table: pd.DataFrame | Sequence[Sequence], name: str = "attribute") -> Shape:
    """Build from an ARX-style table: one row per value, one column per level.

    Column 0 holds the domain values, the last column the single root. Exact duplicate
    rows are dropped with a warning; a value listed twice with different ancestors is
    an error. Domain-sized work in plain Python (a hierarchy has one row per value).
    """
    if isinstance(table, pd.DataFrame):
        raw = table.to_numpy(dtype=object).tolist()
    else:
        raw = [list(r) for r in table]
    ncol = max((len(r) for r in raw), default=0)
    if not raw:
        raise HierarchyError(f"Hierarchy for {name!r} has no rows.")
    if ncol < 2:
        raise HierarchyError(
            f"Hierarchy for {name!r} needs at least two columns (value and top level); got {ncol}."
        )
    rows = [[_cell_text(x) for x in r] + [""] * (ncol - len(r)) for r in raw]
    for r, row in enumerate(rows):
        if "" in row:
            raise HierarchyError(
                f"Hierarchy for {name!r} has an empty cell at row {r + 1}, level {row.index('')}: "
                "ragged rows are not allowed in the table format (use Hierarchy.from_subsets)."
            )
    seen: set[tuple[str, ...]] = set()
    kept: list[tuple[int, list[str]]] = []  # (1-based row number = file line of an ARX CSV, cells)
    dropped: list[list[str]] = []
    for r, row in enumerate(rows, start=1):
        key = tuple(row)
        if key in seen:
            dropped.append(row)
            continue
        seen.add(key)
        kept.append((r, row))
    if dropped:
        warnings.warn(
            f"Hierarchy for {name!r}: dropped {len(dropped)} exact duplicate row(s) "
            f"(e.g. value {shown(dropped[0][0])}).",
            stacklevel=2,
        )
    first_row: dict[str, int] = {}
    for r, row in kept:
        if row[0] in first_row:
            v = row[0]
            raise HierarchyError(
                f"Hierarchy for {name!r} lists value {v!r} twice with different generalizations "
                f"(rows {first_row[v]} and {r})."
            )
        first_row[row[0]] = r
    _check_nested(kept, ncol, name)
    return Shape(name, [row[0] for _, row in kept], [row[1:] for _, row in kept])


def _check_nested(kept: list[tuple[int, list[str]]], ncol: int, name: str) -> None:
    """Refuse a level table whose levels are not nested partitions of the values.

    ``kept`` holds one (1-based row number, cells) per value, cell 0 the value and one cell
    per level. Each label must (1) have one parent at the next level, and (2) name the same
    set of values at every level it appears (a label repeated to pad a short branch is fine;
    the same label for two different groups is not, nor a cycle ``M -> X`` on one row and
    ``X -> M`` on another). Domain-sized work only.
    """
    for c in range(ncol - 1):
        parent: dict[str, tuple[int, str]] = {}
        for r, row in kept:
            lab, par = row[c], row[c + 1]
            first = parent.get(lab)
            if first is None:
                parent[lab] = (r, par)
            elif first[1] != par:
                what = "value" if c == 0 else f"level-{c} label"
                raise HierarchyError(
                    f"Hierarchy for {name!r} is not a tree: {what} {lab!r} has two parents, {first[1]!r} (row {first[0]}) "
                    f"and {par!r} (row {r}); each level must group the values of the level below "
                    "(nested partitions)."
                )
    members: dict[str, tuple[int, frozenset]] = {}
    for c in range(ncol):
        groups: dict[str, list[int]] = {}
        for r, row in kept:
            groups.setdefault(row[c], []).append(r)
        for lab, idx in groups.items():
            s = frozenset(idx)
            prev = members.get(lab)
            if prev is None:
                members[lab] = (c, s)
                continue
            if prev[1] == s:
                continue
            # the same label names two different groups: a cycle if two labels point at each other
            edges: dict[tuple[str, str], int] = {}
            for a in range(ncol - 1):
                for r, row in kept:
                    if row[a] != row[a + 1]:
                        edges.setdefault((row[a], row[a + 1]), r)
            for (x, y), r in edges.items():
                if (y, x) in edges and lab in (x, y):
                    raise HierarchyError(
                        f"Hierarchy for {name!r} has a cycle: {x!r} -> {y!r} (row {r}) and "
                        f"{y!r} -> {x!r} (row {edges[(y, x)]}); levels must be nested partitions."
                    )
            r1, r2 = min(prev[1]), min(s)
            raise HierarchyError(
                f"Hierarchy for {name!r} is not a tree: label {lab!r} names different groups at level {prev[0]} "
                f"(row {r1}) and level {c} (row {r2}); levels must be nested partitions, "
                "so give the groups different labels."
            )


def from_arx_csv(path: str | Path, name: str | None = None, sep: str = ";") -> Shape:
    """Read an ARX hierarchy CSV (``value;level1;...;top``, no header)."""
    path = Path(path)
    if name is None:
        name = path.stem.split("hierarchy_")[-1]
    try:
        df = pd.read_csv(path, sep=sep, header=None, dtype=str, keep_default_na=False)
    except FileNotFoundError:
        raise HierarchyError(f"Hierarchy file for {name!r} not found: {path}") from None
    except (pd.errors.ParserError, pd.errors.EmptyDataError) as e:
        raise HierarchyError(f"Hierarchy file {path} for {name!r} is malformed: {e}") from None
    return from_table(df, name=name)


def flat(values: Iterable, name: str = "attribute") -> Shape:
    """Two-level hierarchy: each value or ``*`` (suppression only)."""
    vals = _sorted_unique(values)
    return Shape(
        name, vals, [[SUPPRESSED_LABEL]] * len(vals), numeric=_all_numeric(vals), value_type=_date_type(values)
    )


def ordered(values: Iterable, name: str = "attribute") -> Shape:
    """"No hierarchy" for an ordered attribute: any interval of the sorted domain."""
    vals = _sorted_unique(values)
    return Shape(name, vals, None, numeric=_all_numeric(vals), value_type=_date_type(values))


def intervals(
    values: Iterable[float],
    levels: Sequence[float | Sequence[float]],
    name: str = "attribute",
    *,
    bottom: float | None = None,
    top: float | None = None,
) -> Shape:
    """Numeric interval hierarchy with several levels.

    Parameters
    ----------
    values : iterable of numbers
        The domain (or the data column; its distinct values become the leaves).
    levels : sequence
        One entry per level above the leaves, finest first. A number is a bin *width*
        (bins anchored at a multiple of the width); a sequence is explicit *cut points*.
        Each level must be a coarsening of the previous one.
    bottom, top : float, optional
        Bottom / top coding: values below ``bottom`` (at or above ``top``) form one
        group ``<bottom`` (``>=top``) at every level.

    Examples
    --------
    >>> from ktype import Hierarchy
    >>> h = Hierarchy.intervals(range(17, 91), [5, 10, 20], name="age")
    >>> [h.label_interval(h.rank_of(33), h.rank_of(33), level=lev) for lev in range(5)]
    ['33', '[30-34]', '[30-39]', '[20-39]', '*']
    """
    vals = _sorted_unique(values)
    if not _all_numeric(vals):
        raise HierarchyError(f"Interval hierarchy for {name!r} needs numeric values.")
    arr = np.asarray(vals, dtype=float)
    integral = bool(np.all(np.mod(arr, 1) == 0))
    if len(levels) == 0:
        raise HierarchyError(f"Interval hierarchy for {name!r} needs at least one level.")
    groups_per_level: list[list[str]] = []
    prev_ids: np.ndarray | None = None
    for li, spec in enumerate(levels):
        if isinstance(spec, numbers.Real):
            w = float(spec)
            if w <= 0:
                raise HierarchyError(f"Interval hierarchy for {name!r}: width {spec} at level {li + 1} must be > 0.")
            lo_b = np.floor(arr / w) * w
            hi_b = lo_b + w
        else:
            cuts = np.asarray(sorted(float(c) for c in cast(Sequence[float], spec)))
            if len(cuts) == 0:
                raise HierarchyError(f"Interval hierarchy for {name!r}: level {li + 1} has no cut points.")
            idx = np.searchsorted(cuts, arr, side="right")
            lo_b = np.where(idx > 0, cuts[np.maximum(idx - 1, 0)], -np.inf)
            hi_b = np.where(idx < len(cuts), cuts[np.minimum(idx, len(cuts) - 1)], np.inf)
        if bottom is not None:
            below = arr < bottom
            lo_b = np.where(below, -np.inf, np.maximum(lo_b, bottom))
            hi_b = np.where(below, bottom, hi_b)
        if top is not None:
            above = arr >= top
            lo_b = np.where(above, top, lo_b)
            hi_b = np.where(above, np.inf, np.minimum(hi_b, top))
        labels = [_interval_label(a, b, integral) for a, b in zip(lo_b, hi_b)]
        ids = pd.factorize(pd.Series(list(zip(lo_b, hi_b))))[0]
        if prev_ids is not None:
            # coarsening check: every previous group maps into exactly one group here
            pairs = pd.DataFrame({"p": prev_ids, "c": ids}).drop_duplicates()
            if pairs["p"].duplicated().any():
                raise HierarchyError(
                    f"Interval hierarchy for {name!r}: level {li + 1} splits a group of level {li}; "
                    "each level must be a coarsening of the previous one (use multiples of the width "
                    "or a superset of the cut points)."
                )
        prev_ids = ids
        groups_per_level.append(labels)
    paths = [[groups_per_level[li][i] for li in range(len(levels))] + [SUPPRESSED_LABEL] for i in range(len(vals))]
    # drop a level whose groups are all singletons equal to the previous? keep: uniform depth matters
    return Shape(name, vals, paths, numeric=True)


def masking(
    values: Iterable,
    name: str = "attribute",
    *,
    levels: Sequence[int] | None = None,
    char: str = "*",
) -> Shape:
    """Masking hierarchy for codes of equal length, e.g. ZIP ``94142 → 9414* → 941** → *``.

    ``levels`` lists how many trailing characters each level masks (default 1, 2, …,
    length − 1); the top is always ``*``.
    """
    vals = sorted(set(value_keys(values)))
    lengths = {len(v) for v in vals}
    if len(lengths) != 1:
        raise HierarchyError(
            f"Masking hierarchy for {name!r} needs values of one length; found lengths {sorted(lengths)} "
            "(pad the codes, e.g. with leading zeros)."
        )
    length = lengths.pop()
    if levels is None:
        levels = list(range(1, length))
    if any(not (0 < m <= length) for m in levels) or list(levels) != sorted(set(levels)):
        raise HierarchyError(f"Masking hierarchy for {name!r}: levels must increase within 1..{length}; got {list(levels)}.")
    paths = [[v[: length - m] + char * m for m in levels if m < length] + [SUPPRESSED_LABEL] for v in vals]
    return Shape(name, vals, paths)


def from_subsets(
    domain: Sequence,
    subsets: Iterable[Iterable],
    name: str = "attribute",
    *,
    root_label: str = SUPPRESSED_LABEL,
    labels: Sequence[str] | None = None,
) -> Shape:
    """Build from an explicit laminar family of subsets (a *proper* family).

    Singletons and the whole domain are added when missing (Def. 2 of the
    k-concealment paper requires them). The family must be laminar: any two subsets are
    disjoint or nested. The resulting tree may be unbalanced.
    """
    dom = list(domain)
    keys = value_keys(dom)
    if len(set(keys)) != len(keys):
        raise HierarchyError(f"Hierarchy for {name!r}: the domain lists a value twice.")
    pos = {k: i for i, k in enumerate(keys)}
    fam: list[frozenset[int]] = []
    fam_labels: list[str] = []
    given_labels = list(labels) if labels is not None else None
    for si, s in enumerate(subsets):
        members = []
        for v in value_keys(list(s)):
            if v not in pos:
                raise HierarchyError(f"Hierarchy for {name!r}: subset {si} contains {v!r}, which is not in the domain.")
            members.append(pos[v])
        fs = frozenset(members)
        if not fs:
            raise HierarchyError(f"Hierarchy for {name!r}: subset {si} is empty.")
        if len(fs) == 1 or len(fs) == len(dom) or fs in fam:
            continue
        lab = given_labels[si] if given_labels else "{" + ",".join(keys[i] for i in sorted(fs)) + "}"
        if lab in fam_labels:
            raise HierarchyError(f"Hierarchy for {name!r}: label {lab!r} names two different subsets.")
        fam.append(fs)
        fam_labels.append(lab)
    # laminarity (family-sized loop, not over rows)
    for a in range(len(fam)):
        for b in range(a + 1, len(fam)):
            inter = fam[a] & fam[b]
            if inter and inter != fam[a] and inter != fam[b]:
                raise HierarchyError(
                    f"Hierarchy for {name!r} is not laminar: subsets {fam_labels[a]} and {fam_labels[b]} "
                    "overlap without one containing the other."
                )
    order = sorted(range(len(fam)), key=lambda a: -len(fam[a]))
    paths = []
    for i in range(len(dom)):
        containing = [a for a in order if i in fam[a]]  # largest first
        paths.append([fam_labels[a] for a in reversed(containing)] + [root_label])
    return Shape(name, dom, paths, numeric=_all_numeric(dom))


def _interval_label(a: float, b: float, integral: bool) -> str:
    if math.isinf(a) and math.isinf(b):
        return SUPPRESSED_LABEL
    if math.isinf(a):
        return f"<{_num(b)}"
    if math.isinf(b):
        return f">={_num(a)}"
    if integral:
        sep = "-" if a >= 0 else ".."  # label grammar: [lo..hi] once a bound is negative
        return f"[{_num(a)}{sep}{_num(b - 1)}]"
    return f"[{_num(a)}, {_num(b)})"


def _num(x: float) -> str:
    return str(int(x)) if float(x).is_integer() else f"{x:g}"


def _date_type(values: Iterable) -> str | None:
    """``"date"`` for datetime values (their leaves are ISO ``YYYY-MM-DD`` strings), else None."""
    if isinstance(values, pd.Series):
        if pd.api.types.is_datetime64_any_dtype(values):
            return "date"
        if not _textual(values):
            return None
        sample = values.dropna().head(1).tolist()
    else:
        sample = [v for v in list(values)[:1]]
    return "date" if sample and isinstance(sample[0], (pd.Timestamp, np.datetime64)) else None


def _as_dates(values: Iterable, name: str) -> pd.Series:
    ser = pd.Series(values if isinstance(values, pd.Series) else list(values))
    if pd.api.types.is_datetime64_any_dtype(ser):
        out = ser
    else:
        out = pd.to_datetime(ser.astype(str).str.strip(), format="%Y-%m-%d", errors="coerce")
        bad = out.isna() & ser.notna()
        if bad.any():
            raise HierarchyError(f"Date hierarchy for {name!r}: value {shown(ser[bad].iloc[0])} is not a date (YYYY-MM-DD).")
    if out.isna().any():
        raise HierarchyError("Cannot build a hierarchy over missing values; clean the column first.")
    return out.dt.normalize()


def dates(values: Iterable, levels: Sequence[str] = DEFAULT_DATE_LEVELS, name: str = "attribute") -> Shape:
    """Date hierarchy: day -> (week or month) -> quarter -> half -> year -> decade -> century -> ``*``.

    ``levels`` picks the levels above the day, finest first, among ``week`` (ISO week,
    ``2022-W05``), ``month`` (``2022-03``), ``quarter`` (``2022-Q1``), ``half``
    (``2022-H1``), ``year`` (``2022``), ``decade`` (``2020s``) and ``century``
    (``2000-2099``). Weeks do not nest in months or
    quarters: with ``week`` the levels above must be years or coarser, which are then ISO
    years (a week belongs to the year of its Thursday). Leaves are ISO dates
    ``2022-01-13``; values may be datetimes or ISO strings.

    >>> from ktype import Hierarchy
    >>> h = Hierarchy.dates(["2022-01-13", "2022-03-21", "2023-07-01"], name="admission")
    >>> h.label_interval(0, 1)
    '2022-Q1'
    """
    levels = [str(x).strip().lower() for x in levels]
    for lv in levels:
        if lv not in DATE_LEVELS:
            raise unknown_name("date level", lv, DATE_LEVELS)
    order = [DATE_LEVELS.index(lv) for lv in levels]
    if order != sorted(set(order)):
        raise HierarchyError(f"Date hierarchy for {name!r}: levels must go from fine to coarse without repeats; got {levels}.")
    if "week" in levels and any(lv in ("month", "quarter", "half") for lv in levels):
        raise HierarchyError(
            f"Date hierarchy for {name!r}: weeks do not nest in months, quarters or halves (a week can span two); "
            "use week with year/decade/century, or month without week."
        )
    days = pd.Series(pd.unique(_as_dates(values, name))).sort_values(ignore_index=True)
    iso = days.dt.isocalendar()
    year = iso["year"].astype(int) if "week" in levels else days.dt.year
    cols: dict[str, pd.Series] = {
        "week": iso["year"].astype(str) + "-W" + iso["week"].astype(int).map("{:02d}".format),
        "month": days.dt.strftime("%Y-%m"),
        "quarter": days.dt.year.astype(str) + "-Q" + days.dt.quarter.astype(str),
        "half": days.dt.year.astype(str) + "-H" + ((days.dt.month - 1) // 6 + 1).astype(str),
        "year": year.astype(str),
        "decade": (year // 10 * 10).astype(str) + "s",
        "century": (year // 100 * 100).astype(str) + "-" + (year // 100 * 100 + 99).astype(str),
    }
    leaves = days.dt.strftime("%Y-%m-%d").tolist()
    table = pd.DataFrame({0: leaves, **{i + 1: cols[lv].tolist() for i, lv in enumerate(levels)}})
    table[len(levels) + 1] = SUPPRESSED_LABEL
    table.index = np.arange(1, len(table) + 1)
    _check_nested(list(zip(table.index.tolist(), table.astype(str).to_numpy(dtype=object).tolist())),
                  table.shape[1], name)
    paths = table.iloc[:, 1:].to_numpy().tolist()
    return Shape(name, leaves, paths, value_type="date")
