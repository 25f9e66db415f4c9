"""Anatomy-style output of the transparent algorithms (Xiao & Tao, "Anatomy", VLDB 2006; Xiao,
Tao & Koudas TODS 2010 §2.1, Definition 1 and Table VI).

Instead of generalizing each group to its MBR, anatomy publishes two tables joined by a group
ID: a **QI table** (every tuple's exact QI values and its group ID) and a **sensitive table**
(group ID, sensitive value). The paper's framework applies to it unchanged (§2.1, Definition 1:
anatomy is an anonymization function — isomorphic groups, i.e. the same people with their sensitive
values permuted, give the same two tables), so Tailor's, Ace's and Hybrid's partitions keep
their guarantees (Theorems 1-3) when published this way, provided (``docs/design/transparency.md``, R5):

* group IDs are canonical from public information: groups are numbered 1, 2, ... by their
  smallest public key (the identifier order; rows without an identifier use the secret random
  order of :func:`ktype.algorithms.transparent.prepare`), never by a sensitive value;
* the QI table lists rows by (group, QI values) and the sensitive table by (group, value): no
  row order follows the input order.

The partition is the registered algorithm's (same kernels, same ``rng`` semantics), so
``anatomize(ds, "hybrid", l, rng=7)`` publishes the groups that ``run("hybrid", ..., rng=7)``
generalizes. Only ``tailor``, ``ace`` and ``hybrid`` are offered: Mask alters values and the
ℓ-diverse Mondrian is not transparent (``NotImplementedError``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from ..._validation import RNGLike, check_rng
from ...data.dataset import Dataset
from ...exceptions import DataError, InvalidParameterError
from ...io import anatomy as _files
from ...models._base import CheckResult
from . import ace_groups, prepare, tailor_groups

__all__ = ["Anatomy", "anatomize", "anatomy_paths", "check_anatomy", "write_anatomy", "read_anatomy"]

GROUP = "group"
_ALGORITHMS = ("tailor", "ace", "hybrid")


@dataclass
class Anatomy:
    """An anatomy release: ``qi`` (QI columns + ``group``) and ``sensitive`` (``group`` + the
    sensitive column), joined by the group ID; ``provenance`` says how it was made."""

    qi: pd.DataFrame
    sensitive: pd.DataFrame
    provenance: dict[str, Any] = field(default_factory=dict)

    def warnings(self) -> list[str]:
        """What a person publishing these tables must know: a caller-fixed seed makes them
        reproducible by anyone holding it (the same warning as :meth:`Release.warnings`)."""
        from ..._validation import RANDOMNESS_CALLER_GENERATOR, RANDOMNESS_CALLER_SEED, REPRODUCIBLE_WARNING

        how = self.provenance.get("randomness")
        return [REPRODUCIBLE_WARNING] if how in (RANDOMNESS_CALLER_SEED, RANDOMNESS_CALLER_GENERATOR) else []

    @property
    def sensitive_column(self) -> str:
        cols = [c for c in self.sensitive.columns if c != GROUP]
        if len(cols) != 1:
            raise DataError(f"The sensitive table must have columns '{GROUP}' and one sensitive column; got {list(self.sensitive.columns)}.")
        return cols[0]


def anatomize(dataset: Dataset, algorithm: str, l: int, *, rng: RNGLike = None) -> Anatomy:  # noqa: E741
    """Publish ``algorithm``'s partition of ``dataset`` as anatomy (QI table + sensitive table).

    Parameters
    ----------
    dataset : Dataset
        One sensitive attribute; declare the public identifier with ``identifiers=[...]`` (it is
        the tie-break key and orders the group IDs; it is not published).
    algorithm : {"tailor", "ace", "hybrid"}
    l : int
        ℓ of transparent ℓ-diversity.
    rng : int, Generator or None
        As for the registered algorithm (None: secret OS entropy, never recorded).

    Returns
    -------
    Anatomy
        Groups numbered 1.. by their smallest public key; rows sorted by (group, QIs) and
        (group, value). Verified with :func:`check_anatomy` before it is returned.
    """
    name = str(algorithm).strip().lower()
    if name not in _ALGORITHMS:
        raise NotImplementedError(
            f"Anatomy output is offered for the transparent algorithms {_ALGORITHMS} only (docs/transparent.md, \"Anatomy output\"); "
            f"{algorithm!r} is not transparent or alters values."
        )
    if isinstance(l, bool) or not isinstance(l, (int, np.integer)) or l < 1:
        raise InvalidParameterError(f"l must be a positive integer; got {l!r}.")
    if len(dataset.sensitive) != 1:
        raise InvalidParameterError(f"anatomize needs exactly one sensitive column; the dataset has {dataset.sensitive}.")
    col = dataset.sensitive[0]
    gen, seed_note = check_rng(rng)
    p = prepare(dataset, col, int(l), gen)
    if name == "tailor":
        group, g = tailor_groups(p)
    elif name == "ace":
        group, g = ace_groups(p)
    else:
        leaf, _ = tailor_groups(p)
        group, g = ace_groups(p, leaf)
    # canonical group IDs: by the group's smallest public key (never by a sensitive value)
    first = np.full(g, np.iinfo(np.int64).max, dtype=np.int64)
    np.minimum.at(first, group, p.key)
    gid = np.empty(g, dtype=np.int64)
    gid[np.argsort(first, kind="stable")] = np.arange(1, g + 1)
    row_gid = gid[group]
    qi_order = np.lexsort([dataset.X[:, j] for j in range(dataset.r - 1, -1, -1)] + [row_gid])
    qi = dataset.data[dataset.quasi_identifiers].iloc[qi_order].reset_index(drop=True)
    qi.insert(len(qi.columns), GROUP, row_gid[qi_order])
    codes = dataset.sensitive_codes[col]
    s_order = np.lexsort([codes, row_gid])
    values = np.asarray(dataset.sensitive_values[col], dtype=object)[codes[s_order]]
    sens = pd.DataFrame({GROUP: row_gid[s_order], col: values})
    prov = {"algorithm": name, "l": int(l), "groups": int(g), "output": "anatomy", "randomness": seed_note}
    out = Anatomy(qi, sens, prov)
    res = check_anatomy(out, int(l), dataset)
    if not res.satisfied:  # pragma: no cover - the partition is ℓ-diverse by construction
        from ...exceptions import VerificationError

        raise VerificationError(f"anatomy output fails its check: {res.summary}")
    return out


def check_anatomy(anatomy: Anatomy, l: float, dataset: Dataset | None = None, *,  # noqa: E741
                  quasi_identifiers: Sequence[str] | None = None) -> CheckResult:
    """Independent check of an anatomy release, whose two tables are untrusted.

    * **Columns**: the QI table holds ``group`` and exactly the declared quasi-identifiers
      (``dataset.quasi_identifiers``, else ``quasi_identifiers``); any other column (a name,
      a sensitive value copied next to its QIs) is undeclared and fails the check, and with
      nothing declared every column is undeclared. With ``dataset``, the sensitive table's
      column must be the dataset's sensitive column.
    * **Join and diversity**: the two tables join (same group IDs, same group sizes) and every
      group is frequency ℓ-diverse — the rule of :class:`~ktype.models.FrequencyLDiversity`
      (``max count · ℓ ≤ |G|``, exact).
    * **Provenance** (with ``dataset``): the QI table holds exactly the dataset's QI rows and
      the sensitive table exactly its sensitive values (as multisets), and some split of the
      original records into the groups yields both tables at once: every record is put in a
      group holding one of its QI rows, and each group's sensitive values are those of the
      records put in it. Equal overall multisets are not enough (swapping one sensitive value,
      or one QI row, between two groups keeps them). See :func:`_groups_from_original`.

    ``per_record`` is per QI-table row; ``summary`` says what failed.
    """
    from ...models.ldiversity import FrequencyLDiversity

    qi, st = anatomy.qi, anatomy.sensitive
    col = anatomy.sensitive_column
    if GROUP not in qi.columns or GROUP not in st.columns:
        raise DataError(f"Both anatomy tables need a '{GROUP}' column.")
    gq = qi[GROUP].to_numpy()
    gs = st[GROUP].to_numpy()
    ids, gq_i = np.unique(gq, return_inverse=True)
    sizes_q = np.bincount(gq_i, minlength=len(ids))
    pos = np.searchsorted(ids, gs)
    joined = (pos < len(ids)) & (ids[np.minimum(pos, len(ids) - 1)] == gs)
    vals, v_i = np.unique(st[col].astype(str).to_numpy(), return_inverse=True)
    hist = np.zeros((len(ids), len(vals)), dtype=np.int64)
    np.add.at(hist, (pos[joined], v_i[joined]), 1)
    sizes_s = hist.sum(axis=1)
    same_size = sizes_s == sizes_q
    model = FrequencyLDiversity(float(l))
    diverse = np.asarray(model.class_verdicts(sizes_q, hist, dataset), dtype=bool) if len(ids) else np.zeros(0, bool)
    ok_group = same_size & diverse
    summary: dict[str, Any] = {
        "groups": int(len(ids)),
        "unjoined_sensitive_rows": int((~joined).sum()),
        "size_mismatches": int((~same_size).sum()),
        "failing_groups": int((~diverse).sum()),
        "smallest_group": int(sizes_q.min()) if len(ids) else 0,
    }
    ok = bool(ok_group.all()) and bool(joined.all())
    # columns: only the declared quasi-identifiers beside the group ID
    qcols = [str(c) for c in qi.columns if c != GROUP]
    declared = list(dataset.quasi_identifiers) if dataset is not None else (
        None if quasi_identifiers is None else [str(c) for c in quasi_identifiers])
    reasons: list[str] = []
    if declared is None:
        undeclared = qcols
        reasons.append("no quasi-identifiers are declared (give them, or the original), so every QI-table column "
                       f"{qcols} is undeclared")
    else:
        undeclared = [c for c in qcols if c not in declared]
        missing = [c for c in declared if c not in qcols]
        if undeclared:
            reasons.append(f"the QI table publishes undeclared column(s) {undeclared}")
        if missing:
            reasons.append(f"the QI table lacks declared quasi-identifier(s) {missing}")
            summary["missing_columns"] = missing
    summary["undeclared_columns"] = undeclared
    if dataset is not None and col not in dataset.sensitive:
        reasons.append(f"the sensitive table's column {col!r} is not the dataset's sensitive column {dataset.sensitive}")
    ok = ok and not reasons
    if dataset is not None and not reasons:
        keys = list(dataset.quasi_identifiers)
        q_rows = qi[keys].astype(str)
        o_rows = dataset.data[keys].astype(str)
        same_qi = sorted(map(tuple, q_rows.to_numpy().tolist())) == sorted(map(tuple, o_rows.to_numpy().tolist()))
        same_s = sorted(st[col].astype(str).tolist()) == sorted(dataset.data[col].astype(str).tolist())
        summary.update(qi_rows_match_input=same_qi, sensitive_values_match_input=same_s)
        ok = ok and same_qi and same_s
        if same_qi and same_s and bool(joined.all()):
            bad_groups, how = _groups_from_original(o_rows, dataset.data[col].astype(str), q_rows, gq_i,
                                                    pos, v_i, vals, len(ids))
            summary["groups_match_input"] = not bad_groups.any()
            summary["groups_not_from_input"] = int(bad_groups.sum())
            summary["assignment"] = how
            ok_group &= ~bad_groups
            if bad_groups.any():
                reasons.append(f"no split of the original records yields these groups ({int(bad_groups.sum())} "
                               "group(s) hold QI rows and sensitive values that do not belong together)")
            ok = ok and not bad_groups.any()
    if reasons:
        summary["reasons"] = reasons
    per_row = ok_group[gq_i] & (not reasons)
    return CheckResult(f"anatomy {model}", ok, per_row, summary)


def _groups_from_original(o_rows: pd.DataFrame, o_vals: pd.Series, q_rows: pd.DataFrame, gq_i: np.ndarray,
                          s_group: np.ndarray, s_val: np.ndarray, vals: np.ndarray, n_groups: int
                          ) -> tuple[np.ndarray, str]:
    """Which groups no split of the original records can yield (boolean per group).

    Records with equal QI rows are interchangeable, so the question is on counts: with
    ``c[t, g]`` the QI rows of type ``t`` in group ``g``, ``o[t, v]`` the original records of
    type ``t`` and value ``v`` and ``s[g, v]`` the sensitive table's counts, is there an
    integer ``f[t, g, v] >= 0`` with ``Σ_v f = c``, ``Σ_g f = o`` and ``Σ_t f = s``? A type in
    one group only fixes its share (``f[t, g, v] = o[t, v]``): when every type is, the test is
    one comparison of count tables. Types spread over several groups (duplicate QI rows, which
    Ace's draws and Tailor's tie-breaks produce) leave a three-way table with fixed two-way
    margins, decided exactly as an integer program (HiGHS via ``scipy.optimize.milp``).
    """
    from scipy import sparse
    from scipy.optimize import LinearConstraint, milp

    t_o, types = pd.factorize(pd.MultiIndex.from_frame(o_rows))
    t_q = types.get_indexer(pd.MultiIndex.from_frame(q_rows))
    v_o = pd.Index(vals).get_indexer(o_vals.to_numpy())
    T, G, V = len(types), n_groups, len(vals)
    # the three count tables, sparse (keys t*G+g, t*V+v, g*V+v; G and T can both be large)
    c_key, c_cnt = np.unique(t_q.astype(np.int64) * G + gq_i, return_counts=True)
    c_t, c_g = c_key // G, c_key % G
    o_key, o_cnt = np.unique(t_o.astype(np.int64) * V + v_o, return_counts=True)
    o_t, o_v = o_key // V, o_key % V
    s_key, s_cnt = np.unique(s_group.astype(np.int64) * V + s_val, return_counts=True)
    pure = np.bincount(c_t, minlength=T) == 1
    home = np.zeros(T, dtype=np.int64)
    home[c_t[pure[c_t]]] = c_g[pure[c_t]]
    # a type in one group only puts all its records there: subtract them from the sensitive table
    po = pure[o_t]
    r_key, inv = np.unique(np.concatenate([s_key, home[o_t[po]] * V + o_v[po]]), return_inverse=True)
    r_val = np.bincount(inv, weights=np.concatenate([s_cnt, -o_cnt[po]]), minlength=len(r_key)).astype(np.int64)
    r_g = r_key // V

    def groups(keys: np.ndarray) -> np.ndarray:
        out = np.zeros(G, dtype=bool)
        out[keys] = True
        return out

    how = "count tables, then an integer program"
    if pure.all():
        return groups(r_g[r_val != 0]), "count tables (every QI row type in one group)"
    touched = groups(c_g[~pure[c_t]])  # groups holding QI rows of types spread over several groups
    bad = groups(r_g[r_val < 0]) | (groups(r_g[r_val != 0]) & ~touched)
    if bad.any():
        return bad, how
    # variables f[t, g, v] for the spread types: (t, g) with c > 0, (t, v) with o > 0, (g, v) with r > 0
    amb_c, amb_o = ~pure[c_t], ~pure[o_t]
    pairs = pd.DataFrame({"t": c_t[amb_c], "g": c_g[amb_c]}).merge(pd.DataFrame({"t": o_t[amb_o], "v": o_v[amb_o]}),
                                                                   on="t")
    t_, g_, v_ = (pairs[k].to_numpy(dtype=np.int64) for k in ("t", "g", "v"))
    pos = np.searchsorted(r_key, g_ * V + v_)
    hit = (pos < len(r_key)) & (r_key[np.minimum(pos, len(r_key) - 1)] == g_ * V + v_)
    keep = hit & (r_val[np.minimum(pos, len(r_key) - 1)] > 0)
    t_, g_, v_ = t_[keep], g_[keep], v_[keep]
    m = len(t_)
    # one equality per margin: (t, g) = c, (t, v) = o, (g, v) = r; a positive margin no variable enters is unmet
    margins = [(c_t[amb_c] * G + c_g[amb_c], c_cnt[amb_c], t_ * G + g_),
               (o_t[amb_o] * V + o_v[amb_o], o_cnt[amb_o], t_ * V + v_),
               (r_key[r_val > 0], r_val[r_val > 0], g_ * V + v_)]
    rows, rhs, offset = [], [], 0
    for keys, counts, var_keys in margins:  # three margins
        at = np.searchsorted(keys, var_keys)
        filled = np.zeros(len(keys), dtype=bool)
        filled[at] = True
        if not filled.all():
            return touched.copy(), how
        rows.append(offset + at)
        rhs.append(counts)
        offset += len(keys)
    b = np.concatenate(rhs).astype(np.float64)
    A = sparse.csr_array((np.ones(3 * m), (np.concatenate(rows), np.tile(np.arange(m), 3))), shape=(len(b), m))
    res = milp(np.zeros(m), constraints=LinearConstraint(A, b, b), integrality=np.ones(m), bounds=(0, np.inf),
               options={"time_limit": 120})
    if res.status == 0:
        return np.zeros(G, dtype=bool), how
    # infeasible, or undecided within the time limit: not shown to come from the original
    return touched.copy(), how + ("" if res.status == 2 else f" (undecided: {res.message})")


def anatomy_paths(prefix: str | Path) -> tuple[Path, Path]:
    """The two files of an anatomy release: ``<prefix>.qi.csv`` and ``<prefix>.sensitive.csv``."""
    return _files.paths(prefix)


def write_anatomy(anatomy: Anatomy, prefix: str | Path) -> tuple[Path, Path]:
    """Write ``<prefix>.qi.csv`` and ``<prefix>.sensitive.csv`` (the anatomy format of
    :mod:`ktype.io`: each atomically, a failed write leaves no partial file and keeps an
    existing one). Returns the two paths."""
    return _files.write(prefix, anatomy.qi, anatomy.sensitive)  # type: ignore[no-any-return]


def read_anatomy(prefix: str | Path) -> Anatomy:
    """Read the two tables written by :func:`write_anatomy` (check them with :func:`check_anatomy`)."""
    qp, sp = anatomy_paths(prefix)
    qi, st = _files.read(prefix)  # every value as the text that was written (a ZIP code 02139 stays 02139)
    out = Anatomy(qi, st, {"read_from": str(prefix)})
    _ = out.sensitive_column  # validates the sensitive table's columns
    for path, frame in ((qp, qi), (sp, st)):
        if GROUP not in frame.columns:
            raise DataError(f"{path} has no '{GROUP}' column.")
        ids = pd.to_numeric(frame[GROUP], errors="coerce")
        if ids.isna().any() or (ids != ids.round()).any():
            bad = frame[GROUP][ids.isna() | (ids != ids.round())].iloc[0]
            raise DataError(f"{path}: group IDs must be integers; found {bad!r}.")
        frame[GROUP] = ids.astype(np.int64)
    return out
