"""Freeform cells: numeric ranges and categorical **value sets** (Doka et al. 2015, §3).

Freeform generalization publishes, for every record, its own box: a range ``[l, u]`` on a
numeric attribute and an arbitrary **set of values** on a categorical one (``{Married,
Divorced}``); no hierarchy is involved (Doka et al. §3, Eqs. 1-2: a categorical cell is a set
of values whose cost counts them). The interval-of-leaf-ranks
representation of :class:`~ktype.release.Release` cannot hold a set such as ``{0, 5}``, so
:class:`FreeformRelease` extends it additively:

* ``cell_lo, cell_hi`` (``int32``, ``(n, r)``) hold the **exact** published range of every
  column in leaf ranks (for a set column: the hull of the set);
* ``value_sets[j]`` (``bool``, ``(n, m_j)``) holds the exact membership of each set column
  ``j`` (by leaf rank);
* the inherited ``lo, hi`` hold the **closure** of each exact cell under the column's
  hierarchy (the smallest allowed interval containing it). Every interval-based reader
  (hierarchy checks, measures that know nothing of sets) therefore sees a sound, coarser
  view, while :meth:`cells` gives the exact one to the set-aware readers (the consistency
  graph of :mod:`ktype.models._graph`, :func:`ktype.measures.gcp`, labels).

Which columns are ranges: those whose hierarchy leaves are numbers in increasing rank
order (``Hierarchy.numeric``; e.g. ``Hierarchy.ordered`` over ages) — the same columns
:func:`ktype.measures.gcp` treats as numeric (Eq. 1). Every other column is categorical and
published as a set (Eq. 2 counts its values). Attach an ordered numeric hierarchy to a
column to have it published as a range.

The private **witness** ``preimages`` (``(n, k)`` input row numbers per released row: the
edges of the k-regular generalization graph) is kept in memory for the independent
checker only and is never exported, like ``source``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from ._grouping import group_ids, lexsort_rows, pack_keys, run_starts
from .data._values import WHITESPACE
from .data.dataset import Dataset
from .data.hierarchy import SUPPRESSED_LABEL, value_keys
from .exceptions import DataError, HierarchyError, InternalError
from .release import FrozenDict, Release, _box_columns, _stamped

__all__ = ["FreeformRelease", "range_columns", "set_labels", "split_set_label", "escape_set_value", "parse_freeform_labels"]


def range_columns(dataset: Dataset) -> np.ndarray:
    """Boolean per quasi-identifier: published as a range (True) or as a value set (False).

    A column is a range column iff its hierarchy's leaves are numbers in non-decreasing
    rank order (``Hierarchy.numeric``), so that ``[min, max]`` of the values is a
    contiguous run of leaf ranks.
    """
    out = np.zeros(dataset.r, dtype=bool)
    for j, h in enumerate(dataset.hierarchies):
        if h.numeric:
            v = h.numeric_values()
            out[j] = v is not None and bool((np.diff(v) >= 0).all())
    return out


#: characters escaped with a backslash inside a value-set label (docs/guide.md, "Labels")
_SET_ESCAPES = str.maketrans({"\\": "\\\\", ",": "\\,", "{": "\\{", "}": "\\}"})


def escape_set_value(key: str) -> str:
    """A value as an element of a set label: ``\\``, ``,``, ``{`` and ``}`` get a backslash."""
    return key.translate(_SET_ESCAPES)


def split_set_label(label: str) -> list[str] | None:
    """The (unescaped, stripped) elements of a set label ``{a,b\\,c}``; ``None`` when
    ``label`` is no set label (does not start with ``{``). Raises :class:`HierarchyError`
    for a malformed one (unclosed, an unescaped brace inside, text after the ``}``, empty).

    The inverse of :func:`set_labels`; a loop over the characters of one distinct label.
    """
    lab = str(label).strip()
    if not lab.startswith("{"):
        return None
    out: list[str] = []
    cur: list[str] = []
    i, n, closed = 1, len(lab), False
    while i < n:
        ch = lab[i]
        if ch == "\\" and i + 1 < n:
            cur.append(lab[i + 1])
            i += 2
            continue
        if ch == "}":
            closed = True
            break
        if ch == "{":
            raise HierarchyError(f"Value set {lab!r}: an unescaped '{{' inside a set (write \\{{ in a value).")
        if ch == ",":
            out.append("".join(cur).strip())
            cur = []
        else:
            cur.append(ch)
        i += 1
    if not closed or i != n - 1:
        raise HierarchyError(f"Value set {lab!r} is malformed: a set is {{a,b,...}} with ',', '{{', '}}' and '\\' "
                             "inside values escaped by a backslash.")
    out.append("".join(cur).strip())
    if out == [""]:
        raise HierarchyError(f"Value set {lab!r} is empty; a published cell holds at least its record's value.")
    return out


def set_labels(leaves: list, member: np.ndarray) -> list[str]:
    """Readable labels of value sets: ``{a,b}`` (leaf order), the value itself, or ``*``.

    Inside a set, ``\\``, ``,``, ``{`` and ``}`` of a value are escaped with a backslash
    (:func:`escape_set_value`); a single value that starts with ``{`` is written as the
    one-element set ``{...}`` so that it is not read as a set. :func:`split_set_label`
    reads them back.
    """
    member = np.asarray(member, dtype=bool)
    n, m = member.shape
    if n == 0:
        return []
    keys = value_keys(leaves)
    packed = np.packbits(member, axis=1)
    ids, _ = group_ids([packed[:, b] for b in range(packed.shape[1])])
    uniq, first = np.unique(ids, return_index=True)
    labs = _distinct_set_labels(keys, member[first])
    lab_arr = np.empty(len(uniq), dtype=object)
    lab_arr[np.searchsorted(uniq, ids[first])] = labs
    return lab_arr[np.searchsorted(uniq, ids)].tolist()


def _distinct_set_labels(keys: list[str], sets: np.ndarray) -> np.ndarray:
    """The label of each row of ``sets`` (a distinct set per row, one column per leaf):
    ``*`` for every leaf (of several), the key for one leaf (unless it starts with ``{``),
    else ``{a,b,...}`` with the escaped keys in leaf order.

    Built without a loop over the sets: every set's escaped elements are joined with ``,``
    and the sets with a character that no key holds, in one string, which is then split."""
    U, m = sets.shape
    count = sets.sum(axis=1)
    rows, cols = np.nonzero(sets)  # the elements, set by set, in leaf order
    esc = [escape_set_value(k) for k in keys]  # loop over the leaves
    sep = next((c for c in _SET_SEPARATORS if not any(c in k for k in esc)), None)
    labs = np.empty(U, dtype=object)
    if sep is None:  # the keys hold every candidate separator
        for u in range(U):  # loop over the distinct sets (the one-by-one form of the join below)
            labs[u] = "{" + ",".join(esc[v] for v in np.flatnonzero(sets[u])) + "}"
    else:
        last = np.ones(len(rows), dtype=bool)
        last[:-1] = rows[1:] != rows[:-1]
        ends = np.full(len(rows), ",", dtype=object)  # object, not numpy text: that would drop a trailing NUL
        ends[last] = sep
        tokens = np.asarray(esc, dtype=object)[cols] + ends
        bodies = np.array("".join(tokens.tolist()).split(sep)[:-1], dtype=object)
        labs[count > 0] = "{" + bodies + "}"
        labs[count == 0] = "{}"
    single = np.flatnonzero(count == 1)
    leaf = cols[(np.cumsum(count) - count)[single]]
    plain = ~np.array([k.startswith("{") for k in keys], dtype=bool)[leaf]
    labs[single[plain]] = np.asarray(keys, dtype=object)[leaf[plain]]
    if m > 1:
        labs[count == m] = SUPPRESSED_LABEL
    return labs


#: characters that separate the sets in :func:`_distinct_set_labels`' one string (the first that
#: no escaped key holds)
_SET_SEPARATORS = [chr(c) for c in range(0x00, 0x20)] + [chr(c) for c in range(0xE000, 0xE100)]


@dataclass(frozen=True)
class FreeformRelease(Release):
    """A :class:`~ktype.release.Release` whose cells are freeform (ranges and value sets).

    Build it with :meth:`from_cells`. See the module docstring for the representation.

    Attributes
    ----------
    cell_lo, cell_hi : ndarray of int32, shape (n, r)
        Exact published range per column (leaf ranks; the hull for set columns).
    value_sets : dict of int to ndarray of bool, shape (n, m_j)
        Exact membership of each set column (keyed by quasi-identifier index).
    preimages : ndarray of int64, shape (n, k), or None
        Private witness: input rows whose values each released box was built to cover
        (the generalization graph). Never exported.
    """

    cell_lo: np.ndarray | None = None
    cell_hi: np.ndarray | None = None
    value_sets: dict[int, np.ndarray] = field(default_factory=dict)
    preimages: np.ndarray | None = None

    @classmethod
    def from_cells(
        cls,
        dataset: Dataset,
        cell_lo: np.ndarray,
        cell_hi: np.ndarray,
        value_sets: dict[int, np.ndarray],
        *,
        source: np.ndarray,
        preimages: np.ndarray | None = None,
        provenance: dict[str, Any] | None = None,
    ) -> FreeformRelease:
        """Release of freeform cells; row ``t`` carries the non-QI values of input ``source[t]``.

        Rows are put in canonical order (sorted by published content), as for every release.
        """
        n, r = dataset.n, dataset.r
        cell_lo = np.ascontiguousarray(cell_lo, dtype=np.int32)
        cell_hi = np.ascontiguousarray(cell_hi, dtype=np.int32)
        if cell_lo.shape != (n, r) or cell_hi.shape != (n, r):
            raise DataError(f"FreeformRelease needs cells of shape ({n}, {r}); got {cell_lo.shape}.")
        sets = {int(j): np.ascontiguousarray(s, dtype=bool) for j, s in value_sets.items()}
        for j, s in sets.items():
            if s.shape != (n, dataset.hierarchies[j].size):
                raise DataError(f"value_sets[{j}] must have shape ({n}, {dataset.hierarchies[j].size}); got {s.shape}.")
        lo = np.empty_like(cell_lo)
        hi = np.empty_like(cell_hi)
        for j, h in enumerate(dataset.hierarchies):  # loop over columns
            lo[:, j], hi[:, j] = h.closure(cell_lo[:, j], cell_hi[:, j])
        rel = cls(
            dataset=dataset,
            lo=lo,
            hi=hi,
            suppressed=np.zeros(n, dtype=bool),
            source=np.asarray(source, dtype=np.int64).copy(),
            recoding="freeform",
            provenance=_stamped(provenance),
            cell_lo=cell_lo,
            cell_hi=cell_hi,
            value_sets=sets,
            # no copy: _canonicalize below replaces it by a reordered copy
            preimages=None if preimages is None else np.asarray(preimages, dtype=np.int64),
        )
        rel._canonicalize()
        return rel._seal()

    def _array_fields(self) -> list[np.ndarray | None]:
        return [*super()._array_fields(), self.cell_lo, self.cell_hi, self.preimages, *self.value_sets.values()]

    def _seal(self) -> FreeformRelease:
        if not isinstance(self.value_sets, FrozenDict):
            self._set(value_sets=FrozenDict(self.value_sets))
        super()._seal()
        return self

    def _content_columns(self) -> list[np.ndarray]:
        """Columns whose lexicographic order is the order of the rows' exact published QI
        content (ranges, then value sets packed into bytes)."""
        cols: list[np.ndarray] = []
        for j in range(self.r):
            cols.append(self.cell_lo[:, j])
            cols.append(self.cell_hi[:, j])
        for j in sorted(self.value_sets):
            packed = np.packbits(self.value_sets[j], axis=1)
            cols.extend(packed[:, b] for b in range(packed.shape[1]))
        return cols

    def _canonicalize(self, classes: np.ndarray | None = None) -> None:
        if self.cell_lo is None:  # pragma: no cover - only from_cells builds these
            return super()._canonicalize(classes)
        # the parent's order: by closure box, then by exact content, then by the non-QI values
        # (rows of equal exact content form a class). One stable sort of all those columns gives
        # it directly (a rank of the exact content orders like the content itself); the parent
        # then only confirms the order, given the dense rank of (box, content) in it
        n = self.n
        box = _box_columns(self.suppressed, self.lo, self.hi) + self._content_columns()
        cols = box + self._tie_columns()
        order = lexsort_rows(cols) if n else np.zeros(0, dtype=np.int64)
        content = np.cumsum(run_starts(pack_keys(box), order)) - 1 if n else np.zeros(0, dtype=np.int64)
        want = None if self.source is None else self.source[order]
        self._set(lo=self.lo.take(order, axis=0), hi=self.hi.take(order, axis=0), suppressed=self.suppressed[order],
                  source=want, published_sensitive=None if self.published_sensitive is None
                  else {c: np.asarray(v)[order] for c, v in self.published_sensitive.items()})
        super()._canonicalize(None, content=content)
        if want is not None and not np.array_equal(self.source, want):  # pragma: no cover - a bug, not data
            raise InternalError("FreeformRelease: the canonical order disagrees with Release._canonicalize")
        from ._take_rows import take_rows  # compiled, parallel (numba is imported only here)

        self._set(cell_lo=take_rows(self.cell_lo, order), cell_hi=take_rows(self.cell_hi, order),
                  value_sets={j: take_rows(s, order) for j, s in self.value_sets.items()},
                  preimages=None if self.preimages is None else take_rows(self.preimages, order))

    def cells(self) -> tuple[np.ndarray, np.ndarray, dict[int, np.ndarray]]:
        """The exact published cells ``(lo, hi, value_sets)``."""
        return self.cell_lo, self.cell_hi, self.value_sets

    def to_pandas(self, *, include_suppressed: bool = False) -> pd.DataFrame:
        """The published table: ranges like ``[30-39]``, sets like ``{Married,Divorced}``."""
        ds = self.dataset
        cols: dict[str, Any] = {}
        for j, (c, h) in enumerate(zip(ds.quasi_identifiers, ds.hierarchies)):
            if j in self.value_sets:
                cols[c] = set_labels(h.leaves, self.value_sets[j])
            else:
                cols[c] = _range_labels(h, self.cell_lo[:, j], self.cell_hi[:, j])
        for c in ds.sensitive + ds.insensitive:
            cols[c] = ds.data[c].to_numpy()[self.source]
        order = [c for c in ds.data.columns if c in cols]
        return pd.DataFrame({c: cols[c] for c in order})

    def __repr__(self) -> str:
        alg = self.provenance.get("algorithm", "?")
        return f"FreeformRelease({alg}, {self.n} rows, freeform)"


def _range_labels(h, lo: np.ndarray, hi: np.ndarray) -> list[str]:
    """``[a-b]`` / the value / ``*`` for exact ranges (never a hierarchy node's name)."""
    pairs = lo.astype(np.int64) * h.size + hi
    uniq, inv = np.unique(pairs, return_inverse=True)
    labs = np.asarray([h._range_label(int(p // h.size), int(p % h.size)) for p in uniq], dtype=object)
    return labs[inv.ravel()].tolist()


def _as_list(labels: Any, idx: np.ndarray) -> list[str]:
    """``labels[idx]`` as Python strings, from a list or a pyarrow array."""
    if isinstance(labels, list):
        return [labels[int(u)] for u in idx]
    return labels.take(idx).to_pylist()


def parse_freeform_labels(h: Any, is_range: bool, labels: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray | None,
                                                                      list[tuple[int, str]]]:
    """Read distinct published labels of one freeform column back (inverse of
    :meth:`FreeformRelease.to_pandas`).

    Returns ``(lo, hi, member, bad)``: the exact leaf-rank hull per label, for a set column
    (``is_range`` False) the ``(len(labels), h.size)`` membership matrix, and the labels
    that could not be read as ``(index, reason)``. Range columns read ``*``, a value, or an
    exact range ``[x-y]`` / ``[x..y]`` (any run of leaves, no hierarchy node needed); set
    columns read ``*``, a value, or ``{a,b,...}`` (escaped as in :func:`set_labels`), and a
    hierarchy label as the set of its leaves.

    ``labels`` is a list of strings or a pyarrow string array
    (:func:`ktype.data._values.text_array`, which spares a Python string per label). Set
    labels without a backslash (nearly all) are split all at once (pyarrow) and each
    distinct element is looked up once; the others, and the non-set labels (few: values,
    ``*``, ranges), one by one.
    """
    U = len(labels)
    lo = np.zeros(U, dtype=np.int64)
    hi = np.full(U, h.size - 1, dtype=np.int64)
    member = None if is_range else np.zeros((U, h.size), dtype=bool)
    bad: list[tuple[int, str]] = []
    slow = np.ones(U, dtype=bool)
    if member is not None and U:
        import pyarrow as pa
        import pyarrow.compute as pc

        arr = labels if isinstance(labels, pa.Array) else pa.array([str(x) for x in labels], type=pa.large_string())
        ser = pc.utf8_trim(arr, characters=WHITESPACE)
        body = pc.utf8_slice_codeunits(ser, 1, -1)
        fast = pc.and_(pc.and_(pc.starts_with(ser, "{"), pc.ends_with(ser, "}")),
                       pc.and_(pc.greater(pc.utf8_length(ser), 2), pc.invert(pc.match_substring_regex(body, r"[\\{}]"))))
        fast = fast.to_numpy(zero_copy_only=False)
        if fast.any():
            idx = np.flatnonzero(fast)
            # split every plain set label at once (pyarrow), then look up each distinct element once
            lists = pc.split_pattern(body.filter(pa.array(fast)), ",")
            owner = idx[pc.list_parent_indices(lists).to_numpy()]
            stripped = pc.utf8_trim(pc.list_flatten(lists), characters=WHITESPACE)  # str.strip()
            enc = pc.dictionary_encode(stripped)
            distinct = enc.dictionary.to_pylist()
            keys = np.empty(len(distinct), dtype=object)
            keys[:] = [h._key(e) for e in distinct] if h.numeric else distinct  # loop over distinct elements
            ranks = h._index.get_indexer(pd.Index(keys))[enc.indices.to_numpy()]
            ok_lab = np.ones(U, dtype=bool)
            ok_lab[owner[ranks < 0]] = False
            good = ok_lab[owner]
            member[owner[good], ranks[good]] = True
            done = idx[ok_lab[idx]]
            any_m = member[done]
            lo[done] = np.argmax(any_m, axis=1)
            hi[done] = h.size - 1 - np.argmax(any_m[:, ::-1], axis=1)
            slow[done] = False  # labels with an unknown element take the slow path for their message
    slow_u = np.flatnonzero(slow)
    for u, lab in zip(slow_u, _as_list(labels, slow_u)):  # loop over the few distinct labels not read above
        try:
            elems = None if is_range else split_set_label(lab)
            if elems is None:
                a, b = h.parse_label(lab, any_range=True)
                lo[u], hi[u] = a, b
                if member is not None:
                    member[u, a:b + 1] = True
                continue
            ranks = h._index.get_indexer([h._key(e) for e in elems])
            if (ranks < 0).any():
                missing = [e for e, r in zip(elems, ranks) if r < 0]
                raise HierarchyError(f"holds {missing[:5]}, not value(s) of {h.name!r}")
            assert member is not None
            member[u, ranks] = True
            lo[u], hi[u] = int(ranks.min()), int(ranks.max())
        except HierarchyError as e:
            bad.append((int(u), f"cannot be read: {e}"))
    return lo, hi, member, bad
