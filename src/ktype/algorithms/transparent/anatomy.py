"""Anatomy-style output of the transparent algorithms (Xiao & Tao, "Anatomy", VLDB 2006; Xiao,
Tao & Koudas TODS 2010 §2 and Table VI; spec §1.2, §4.4).

Instead of generalizing each group to its MBR, anatomy publishes two tables joined by a group
ID: a **QI table** (every tuple's exact QI values and its group ID) and a **sensitive table**
(group ID, sensitive value). The paper's framework applies to it unchanged (§1.2: anatomy is
an anonymization function — isomorphic groups, i.e. the same people with their sensitive
values permuted, give the same two tables), so Tailor's, Ace's and Hybrid's partitions keep
their guarantees (Theorems 1-3) when published this way, provided (spec §4.4):

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

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from ..._io import atomic_write_text, csv_text
from ..._validation import RNGLike, check_rng
from ...data.dataset import Dataset
from ...exceptions import DataError, InvalidParameterError
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


def check_anatomy(anatomy: Anatomy, l: float, dataset: Dataset | None = None) -> CheckResult:  # noqa: E741
    """Independent check of an anatomy release: the two tables join (same group IDs, same group
    sizes) and every group is frequency ℓ-diverse — the rule of
    :class:`~ktype.models.FrequencyLDiversity` (``max count · ℓ ≤ |G|``, exact). With
    ``dataset``, also that the QI table holds exactly the dataset's QI rows and the sensitive
    table exactly its sensitive values (as multisets). ``per_record`` is per QI-table row.
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
    if dataset is not None:
        qcols = [c for c in qi.columns if c != GROUP]
        same_qi = sorted(map(tuple, qi[qcols].astype(str).to_numpy().tolist())) == sorted(
            map(tuple, dataset.data[dataset.quasi_identifiers].astype(str).to_numpy().tolist()))
        same_s = sorted(st[col].astype(str).tolist()) == sorted(dataset.data[col].astype(str).tolist())
        summary.update(qi_rows_match_input=same_qi, sensitive_values_match_input=same_s)
        ok = ok and same_qi and same_s
    return CheckResult(f"anatomy {model}", ok, ok_group[gq_i], summary)


def anatomy_paths(prefix: str | Path) -> tuple[Path, Path]:
    """The two files of an anatomy release: ``<prefix>.qi.csv`` and ``<prefix>.sensitive.csv``."""
    prefix = Path(prefix)
    return prefix.with_name(prefix.name + ".qi.csv"), prefix.with_name(prefix.name + ".sensitive.csv")


def write_anatomy(anatomy: Anatomy, prefix: str | Path) -> tuple[Path, Path]:
    """Write ``<prefix>.qi.csv`` and ``<prefix>.sensitive.csv`` (each atomically: a failed
    write leaves no partial file and keeps an existing one). Returns the two paths."""
    paths = anatomy_paths(prefix)
    for path, frame in zip(paths, (anatomy.qi, anatomy.sensitive)):
        atomic_write_text(path, csv_text(frame, csv_escape=False))  # line breaks in cells quoted
    return paths


def read_anatomy(prefix: str | Path) -> Anatomy:
    """Read the two tables written by :func:`write_anatomy` (check them with :func:`check_anatomy`)."""
    qp, sp = anatomy_paths(prefix)
    for path in (qp, sp):
        if not path.exists():
            raise DataError(f"Anatomy table not found: {path} (expected {qp.name} and {sp.name}).")
    # every value is read as the text that was written (a ZIP code 02139 stays 02139)
    qi = pd.read_csv(qp, dtype=str, keep_default_na=False)
    st = pd.read_csv(sp, dtype=str, keep_default_na=False)
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
