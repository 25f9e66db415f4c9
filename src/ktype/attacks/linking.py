"""The linking attack: join a release with an external identified table.

Ciriani, De Capitani di Vimercati, Foresti, Samarati, "k-Anonymity" (Springer 2007), §1
(Figs. 1 and 2): the de-identified medical table and a public voter list share ZIP, date of
birth, sex and marital status; only one divorced female born 64/04/12 lives in 94142, so the
voter Sue J. Doe is linked to the one medical record with these values, and her disease
(hypertension) is disclosed. Linking can also merely "restrict the uncertainty" to a few
records, which is what k-anonymity bounds: every combination of QI values matches at least k
released records.

:func:`link` runs that join on any release — a :class:`~ktype.Release`, or a published table
(a DataFrame, with or without generalized cells) — and any external table. A published cell
*covers* an external value when the value is one of those the cell stands for:

* with a hierarchy (a Release's own, or ``hierarchies=`` for a table): the value is a leaf in
  the cell's interval; numbers of an ordered column are compared with the range's end values
  (so a value absent from the original data but inside ``[30-39]`` is covered);
* otherwise, and for values outside a hierarchy's domain, by the label grammar of ktype's
  releases (docs/guide.md, "Labels"): ``*`` covers everything; ``[lo-hi]`` / ``[lo..hi]`` a
  range (numbers, else dates, else text order); ``{a,b}`` a set; a label with ``*`` inside
  (``9413*``) every value of its length that agrees on the other characters; anything else
  only the equal value (numbers compared as numbers).

Each external record's *candidates* are the released rows covering it on every ``on``
column. One candidate: the record is linked with certainty (if the person is in the table, as
the attacker assumes); 2..k-1 candidates: k-ambiguous below k (the uncertainty k-anonymity
should have bounded); none: the person is not (recognizably) in the release.

Cost: the coverage of each distinct published cell of a column against each distinct external
value of it (a loop over distinct labels, vectorized over values), then a block-wise boolean
join of the distinct published combinations with the distinct external ones — no loop over
rows or pairs of rows.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from .._grouping import group_rows
from ..data.hierarchy import SUPPRESSED_LABEL, Hierarchy, value_keys
from ..exceptions import DataError, HierarchyError, InvalidParameterError
from ..release import Release

__all__ = ["link", "link_files", "LinkReport"]

#: a block of the published x external join holds at most this many booleans
_BLOCK = 4_000_000


@dataclass
class LinkReport:
    """Result of :func:`link`.

    Attributes
    ----------
    on : list of (published column, external column)
        The linking attributes.
    candidates : ndarray of int64
        Per external record (external table order): the number of published rows covering it.
    linked_by : ndarray of int64
        Per published row (release order, suppressed rows excluded): the number of external
        records it covers.
    unique : pandas.DataFrame
        The external records with exactly one candidate, joined with that row's published
        values (published columns whose name clashes get the suffix ``" (release)"``), in
        external table order; the column ``external_row`` is the record's position.
    published : pandas.DataFrame
        The published rows the attack ran on (suppressed rows excluded).
    external : pandas.DataFrame
        The external table.
    """

    on: list[tuple[str, str]]
    candidates: np.ndarray
    linked_by: np.ndarray
    unique: pd.DataFrame
    published: pd.DataFrame = field(repr=False)
    external: pd.DataFrame = field(repr=False)

    def ambiguous(self, k: int) -> pd.DataFrame:
        """External records with 2..k-1 candidates (k-ambiguous below k), with their count."""
        mask = (self.candidates >= 2) & (self.candidates < k)
        out = self.external.loc[mask].copy()
        out.insert(0, "candidates", self.candidates[mask])
        out.insert(0, "external_row", np.flatnonzero(mask))
        return out.reset_index(drop=True)

    def summary(self, k: int | None = None) -> dict[str, int]:
        """Counts: external records, unmatched, uniquely linked, ambiguous below ``k``, and the
        published rows that exactly one external record covers."""
        c = self.candidates
        out = {
            "external_records": int(len(c)),
            "published_rows": int(len(self.linked_by)),
            "unmatched": int((c == 0).sum()),
            "unique": int((c == 1).sum()),
            "smallest_candidates": int(c[c > 0].min()) if (c > 0).any() else 0,
            "rows_linked_to_one_record": int((self.linked_by == 1).sum()),
        }
        if k is not None:
            out[f"ambiguous_below_{k}"] = int(((c >= 2) & (c < k)).sum())
            out[f"at_least_{k}"] = int((c >= k).sum())
        return out

    def render(self, k: int | None = None, *, show: int = 10) -> str:
        """A plain-text report (what ``ktype attack link`` prints)."""
        s = self.summary(k)
        on = ", ".join(a if a == b else f"{a}={b}" for a, b in self.on)
        lines = [
            f"Linking attack on ({on}): {s['external_records']} external record(s) against {s['published_rows']} "
            "published row(s).",
            f"  uniquely linked (1 candidate): {s['unique']}",
        ]
        if k is not None:
            lines.append(f"  ambiguous below k={k} (2..{k - 1} candidates): {s[f'ambiguous_below_{k}']}")
            lines.append(f"  at least {k} candidates: {s[f'at_least_{k}']}")
        lines.append(f"  not matched: {s['unmatched']}")
        if len(self.unique):
            lines.append(f"Uniquely linked records (first {min(show, len(self.unique))}):")
            lines.append(self.unique.head(show).to_string(index=False))
        return "\n".join(lines)


def _pairs(on: Sequence[str | tuple[str, str]] | Mapping[str, str] | str) -> list[tuple[str, str]]:
    if isinstance(on, str):
        on = [c.strip() for c in on.split(",") if c.strip()]
    if isinstance(on, Mapping):
        return [(str(a), str(b)) for a, b in on.items()]
    out = []
    for c in on:
        if isinstance(c, str):
            out.append((c, c))
        elif isinstance(c, (tuple, list)) and len(c) == 2:
            out.append((str(c[0]), str(c[1])))
        else:
            raise InvalidParameterError(f"on= takes column names or (published, external) pairs; got {c!r}.")
    if not out:
        raise InvalidParameterError("Give at least one column to link on (on=['zip', 'dob', 'sex']).")
    return out


def _num(s: str) -> float | None:
    """The number a text stands for; None for other texts and for codes with a leading zero
    (ZIP ``02139`` is not the number 2139)."""
    t = s.lstrip("-")
    if len(t) > 1 and t[0] == "0" and t[1] != ".":
        return None
    try:
        return float(s)
    except ValueError:
        return None


def _nums(keys: np.ndarray) -> np.ndarray:
    """:func:`_num` of each text (NaN when not a number)."""
    out = pd.to_numeric(pd.Series(keys, dtype=object), errors="coerce").to_numpy(dtype=np.float64, copy=True)
    lead = np.array([_num(k) is None for k in keys.tolist()], dtype=bool) if len(keys) else np.zeros(0, bool)
    out[lead] = np.nan
    return out


def _generic_cover(label: str, keys: np.ndarray, nums: np.ndarray) -> np.ndarray:
    """Which external values (canonical texts ``keys``, numbers ``nums`` or NaN) ``label`` covers."""
    lab = label.strip()
    if lab == SUPPRESSED_LABEL:
        return np.ones(len(keys), dtype=bool)
    if lab.startswith("{") and lab.endswith("}") and len(lab) >= 2:
        parts = [p.replace("\\,", ",").replace("\\{", "{").replace("\\}", "}").replace("\\\\", "\\")
                 for p in re.split(r"(?<!\\),", lab[1:-1])]
        return np.isin(keys, np.array(parts, dtype=object))
    if lab.startswith("[") and lab.endswith("]"):
        body = lab[1:-1]
        cands = [(body[:i], body[i + 2:]) for i in range(len(body)) if body.startswith("..", i)]
        cands += [(body[:i], body[i + 1:]) for i in range(1, len(body)) if body[i] == "-" and body[i - 1] not in "-eE"]
        for a, b in cands:
            x, y = _num(a.strip()), _num(b.strip())
            if x is not None and y is not None:
                return (nums >= x) & (nums <= y)
        for a, b in cands:  # dates (ISO) and text compare as text
            a, b = a.strip(), b.strip()
            if a and b and a <= b:
                return np.array([a <= k <= b for k in keys.tolist()], dtype=bool) if len(keys) else np.zeros(0, bool)
    if "*" in lab:
        pat = re.compile("".join("." if ch == "*" else re.escape(ch) for ch in lab), re.S)
        return np.array([pat.fullmatch(k) is not None for k in keys.tolist()], dtype=bool)
    x = _num(lab)
    if x is not None:
        return (keys == lab) | (nums == x)
    return keys == lab


def _cover_matrix(cells: Sequence[str], ranges: np.ndarray | None, h: Hierarchy | None,
                  values: np.ndarray) -> np.ndarray:
    """Boolean (len(cells), len(values)): whether each distinct cell covers each distinct value.

    ``ranges`` (len(cells), 2): leaf-rank intervals of the cells in hierarchy ``h`` (-1 when a
    cell is not one of its values); the label grammar decides the others and the values outside
    the hierarchy's domain."""
    keys = np.array(value_keys(values), dtype=object)
    nums = _nums(keys)
    cov = np.zeros((len(cells), len(values)), dtype=bool)
    in_dom = np.zeros(len(values), dtype=bool)
    if h is not None and ranges is not None:
        rank = pd.Index(value_keys(h.leaves)).get_indexer(keys)
        in_dom = rank >= 0
        leaf_nums = h.numeric_values() if not h.is_tree else None
        ok = ranges[:, 0] >= 0
        if ok.any():
            lo, hi = ranges[ok, 0][:, None], ranges[ok, 1][:, None]
            if leaf_nums is not None:  # ordered numbers: by value, inside or outside the data's domain
                cov[ok] = (nums[None, :] >= leaf_nums[lo]) & (nums[None, :] <= leaf_nums[hi])
                in_dom = np.ones(len(values), dtype=bool)
            else:
                cov[ok] = in_dom[None, :] & (rank[None, :] >= lo) & (rank[None, :] <= hi)
        generic_rows = ~ok
    else:
        generic_rows = np.ones(len(cells), dtype=bool)
    # plain values in bulk (equality, numbers as numbers), the other labels one distinct label at a time
    cell_keys = np.array([str(c).strip() for c in cells], dtype=object)
    special = np.array([c == SUPPRESSED_LABEL or "*" in c or (c.startswith("[") and c.endswith("]"))
                        or (c.startswith("{") and c.endswith("}")) for c in cell_keys.tolist()], dtype=bool)
    plain = generic_rows & ~special
    if plain.any():
        idx = pd.Index(keys).get_indexer(cell_keys[plain])
        rows = np.flatnonzero(plain)
        hit = idx >= 0
        cov[rows[hit], idx[hit]] = True
        cn = _nums(cell_keys[plain])
        both = ~np.isnan(cn)
        if both.any():
            cov[rows[both]] |= cn[both][:, None] == nums[None, :]
    for i in np.flatnonzero(generic_rows & special):  # distinct labels, not rows
        cov[i] = _generic_cover(cell_keys[i], keys, nums)
    if h is not None and ranges is not None:  # values outside the hierarchy: the label grammar
        out = ~in_dom
        if out.any():
            for i in np.flatnonzero(~generic_rows):
                lab = cell_keys[i]
                cov[i, out] = _generic_cover(lab, keys[out], nums[out])
    return cov


