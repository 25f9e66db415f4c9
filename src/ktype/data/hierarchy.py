"""Generalization hierarchies over one attribute's domain.

A :class:`Hierarchy` is a rooted tree whose leaves are the attribute's domain values,
ordered depth-first so that every node covers a *contiguous* interval of leaf ranks
(docs/design/representation.md). Generalized cells are then pairs ``lo <= hi`` of leaf
ranks; a node, a numeric range ``[30-39]``, a ZIP prefix ``941**`` and suppression ``*``
(the whole domain) are all such intervals.

Two kinds exist:

``"tree"``
    Only the tree's nodes are allowed generalizations (categorical taxonomies, numeric
    interval hierarchies, masking). The closure of a set of values is their lowest common
    ancestor.
``"ordered"``
    "No hierarchy" for ordered attributes: any interval of the sorted domain is allowed,
    and the closure of a set of values is ``[min, max]`` (Mondrian-style ranges).

A proper (laminar) family of subsets in the sense of Gionis & Tassa (Def. 3.2) and of
Tassa, Mazza & Gionis (Def. 2) is exactly a ``"tree"`` hierarchy; unbalanced trees are
allowed, but full-domain (level-based) recoding needs every leaf at the same depth.

Length: the tree (one class), its read-only kernel bundle (:class:`HierarchyArrays`) and the label
grammar (generalized cells to text and back) that every reader and writer of releases relies on; how
trees are built lives in ``_shapes.py``.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from ..exceptions import HierarchyError
from . import _shapes
from ._values import MISSING_LABEL, SUPPRESSED_LABEL, _plain, value_keys
from .types import LineNumbers, where

__all__ = ["Hierarchy", "HierarchyArrays", "value_keys", "SUPPRESSED_LABEL", "MISSING_LABEL"]


@dataclass(frozen=True)
class HierarchyArrays:
    """The node structure of a tree hierarchy as read-only arrays for compiled kernels
    (:meth:`Hierarchy.arrays`; computed once per hierarchy object).

    Attributes
    ----------
    anc : ndarray of int32, shape (size, height + 1)
        ``anc[rank, t]``: the ``t``-th ancestor of leaf ``rank`` (``t = 0`` the leaf node),
        padded with the root (0) beyond a short branch.
    node_lo, node_hi, node_parent, node_depth : ndarray of int32
        As the hierarchy's attributes of the same names.
    leaf_node : ndarray of int32
        The node of each leaf rank.
    child_ptr, child : ndarray of int64
        Children in CSR form: the children of node ``N`` are ``child[child_ptr[N]:child_ptr[N + 1]]``,
        in increasing leaf-rank order.
    node_height : ndarray of int64
        Height of each node's subtree (longest path down to a leaf; 0 for a leaf).
    """

    anc: np.ndarray
    node_lo: np.ndarray
    node_hi: np.ndarray
    node_parent: np.ndarray
    node_depth: np.ndarray
    leaf_node: np.ndarray
    child_ptr: np.ndarray
    child: np.ndarray
    node_height: np.ndarray


def _frozen(a: np.ndarray) -> np.ndarray:
    out = np.array(a, copy=True)
    out.setflags(write=False)
    return out


class Hierarchy:
    """A generalization hierarchy over one attribute's domain.

    Build one with a classmethod: :meth:`from_arx_csv`, :meth:`from_table`,
    :meth:`intervals`, :meth:`masking`, :meth:`from_subsets`, :meth:`flat` or
    :meth:`ordered`.

    Attributes
    ----------
    name : str
        The attribute the hierarchy belongs to (used in error messages).
    kind : {"tree", "ordered"}
        Whether only tree nodes or any interval of leaf ranks may be released.
    leaves : list
        Domain values in leaf-rank order (strings for label-based hierarchies, numbers
        for numeric ones).
    size : int
        Number of leaves ``m`` (the domain size ``|A_j|``).
    node_lo, node_hi : ndarray of int32
        Leaf-rank interval covered by each node (tree kind; node 0 is the root).
    node_parent, node_depth : ndarray of int32
        Parent (``-1`` for the root) and depth (root = 0) of each node.
    node_label : list of str
        Label of each node.
    """

    kind: str
    name: str

    # ------------------------------------------------------------------ construction
    def __init__(
        self,
        name: str,
        kind: str,
        leaves: Sequence,
        *,
        node_lo: np.ndarray | None = None,
        node_hi: np.ndarray | None = None,
        node_parent: np.ndarray | None = None,
        node_depth: np.ndarray | None = None,
        node_label: Sequence[str] | None = None,
        numeric: bool = False,
        value_type: str | None = None,
    ) -> None:
        self.name = str(name)
        self.kind = kind
        self.leaves = list(leaves)
        self.size = len(self.leaves)
        self.numeric = bool(numeric)
        self.value_type = value_type or ("number" if numeric else "text")
        if self.value_type not in ("number", "text", "date"):
            raise HierarchyError(f"Hierarchy for {self.name!r}: value_type must be number, text or date; got {value_type!r}.")
        if self.size == 0:
            raise HierarchyError(f"Hierarchy for {self.name!r} has an empty domain.")
        keys = self.leaves if numeric else value_keys(self.leaves)
        index = pd.Index(keys)
        if index.has_duplicates:
            dup = index[index.duplicated()][0]
            raise HierarchyError(f"Hierarchy for {self.name!r} lists value {dup!r} twice.")
        self._index = index
        if kind == "ordered":
            return
        if kind != "tree":
            raise HierarchyError(f"Unknown hierarchy kind {kind!r}; use 'tree' or 'ordered'.")
        self.node_lo = np.asarray(node_lo, dtype=np.int32)
        self.node_hi = np.asarray(node_hi, dtype=np.int32)
        self.node_parent = np.asarray(node_parent, dtype=np.int32)
        self.node_depth = np.asarray(node_depth, dtype=np.int32)
        self.node_label = list(node_label)  # type: ignore[arg-type]
        self._finish_tree()

    def _finish_tree(self) -> None:
        m = self.size
        nn = len(self.node_lo)
        if self.node_lo[0] != 0 or self.node_hi[0] != m - 1 or self.node_parent[0] != -1:
            raise HierarchyError(f"Hierarchy for {self.name!r}: node 0 must be the root covering the domain.")
        is_leaf = self.node_lo == self.node_hi
        # the deepest node of each leaf rank: the leaf node itself
        depth_order = np.lexsort((-self.node_depth, self.node_lo))
        leaf_node = np.full(m, -1, dtype=np.int32)
        for node in depth_order[::-1]:  # shallower first, deeper overwrites (domain-sized loop)
            if is_leaf[node]:
                leaf_node[self.node_lo[node]] = node
        if (leaf_node < 0).any():
            raise HierarchyError(f"Hierarchy for {self.name!r}: some values have no leaf node.")
        self.leaf_node = leaf_node
        self.height = int(self.node_depth.max())
        self.leaf_depth = self.node_depth[leaf_node]
        self.uniform = bool((self.leaf_depth == self.height).all())
        # ancestor table: anc[rank, t] = t-th ancestor of the leaf (t = 0 is the leaf), padded with the root
        anc = np.zeros((m, self.height + 1), dtype=np.int32)
        cur = leaf_node.copy()
        for t in range(self.height + 1):
            anc[:, t] = cur
            cur = np.where(cur > 0, self.node_parent[cur], 0).astype(np.int32)
        self._anc = anc
        # interval -> node lookup (the deepest node with that exact interval)
        key = self.node_lo.astype(np.int64) * m + self.node_hi
        order = np.lexsort((-self.node_depth, key))
        skey = key[order]
        first = np.ones(len(skey), dtype=bool)
        first[1:] = skey[1:] != skey[:-1]
        self._ikey = skey[first]
        self._inode = order[first].astype(np.int32)
        # sanity: children nest inside parents
        par = self.node_parent[1:]
        if ((self.node_lo[1:] < self.node_lo[par]) | (self.node_hi[1:] > self.node_hi[par])).any():
            raise HierarchyError(f"Hierarchy for {self.name!r}: a node is not inside its parent.")
        if nn and (self.node_depth[1:] != self.node_depth[par] + 1).any():
            raise HierarchyError(f"Hierarchy for {self.name!r}: inconsistent node depths.")

    @classmethod
    def _from_paths(
        cls, name: str, values: Sequence, paths: Sequence[Sequence[str]], *, numeric: bool = False, value_type: str | None = None
    ) -> Hierarchy:
        """Build from ancestor label paths: ``paths[i]`` lists value i's ancestors bottom-up
        (level 1 first, the root last). Paths may have different lengths (unbalanced trees).
        Children are ordered by first appearance, which keeps ordered domains in order.
        """
        if len(values) != len(paths):
            raise HierarchyError(f"Hierarchy for {name!r}: {len(values)} values but {len(paths)} paths.")
        if len(values) == 0:
            raise HierarchyError(f"Hierarchy for {name!r} has an empty domain.")
        roots = {p[-1] if len(p) else None for p in paths}
        if len(roots) != 1 or None in roots:
            shown = sorted(str(r) for r in roots)[:5]
            raise HierarchyError(
                f"Hierarchy for {name!r} must have a single root (top value); found {len(roots)}: {shown}."
            )
        first_seen: dict[tuple, int] = {}
        chains = []
        for i, p in enumerate(paths):
            chain = tuple(str(x) for x in reversed(p))  # root first
            chains.append(chain)
            for d in range(1, len(chain) + 1):
                first_seen.setdefault(chain[:d], i)
        # a label reused under two different parents at the same depth is fine (node identity
        # is the path); but one value with two different parents would have shown up as a
        # duplicate value already.
        sort_keys = []
        for i, chain in enumerate(chains):
            sort_keys.append(tuple(first_seen[chain[:d]] for d in range(1, len(chain) + 1)) + (i,))
        order = sorted(range(len(values)), key=lambda i: sort_keys[i])
        node_id: dict[tuple, int] = {}
        lo: list[int] = []
        hi: list[int] = []
        parent: list[int] = []
        depth: list[int] = []
        label: list[str] = []

        def add(key: tuple, lab: str, par: int, rank: int, dep: int) -> int:
            nid = len(lo)
            node_id[key] = nid
            lo.append(rank)
            hi.append(rank)
            parent.append(par)
            depth.append(dep)
            label.append(lab)
            return nid

        leaves = []
        for rank, i in enumerate(order):
            chain = chains[i]
            par = -1
            for d in range(1, len(chain) + 1):
                key = chain[:d]
                nid = node_id.get(key)
                if nid is None:
                    nid = add(key, chain[d - 1], par, rank, d - 1)
                else:
                    if hi[nid] != rank - 1 and hi[nid] != rank:
                        raise HierarchyError(
                            f"Hierarchy for {name!r}: group {chain[d - 1]!r} is not contiguous "
                            "after depth-first ordering (internal error)."
                        )
                    hi[nid] = rank
                par = nid
            leaf_key = chain + ("\x00leaf", str(values[i]))
            add(leaf_key, str(values[i]), par, rank, len(chain))
            leaves.append(values[i])
        return cls(
            name,
            "tree",
            leaves,
            node_lo=np.array(lo),
            node_hi=np.array(hi),
            node_parent=np.array(parent),
            node_depth=np.array(depth),
            node_label=label,
            numeric=numeric,
            value_type=value_type,
        )

    @classmethod
    def _from_shape(cls, shape: _shapes.Shape) -> Hierarchy:
        """The hierarchy a shape builder computed: a tree from its root paths, or an ordered domain."""
        if shape.paths is None:
            return cls(shape.name, "ordered", shape.values, numeric=shape.numeric, value_type=shape.value_type)
        return cls._from_paths(shape.name, shape.values, shape.paths, numeric=shape.numeric, value_type=shape.value_type)

    # ------------------------------------------------------------------ builders (shapes computed in _shapes.py)
    @classmethod
    def from_table(cls, table: pd.DataFrame | Sequence[Sequence], name: str = "attribute") -> Hierarchy:
        """Build from an ARX-style table: one row per value, one column per level. See :func:`ktype.data.builders.from_table`."""
        return cls._from_shape(_shapes.from_table(table=table, name=name))

    @classmethod
    def from_arx_csv(cls, path: str | Path, name: str | None = None, sep: str = ";") -> Hierarchy:
        """Read an ARX hierarchy CSV (``value;level1;...;top``, no header). See :func:`ktype.data.builders.from_arx_csv`."""
        return cls._from_shape(_shapes.from_arx_csv(path=path, name=name, sep=sep))

    @classmethod
    def flat(cls, values: Iterable, name: str = "attribute") -> Hierarchy:
        """Two-level hierarchy: each value or ``*`` (suppression only). See :func:`ktype.data.builders.flat`."""
        return cls._from_shape(_shapes.flat(values=values, name=name))

    @classmethod
    def ordered(cls, values: Iterable, name: str = "attribute") -> Hierarchy:
        """'No hierarchy' for an ordered attribute: any interval of the sorted domain. See :func:`ktype.data.builders.ordered`."""
        return cls._from_shape(_shapes.ordered(values=values, name=name))

    @classmethod
    def intervals(
        cls,
        values: Iterable[float],
        levels: Sequence[float | Sequence[float]],
        name: str = "attribute",
        *,
        bottom: float | None = None,
        top: float | None = None,
    ) -> Hierarchy:
        """Numeric interval hierarchy with several levels. See :func:`ktype.data.builders.intervals`."""
        return cls._from_shape(_shapes.intervals(values=values, levels=levels, name=name, bottom=bottom, top=top))

    @classmethod
    def masking(
        cls,
        values: Iterable,
        name: str = "attribute",
        *,
        levels: Sequence[int] | None = None,
        char: str = "*",
    ) -> Hierarchy:
        """Masking hierarchy for codes of equal length, e.g. ZIP ``94142 → 9414* → 941** → *``. See :func:`ktype.data.builders.masking`."""
        return cls._from_shape(_shapes.masking(values=values, name=name, levels=levels, char=char))

    @classmethod
    def dates(cls, values: Iterable, levels: Sequence[str] = _shapes.DEFAULT_DATE_LEVELS, name: str = "attribute") -> Hierarchy:
        """Date hierarchy, e.g. day -> month -> quarter -> year -> decade -> ``*``. See :func:`ktype.data.builders.dates`."""
        return cls._from_shape(_shapes.dates(values=values, levels=levels, name=name))

    @classmethod
    def from_subsets(
        cls,
        domain: Sequence,
        subsets: Iterable[Iterable],
        name: str = "attribute",
        *,
        root_label: str = SUPPRESSED_LABEL,
        labels: Sequence[str] | None = None,
    ) -> Hierarchy:
        """Build from an explicit laminar family of subsets (a *proper* family). See :func:`ktype.data.builders.from_subsets`."""
        return cls._from_shape(_shapes.from_subsets(domain=domain, subsets=subsets, name=name, root_label=root_label, labels=labels))

    # ------------------------------------------------------------------ export
    def to_table(self) -> pd.DataFrame:
        """ARX table form (one row per value, one column per level). Needs uniform depth."""
        self.require_levels()
        cols = {}
        for lev in range(self.height + 1):
            nodes = self.level_nodes(lev)
            cols[lev] = [self.node_label[n] for n in nodes]
        return pd.DataFrame(cols)

    def to_arx_csv(self, path: str | Path, sep: str = ";") -> None:
        """Write the hierarchy in ARX CSV format (atomically)."""
        from ..io._csvtext import csv_text
        from ..io._files import atomic_write_text

        atomic_write_text(Path(path), csv_text(self.to_table(), sep=sep, csv_escape=False, header=False))

    # ------------------------------------------------------------------ encoding
    def encode(
        self, values: pd.Series | Sequence, *, row_offset: int = 0, first_line: LineNumbers = None
    ) -> np.ndarray:
        """Leaf ranks of ``values``; raises :class:`HierarchyError` naming a missing value.

        Messages give ``row N`` (0-based position + ``row_offset``), or ``line N`` of the
        input file when ``first_line`` (the file line of the first record) is known.
        """
        ser = pd.Series(values).reset_index(drop=True)

        def at(i: int) -> str:
            return f"row {i + row_offset}" if first_line is None else where(i, first_line)

        codes, uniq = pd.factorize(ser, use_na_sentinel=True)
        if (codes < 0).any():
            bad = int(np.flatnonzero(codes < 0)[0])
            raise HierarchyError(f"Column {self.name!r} has a missing value ({at(bad)}); drop or impute it.")
        if self.numeric:
            ukeys = pd.to_numeric(pd.Series(uniq), errors="coerce").to_numpy(dtype=float)
            if np.isnan(ukeys).any():
                bad_u = int(np.flatnonzero(np.isnan(ukeys))[0])
                bad = int(np.flatnonzero(codes == bad_u)[0])
                raise HierarchyError(
                    f"Hierarchy for {self.name!r} is numeric but value {_plain(ser.iloc[bad])!r} ({at(bad)}) is not a number."
                )
        else:
            ukeys = value_keys(uniq)
        uranks = self._index.get_indexer(ukeys)
        ranks = uranks[codes]
        if (ranks < 0).any():
            bad = int(np.flatnonzero(ranks < 0)[0])
            raise HierarchyError(
                f"Hierarchy for {self.name!r} has no entry for value {_plain(ser.iloc[bad])!r} ({at(bad)}); "
                "add it to the hierarchy or fix the data."
            )
        return ranks.astype(np.int32)

    def rank_of(self, value) -> int:
        """Leaf rank of one value."""
        return int(self.encode([value])[0])

    # ------------------------------------------------------------------ structure
    @property
    def is_tree(self) -> bool:
        return self.kind == "tree"

    def require_levels(self) -> None:
        """Raise unless the hierarchy supports full-domain (level-based) recoding."""
        if not self.is_tree:
            raise HierarchyError(
                f"Attribute {self.name!r} has no hierarchy (any interval allowed); full-domain recoding "
                "needs a hierarchy with levels (e.g. Hierarchy.intervals)."
            )
        if not self.uniform:
            depths = sorted(set(self.leaf_depth.tolist()))
            raise HierarchyError(
                f"Hierarchy for {self.name!r} is ragged (leaves at depths {depths}); full-domain recoding needs "
                "every value at the same depth. Pad short branches by repeating a label."
            )

    def arrays(self) -> HierarchyArrays:
        """The node structure as read-only arrays (:class:`HierarchyArrays`: ancestor table,
        node intervals, parents, depths, children, subtree heights) for compiled kernels.

        Computed on the first call and kept: every later call returns the same object, so
        algorithms, measures and risk reports share one copy instead of each rebuilding it
        or reading private attributes. Tree hierarchies only.
        """
        cached = self.__dict__.get("_arrays")
        if cached is not None:
            return cached
        if not self.is_tree:
            raise HierarchyError(f"Attribute {self.name!r} has no tree hierarchy (any interval allowed); it has no node arrays.")
        lo = self.node_lo.astype(np.int64)
        par = self.node_parent.astype(np.int64)
        nn = len(lo)
        kids = np.arange(1, nn)
        kids = kids[np.lexsort((lo[kids], par[kids]))]
        ptr = np.concatenate([[0], np.cumsum(np.bincount(par[kids], minlength=nn))]).astype(np.int64)
        # subtree height: the deepest leaf under N minus depth(N) (leaves of N are a leaf-rank interval)
        leaf_depth = self.node_depth[self.leaf_node].astype(np.int64)
        deepest = np.array([leaf_depth[a : b + 1].max() for a, b in zip(lo, self.node_hi)], dtype=np.int64)  # per node
        out = HierarchyArrays(
            anc=_frozen(self._anc),
            node_lo=_frozen(self.node_lo),
            node_hi=_frozen(self.node_hi),
            node_parent=_frozen(self.node_parent),
            node_depth=_frozen(self.node_depth),
            leaf_node=_frozen(self.leaf_node),
            child_ptr=_frozen(ptr),
            child=_frozen(kids.astype(np.int64)),
            node_height=_frozen(deepest - self.node_depth),
        )
        self.__dict__["_arrays"] = out
        return out

    @property
    def n_levels(self) -> int:
        """Number of full-domain levels (height + 1); requires uniform depth."""
        self.require_levels()
        return self.height + 1

    def level_nodes(self, level: int) -> np.ndarray:
        """Node id of each leaf's ancestor at ``level`` (0 = leaves, height = root)."""
        self.require_levels()
        if not 0 <= level <= self.height:
            raise HierarchyError(f"Hierarchy for {self.name!r} has levels 0..{self.height}; got {level}.")
        return self._anc[:, level]

    def level_intervals(self, level: int) -> tuple[np.ndarray, np.ndarray]:
        """Per leaf rank, the ``(lo, hi)`` interval of its ancestor at ``level``."""
        nodes = self.level_nodes(level)
        return self.node_lo[nodes], self.node_hi[nodes]

    def closure(self, lo: np.ndarray, hi: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Smallest allowed interval containing each ``[lo, hi]`` (vectorized).

        For a tree it is the lowest common ancestor of the leaves ``lo`` and ``hi``; for an
        ordered attribute the interval itself. ``R + R̄`` of the k-concealment paper is the
        closure of the union of the two intervals.
        """
        lo = np.asarray(lo, dtype=np.int32)
        hi = np.asarray(hi, dtype=np.int32)
        if not self.is_tree:
            return lo.copy(), hi.copy()
        cand = self._anc[lo]  # (..., height+1) ancestors of the leaf lo, deepest first
        ok = self.node_hi[cand] >= hi[..., None]
        first = np.argmax(ok, axis=-1)
        node = np.take_along_axis(cand, first[..., None], axis=-1)[..., 0]
        return self.node_lo[node], self.node_hi[node]

    def node_of(self, lo: np.ndarray, hi: np.ndarray) -> np.ndarray:
        """Node id with exactly the interval ``[lo, hi]`` (deepest such), or -1 if none."""
        lo = np.asarray(lo, dtype=np.int64)
        hi = np.asarray(hi, dtype=np.int64)
        if not self.is_tree:
            raise HierarchyError(f"Attribute {self.name!r} has no hierarchy nodes.")
        key = lo * self.size + hi
        pos = np.searchsorted(self._ikey, key)
        pos = np.minimum(pos, len(self._ikey) - 1)
        found = self._ikey[pos] == key
        return np.where(found, self._inode[pos], -1).astype(np.int32)

    def is_allowed(self, lo: np.ndarray, hi: np.ndarray) -> np.ndarray:
        """Whether each interval is an allowed generalized value."""
        lo = np.asarray(lo)
        hi = np.asarray(hi)
        ok = (lo >= 0) & (hi < self.size) & (lo <= hi)
        if self.is_tree:
            ok &= self.node_of(np.clip(lo, 0, self.size - 1), np.clip(hi, 0, self.size - 1)) >= 0
        return ok

    def interval_depth(self, lo: np.ndarray, hi: np.ndarray) -> np.ndarray:
        """Depth of the (deepest) node with each interval; tree kind only."""
        return self.node_depth[self.node_of(lo, hi)]

    # ------------------------------------------------------------------ labels
    def label_interval(self, lo: int, hi: int, *, level: int | None = None) -> str:
        """Readable label of one generalized value."""
        return self.labels(np.array([lo]), np.array([hi]), level=level)[0]

    def labels(self, lo: np.ndarray, hi: np.ndarray, *, level: int | None = None) -> list[str]:
        """Readable labels (``[30-39]``, ``941**``, ``*``, hierarchy labels) for intervals.

        With ``level`` (full-domain releases) the level's own labels are used, so a value
        whose group has a single member still shows the group's label.
        """
        lo = np.asarray(lo, dtype=np.int64)
        hi = np.asarray(hi, dtype=np.int64)
        if self.is_tree:
            if level is not None:
                nodes = self.level_nodes(level)[lo]
            else:
                nodes = self.node_of(lo, hi)
            out_nodes = np.asarray(nodes)
            lab = np.asarray(self.node_label, dtype=object)
            res = lab[np.maximum(out_nodes, 0)]
            bad = out_nodes < 0
            if bad.any():
                res = res.copy()
                res[bad] = [self._range_label(a, b) for a, b in zip(lo[bad], hi[bad])]
            return res.tolist()
        # ordered: unique (lo, hi) pairs labelled once
        pairs = lo * self.size + hi
        uniq, inv = np.unique(pairs, return_inverse=True)
        labs = [self._range_label(int(p // self.size), int(p % self.size)) for p in uniq]
        return [labs[i] for i in inv.ravel()]

    def _range_label(self, a: int, b: int) -> str:
        """``*``, a single value, ``[30-39]`` (non-negative numbers) or ``[lo..hi]`` (negative
        numbers, dates, text): the label grammar of docs/guide.md."""
        if a == 0 and b == self.size - 1 and self.size > 1:
            return SUPPRESSED_LABEL
        if a == b:
            return value_keys([self.leaves[a]])[0]
        x, y = value_keys([self.leaves[a], self.leaves[b]])
        if self.numeric and not x.startswith("-") and not y.startswith("-"):
            return f"[{x}-{y}]"
        return f"[{x}..{y}]"

    def parse_label(self, label: str, *, any_range: bool = False) -> tuple[int, int]:
        """The leaf-rank interval ``(lo, hi)`` a published label stands for (inverse of
        :meth:`labels`); raises :class:`HierarchyError` for a label of no value or range.

        Grammar (docs/guide.md, "Labels"): ``*``; a hierarchy node's label (tree kind); a
        domain value; ``[lo..hi]``; ``[lo-hi]`` for non-negative numbers. A value that
        itself looks like a range is read as the value. ``any_range=True`` (freeform
        releases, which publish exact ranges whatever the hierarchy) reads a bracketed range
        as the exact run of leaves between its two values, also on a tree where it is no
        node (before node labels, which freeform releases never write).
        """
        lab = str(label).strip()
        cache = self.__dict__.get("_label_cache")
        if cache is None:
            cache = self._build_label_cache()
        hit = cache.get(lab)
        if any_range and lab.startswith("[") and lab.endswith("]") and (hit is None or hit[0] != hit[1]):
            exact = self._parse_range(lab, any_range=True)
            if exact is not None:
                return exact
        if hit is not None:
            if hit == (-1, -1):
                raise HierarchyError(
                    f"Published value {lab!r} of {self.name!r} names several hierarchy nodes; labels must be unique to be parsed."
                )
            return hit
        if lab.startswith("[") and lab.endswith("]"):
            found = self._parse_range(lab, any_range=any_range)
            if found is not None:
                return found
        raise HierarchyError(f"Published value {lab!r} is not a value, range or hierarchy label of {self.name!r}.")

    def _parse_range(self, lab: str, *, any_range: bool) -> tuple[int, int] | None:
        """``[x..y]`` / ``[x-y]`` (numbers) -> leaf ranks of ``x`` and ``y``; on a tree only a
        node's interval unless ``any_range``."""
        body = lab[1:-1]
        splits = [(body[:i], body[i + 2:]) for i in range(len(body)) if body.startswith("..", i)]
        if self.numeric:
            splits += [(body[:i], body[i + 1:]) for i in range(1, len(body)) if body[i] == "-" and body[i - 1] != "-"
                       and body[i - 1] not in "eE"]
        for x, y in splits:
            a = self._index.get_indexer([self._key(x.strip())])[0]
            b = self._index.get_indexer([self._key(y.strip())])[0]
            if a >= 0 and b >= 0 and a <= b and (any_range or not self.is_tree
                                                 or self.node_of(np.array([a]), np.array([b]))[0] >= 0):
                return int(a), int(b)
        return None

    def _key(self, text: str):
        if self.numeric:
            try:
                v = float(text)
            except ValueError:
                return None
            return int(v) if v.is_integer() else v
        return text

    def _build_label_cache(self) -> dict[str, tuple[int, int]]:
        cache: dict[str, tuple[int, int]] = {SUPPRESSED_LABEL: (0, self.size - 1)}
        keys = value_keys(self.leaves)
        for r, k in enumerate(keys):
            cache[k] = (r, r)
        if self.is_tree:
            for node, lab in enumerate(self.node_label):
                iv = (int(self.node_lo[node]), int(self.node_hi[node]))
                old = cache.get(lab)
                if old is not None and old != iv and lab != SUPPRESSED_LABEL and lab not in keys:
                    cache[lab] = (-1, -1)  # ambiguous
                elif old is None:
                    cache[lab] = iv
        self.__dict__["_label_cache"] = cache
        return cache

    # ------------------------------------------------------------------ misc
    def numeric_values(self) -> np.ndarray | None:
        """Leaf values as floats when the domain is numeric (dates: days since 1970-01-01), else None."""
        if self.numeric:
            return np.asarray(self.leaves, dtype=float)
        if self.value_type == "date":
            days = pd.to_datetime(pd.Series(self.leaves), format="%Y-%m-%d", errors="coerce")
            if days.isna().any():
                return None
            return days.to_numpy().astype("datetime64[D]").astype(np.int64).astype(float)
        try:
            return np.asarray([float(v) for v in self.leaves])
        except (TypeError, ValueError):
            return None

    def copy(self) -> Hierarchy:
        import copy

        return copy.deepcopy(self)

    def fingerprint(self) -> tuple:
        """A hashable summary used to detect mutation in tests."""
        if self.is_tree:
            return (self.kind, tuple(map(str, self.leaves)), self.node_lo.tobytes(), self.node_hi.tobytes(), tuple(self.node_label))
        return (self.kind, tuple(map(str, self.leaves)))

    def __repr__(self) -> str:
        if self.is_tree:
            return f"Hierarchy({self.name!r}, {self.size} values, height {self.height}{'' if self.uniform else ', ragged'})"
        return f"Hierarchy({self.name!r}, ordered, {self.size} values)"