def link(target: Release | pd.DataFrame, external: pd.DataFrame,  # noqa: PLR0915
         on: Sequence[str | tuple[str, str]] | Mapping[str, str] | str, *,
         hierarchies: Mapping[str, Hierarchy] | None = None) -> LinkReport:
    """Link each record of ``external`` to the published rows that cover it on ``on``.

    Parameters
    ----------
    target : Release or pandas.DataFrame
        A release (its hierarchies interpret its cells; suppressed rows are not published and
        not linked) or a published table (labels read by ``hierarchies`` where given, else by
        the label grammar; a de-identified table with exact values works too).
    external : pandas.DataFrame
        The identified external table (e.g. a voter list).
    on : column names, ``(published, external)`` pairs, a mapping, or ``"zip,dob,sex"``
        The attributes both tables share.
    hierarchies : mapping of column -> Hierarchy, optional
        For a DataFrame target: how to read hierarchy labels (``person`` covers ``asian``).

    Returns
    -------
    LinkReport

    Examples
    --------
    >>> import pandas as pd
    >>> from ktype.attacks import link
    >>> medical = pd.DataFrame({"zip": ["94142", "94141"], "dob": ["64/04/12", "64/09/13"],
    ...                         "disease": ["hypertension", "obesity"]})
    >>> voters = pd.DataFrame({"name": ["Sue J. Doe"], "zip": ["94142"], "dob": ["64/04/12"]})
    >>> link(medical, voters, on=["zip", "dob"]).unique[["name", "disease"]].values.tolist()
    [['Sue J. Doe', 'hypertension']]
    """
    pairs = _pairs(on)
    if not isinstance(external, pd.DataFrame):
        raise InvalidParameterError(f"external must be a pandas DataFrame; got {type(external).__name__}.")
    if isinstance(target, Release):
        published = target.to_pandas()
        keep = ~target.suppressed
        ds = target.dataset
        hs = {c: h for c, h in zip(ds.quasi_identifiers, ds.hierarchies)}
        qi_pos = {c: j for j, c in enumerate(ds.quasi_identifiers)}
    elif isinstance(target, pd.DataFrame):
        published = target.reset_index(drop=True)
        keep = None
        hs = dict(hierarchies or {})
        qi_pos = {}
    else:
        raise InvalidParameterError(f"link needs a Release or a pandas DataFrame; got {type(target).__name__}.")
    for a, b in pairs:
        if a not in published.columns:
            raise DataError(f"Column {a!r} is not in the release (its columns: {', '.join(map(str, published.columns))}).")
        if b not in external.columns:
            raise DataError(f"Column {b!r} is not in the external table (its columns: "
                            f"{', '.join(map(str, external.columns))}).")
    ext = external.reset_index(drop=True)
    n_pub, n_ext = len(published), len(ext)
    cell_idx = np.zeros((n_pub, len(pairs)), dtype=np.int64)
    val_idx = np.zeros((n_ext, len(pairs)), dtype=np.int64)
    covers = []
    for j, (a, b) in enumerate(pairs):
        h = hs.get(a)
        if isinstance(target, Release) and a in qi_pos:
            q = qi_pos[a]
            lo, hi = target.lo[keep, q], target.hi[keep, q]
            cid, _ = group_rows(np.column_stack([lo, hi]))
            first = np.unique(cid, return_index=True)[1]
            ranges = np.column_stack([lo[first], hi[first]]).astype(np.int64)
            lev = None if target.levels is None else int(target.levels[q])
            cells = h.labels(ranges[:, 0], ranges[:, 1], level=lev)  # type: ignore[union-attr]
        else:
            col = published[a]
            cells_all = np.array(value_keys(col.to_numpy()), dtype=object)
            uniq, cid = np.unique(cells_all.astype(str), return_inverse=True)
            cells = uniq.tolist()
            ranges = None
            if h is not None:
                ranges = np.full((len(cells), 2), -1, dtype=np.int64)
                for i, lab in enumerate(cells):  # distinct labels, not rows
                    try:
                        ranges[i] = h.parse_label(lab)
                    except HierarchyError:
                        pass
        ev = ext[b].to_numpy()
        if pd.isna(ev).any():
            ev = np.where(pd.isna(ev), None, ev)
        ekeys = np.array(value_keys(ev), dtype=object).astype(str)
        vuniq, vid = np.unique(ekeys, return_inverse=True)
        cell_idx[:, j] = cid.ravel()
        val_idx[:, j] = vid.ravel()
        covers.append(_cover_matrix(cells, ranges, h, vuniq.astype(object)))
    # distinct published combinations x distinct external combinations, block by block
    g_of, G = group_rows(cell_idx) if n_pub else (np.zeros(0, dtype=np.int64), 0)
    e_of, E = group_rows(val_idx) if n_ext else (np.zeros(0, dtype=np.int64), 0)
    g_first = np.unique(g_of, return_index=True)[1]
    e_first = np.unique(e_of, return_index=True)[1]
    g_cells = cell_idx[g_first]
    e_vals = val_idx[e_first]
    g_mult = np.bincount(g_of, minlength=G).astype(np.int64)
    e_mult = np.bincount(e_of, minlength=E).astype(np.int64)
    cand_e = np.zeros(E, dtype=np.int64)
    only_g = np.full(E, -1, dtype=np.int64)
    linked_g = np.zeros(G, dtype=np.int64)
    step = max(1, _BLOCK // max(G, 1))
    for s in range(0, E, step):  # blocks of external combinations
        ev = e_vals[s:s + step]
        m = np.ones((G, len(ev)), dtype=bool)
        for j in range(len(pairs)):
            m &= covers[j][g_cells[:, j]][:, ev[:, j]]
        cand_e[s:s + step] = g_mult @ m
        only_g[s:s + step] = np.where(m.any(axis=0), np.argmax(m, axis=0), -1)
        linked_g += m @ e_mult[s:s + step]
    candidates = cand_e[e_of] if n_ext else np.zeros(0, dtype=np.int64)
    linked_by = linked_g[g_of] if n_pub else np.zeros(0, dtype=np.int64)
    uniq_ext = np.flatnonzero(candidates == 1)
    # the published row of a unique match: the single row of the only covering combination
    row_of_g = np.full(G, -1, dtype=np.int64)
    row_of_g[g_of] = np.arange(n_pub)
    rows = row_of_g[only_g[e_of[uniq_ext]]] if len(uniq_ext) else np.zeros(0, dtype=np.int64)
    left = ext.iloc[uniq_ext].reset_index(drop=True)
    right = published.iloc[rows].reset_index(drop=True)
    right.columns = [c if c not in left.columns else f"{c} (release)" for c in right.columns]
    unique = pd.concat([left, right], axis=1)
    unique.insert(0, "external_row", uniq_ext)
    return LinkReport(on=pairs, candidates=candidates, linked_by=linked_by, unique=unique,
                      published=published, external=ext)


def link_files(release: str | Path, external: str | Path, on: Sequence[str] | str, *,
               hierarchies: Mapping[str, Any] | None = None, sep: str | None = None) -> LinkReport:
    """:func:`link` on files: a published release (CSV with or without its sidecar, or Parquet)
    and an external table (CSV or Parquet), every column read as text so that codes such as
    ZIP ``02139`` keep their zeros. ``hierarchies`` maps a column to a :class:`Hierarchy` or
    the path of an ARX hierarchy CSV. This is the logic behind the intended command
    ``ktype attack link RELEASE --external voters.csv --on zip,dob,sex [--k K]``.
    """
    from ..data.dataset import read_table
    from ..release import read_release

    pub, _meta = read_release(release, sep=sep)
    ext_path = Path(external)
    if not ext_path.exists():
        raise DataError(f"External table not found: {ext_path}")
    ext = read_table(ext_path, sep=sep, infer=False)
    hs: dict[str, Hierarchy] = {}
    for c, spec in (hierarchies or {}).items():
        hs[c] = spec if isinstance(spec, Hierarchy) else Hierarchy.from_arx_csv(spec, name=c)
    return link(pub.astype(object), ext, on, hierarchies=hs)
