"""Auditing a published release against its original: what ``ktype check`` does.

Threat model: the release file and its metadata (CSV sidecar, Parquet key-value metadata)
are **untrusted** — whoever edits the file can edit the metadata, and the sidecar's SHA-256
is unkeyed, so it can be recomputed; the original table and what the auditor states (a
:class:`~ktype.Dataset`, roles, hierarchies, models) are trusted. Every claim the metadata
makes is verified against the original, or the check fails and says why: a stale sidecar,
no metadata and no model asked for, a ``models`` list that is empty or names a model this
ktype does not know are failed checks (a ``metadata`` finding), never passes.

A published table passes a privacy model only if it is first shown to be a release *of
this original*. :func:`audit` establishes, in this order:

1. **Columns.** No identifier column is published; every published column is declared
   (quasi-identifier, sensitive or insensitive); every declared column is present; the
   roles agree with the release's metadata when it has some. Roles the auditor gives are
   authoritative; roles taken from the metadata (for the columns the auditor gives none)
   are reported in ``facts["untrusted_roles"]`` and audited: a column the metadata calls
   sensitive or insensitive is published with its exact values, and it fails whatever
   role the metadata gives it when the original's identifier hints flag it, or when it
   singles people out — a sensitive value held by one record, an insensitive value held
   by fewer than ``k`` records (:func:`_role_findings`).
2. **Labels.** Every quasi-identifier cell parses to a value of its hierarchy (a node, a
   range, or ``*``; in a freeform release an exact range that need not be a node, and a
   value set ``{a,b}``, read into a :class:`~ktype.freeform_release.FreeformRelease`).
   Rows whose cells all read ``*`` are published rows like any other (with their
   sensitive values), never "suppressed". A column's unreadable labels are one finding,
   however many (:func:`_label_findings`).
3. **Counts.** ``published rows = input records − suppressed``: the release has at most as
   many rows as the original, and when metadata is present its counts match.
4. **Generalization.** There is a one-to-one assignment of published rows to distinct
   original records such that every published QI cell covers its record's value and every
   sensitive and insensitive value is equal (a value set covers exactly its members) — a
   matching saturating the published rows in the bipartite *consistency graph*. Rows and records are compressed to types (identical
   rows are interchangeable, :mod:`ktype.models._graph`). Where the recoding is homogeneous
   (each original type is covered by at most one published type: full-domain and
   partition-based releases) Hall's condition splits per published type and reduces to a
   count per class, ``rows of the class <= original records it covers``, computed with one
   ``bincount``. Otherwise a maximum flow (Dinic, scipy) on the type graph decides it, and
   the published types it cannot saturate are named. When the release has no sensitive or
   insensitive columns and every record is published, that graph and its flow are exactly the
   ones the matching-based model checks (k-concealment, freeform) need: they are built and
   solved once and lent to the checks (:func:`ktype.models._graph.shared_graph`). When the
   claimed models include freeform k-anonymity, whose check decides a *k-factor* of that graph
   by a maximum flow anyway, that flow is solved here instead: a k-factor (``k >= 1``)
   contains a perfect matching, and it also serves the match counts, so one flow decides all.
5. **Models.** Only then are the models checked, in the scope the release's recoding
   calls for (from its metadata, or given explicitly), on a :class:`~ktype.Release` holding
   the published rows plus ``input − published`` suppressed whole-domain rows, exactly as the
   in-memory release had them.

Every finding names the file rows (0-based data rows, header excluded), original records
or classes concerned, and the reason.

Length: one procedure in five ordered steps (columns, labels, counts, generalization, models) with
the report it returns; each step's helpers are private to it, and splitting them would make the
order, which is the point of the audit, harder to read.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from contextlib import nullcontext
from dataclasses import dataclass, field
from pathlib import Path
from types import SimpleNamespace
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from ._progress import ProgressLike, reporting, stage, update
from .data._values import text_array, text_keys
from .data.dataset import Dataset
from .data.hierarchy import value_keys
from .exceptions import DataError, HierarchyError, InvalidParameterError, KtypeError, StaleMetadataError
from .models._base import PER_RELEASED_ROW, CheckResult, PrivacyModel
from .release import Release, hierarchy_fingerprint, read_release

if TYPE_CHECKING:
    from .models._graph import ConsistencyGraph

__all__ = ["Finding", "AuditReport", "audit", "parse_release", "models_from_metadata"]

#: at most this many rows / records / classes are listed per finding
MAX_LISTED = 20
#: a column's unreadable labels are one finding quoting the first this many, each cut to EXAMPLE_CHARS
MAX_EXAMPLES = 5
EXAMPLE_CHARS = 40


@dataclass
class Finding:
    """One reason a release fails its audit."""

    check: str
    reason: str
    rows: list[int] = field(default_factory=list)
    records: list[int] = field(default_factory=list)
    classes: list[dict[str, Any]] = field(default_factory=list)
    #: how many distinct published values the finding stands for (``labels``: unreadable labels of one column)
    count: int = 0
    #: the first of those values in file order, cut to :data:`EXAMPLE_CHARS` (untrusted text of the release)
    examples: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"check": self.check, "reason": self.reason}
        for key in ("rows", "records", "classes", "count", "examples"):
            if getattr(self, key):
                out[key] = getattr(self, key)
        return out

    def __str__(self) -> str:
        extra = ""
        if self.rows:
            extra += f" Rows: {self.rows}{' ...' if len(self.rows) >= MAX_LISTED else ''}."
        if self.classes:
            extra += f" Classes: {self.classes}."
        return f"[{self.check}] {self.reason}{extra}"


@dataclass
class AuditReport:
    """The outcome of :func:`audit`: structural findings, model results and the facts used."""

    findings: list[Finding]
    results: list[CheckResult]
    facts: dict[str, Any]
    release: Release | None = None
    #: the models checked, in the order of ``results`` (given, or rebuilt from the metadata's claim)
    models: list[PrivacyModel] = field(default_factory=list)

    @property
    def passed(self) -> bool:
        return not self.findings and bool(self.results) and all(r.satisfied for r in self.results)

    def to_dict(self) -> dict[str, Any]:
        models = []
        for r in self.results:
            entry: dict[str, Any] = {"model": r.model, "satisfied": bool(r.satisfied), "per": r.per, **_plain(r.summary)}
            if not r.satisfied:
                bad = np.flatnonzero(~np.asarray(r.per_record, dtype=bool))[:MAX_LISTED]
                entry["failing_" + ("rows" if r.per == PER_RELEASED_ROW else "records")] = [int(i) for i in bad]
            models.append(entry)
        return {
            "passed": self.passed,
            "facts": _plain(self.facts),
            "findings": [f.to_dict() for f in self.findings],
            "models": models,
        }


# ------------------------------------------------------------------------------ parsing
def _label_intervals(dataset: Dataset, published: pd.DataFrame, freeform: bool = False
                     ) -> tuple[np.ndarray, np.ndarray, dict[int, np.ndarray], list[Finding]]:
    """QI labels -> leaf-rank intervals, per unique label (vectorized over rows).

    For a freeform release (``freeform``) the intervals are the exact published ranges
    (any run of leaves, hierarchy node or not) and the categorical columns come back as
    value sets (``{Married,Divorced}``), returned as ``(rows, m_j)`` membership matrices
    keyed by QI index; see :func:`ktype.freeform_release.parse_freeform_labels`.
    """
    from .freeform_release import parse_freeform_labels, range_columns

    m = len(published)
    lo = np.zeros((m, dataset.r), dtype=np.int32)
    hi = np.zeros((m, dataset.r), dtype=np.int32)
    sets: dict[int, np.ndarray] = {}
    findings: list[Finding] = []
    is_range = range_columns(dataset) if freeform else None
    for j, (col, h) in enumerate(zip(dataset.quasi_identifiers, dataset.hierarchies)):
        codes, uniq = pd.factorize(published[col].astype(str), use_na_sentinel=False)
        bad: list[tuple[int, str]] = []
        if is_range is not None:
            texts = text_array(uniq)  # a freeform column: up to one distinct label per row
            ulo, uhi, member, bad = parse_freeform_labels(h, bool(is_range[j]), texts if texts is not None else text_keys(uniq))
            keys = text_keys(uniq) if bad else []  # quoted only by findings
            if member is not None:
                sets[j] = member[codes]
        else:
            keys = text_keys(uniq)
            ulo = np.full(len(keys), -1, dtype=np.int64)
            uhi = np.full(len(keys), -1, dtype=np.int64)
            for u, key in enumerate(keys):  # loop over distinct labels, not rows
                try:
                    ulo[u], uhi[u] = h.parse_label(key)  # the label grammar of docs/guide.md ("*" included)
                except HierarchyError as e:
                    bad.append((u, f"cannot be read: {e}"))
        findings += _label_findings(str(col), keys, codes, bad, freeform=is_range is not None)
        ok = np.ones(len(uniq), dtype=bool)
        ok[[u for u, _ in bad]] = False
        lo[:, j] = np.where(ok, ulo, 0)[codes]
        hi[:, j] = np.where(ok, uhi, h.size - 1)[codes]
    return lo, hi, sets, findings


def _shown(text: str, limit: int = EXAMPLE_CHARS) -> str:
    """Untrusted text of the release file as a finding quotes it: cut to ``limit`` characters."""
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _label_findings(
    col: str, keys: list[str], codes: np.ndarray, bad: list[tuple[int, str]], *, freeform: bool
) -> list[Finding]:
    """The ``labels`` finding of one column: its distinct published labels ``bad`` (index into
    ``keys``, reason) that cannot be read, as one finding however many there are (a release
    checked against another hierarchy than its own has thousands): their exact number and
    rows, the first :data:`MAX_EXAMPLES` in file order (``pd.factorize`` numbers labels by
    first appearance), the reason for the first and what to give. Labels are quoted with
    ``repr`` (control characters escaped) and cut to :data:`EXAMPLE_CHARS`, reasons to a few
    lines: they are the untrusted file's text."""
    if not bad:
        return []
    bad = sorted(bad)
    unreadable = np.zeros(len(keys), dtype=bool)
    unreadable[[u for u, _ in bad]] = True
    rows = np.flatnonzero(unreadable[codes])  # every row of every unreadable label, in file order
    _, why = bad[0]
    why = _shown(why, 8 * EXAMPLE_CHARS)
    fix = ""
    if not freeform and any(keys[u].startswith(("{", "[")) for u, _ in bad):
        fix = (
            " (a value set or a range that is no hierarchy node is a freeform cell: give --recoding freeform / "
            "recoding='freeform' if this is a freeform release)"
        )
    examples = [_shown(keys[u]) for u, _ in bad[:MAX_EXAMPLES]]
    if len(bad) == 1:
        reason = f"Column {col!r}: published value {examples[0]!r} {why}{fix}"
    else:
        cut = f" (the first {MAX_EXAMPLES} in file order)" if len(bad) > MAX_EXAMPLES else ""
        reason = (
            f"Column {col!r}: {len(bad)} distinct published labels, in {len(rows)} rows, cannot be read as "
            f"values of its hierarchy, e.g. {', '.join(repr(e) for e in examples)}{cut}; the first "
            f"{why.rstrip('.')}{fix}. "
            f"If the release was made with another hierarchy for {col!r}, give that one: -H {col}=FILE on the "
            f"command line, hierarchies={{{col!r}: ...}} in Python."
        )
    return [Finding("labels", reason, rows=[int(i) for i in rows[:MAX_LISTED]], count=len(bad), examples=examples)]


def _looks_freeform(dataset: Dataset, published: pd.DataFrame) -> bool:
    """A release without metadata holding a value-set cell (``{a,b}``) that is no value or
    label of its column: only freeform recoding publishes those."""
    for col, h in zip(dataset.quasi_identifiers, dataset.hierarchies):
        if col not in published.columns:
            continue
        uniq = pd.unique(published[col].astype(str))
        for key in value_keys(uniq):  # distinct labels only
            if key.startswith("{"):
                try:
                    h.parse_label(key)
                except HierarchyError:
                    return True
    return False


def _published_keys(original_values: Any, published_uniques: Any) -> list[str]:
    """Canonical keys of published values; numbers read back as text ("1423.0") compare as
    numbers when the original column is numeric."""
    keys = value_keys(published_uniques)
    first = next(iter(original_values), None)
    if isinstance(first, (int, float, np.number)) and not isinstance(first, bool):
        num = pd.to_numeric(pd.Series(list(published_uniques), dtype=object), errors="coerce")
        ok = num.notna().to_numpy()
        if ok.any():
            nk = value_keys(num[ok])
            for i, k in zip(np.flatnonzero(ok), nk):
                keys[int(i)] = k
    return keys


def _exact_codes(original: pd.Series, published: pd.Series) -> tuple[np.ndarray, np.ndarray, int]:
    """Common integer codes of a column published unchanged (canonical string keys)."""
    fo, uo = pd.factorize(original, use_na_sentinel=False)
    fp, up = pd.factorize(published, use_na_sentinel=False)
    ko = pd.Index(value_keys(uo))
    kp = pd.Index(_published_keys(uo, up))
    dom = ko.unique()
    return dom.get_indexer(ko)[fo].astype(np.int32), dom.get_indexer(kp)[fp].astype(np.int32), len(dom)


def parse_release(
    dataset: Dataset,
    published: pd.DataFrame,
    *,
    recoding: str | None = None,
    metadata: Mapping[str, Any] | None = None,
) -> Release:
    """Read a published table (labels) back into a :class:`Release` over ``dataset``.

    Every row is a published row (rows whose QI cells all read ``*`` included); the
    ``dataset.n - len(published)`` records not published are added as suppressed
    whole-domain rows. ``recoding`` (or ``metadata["recoding"]``) tells scope-dependent
    models where to check; without either the release's recoding is ``"unknown"`` and a
    model whose verdict depends on it refuses to guess. Raises :class:`DataError` for
    unreadable labels or more rows than records; :func:`audit` reports those as findings.
    """
    rel, findings = _parse(dataset, published, recoding=recoding, metadata=metadata)
    if findings:
        raise DataError(str(findings[0]))
    assert rel is not None
    return rel


def _parse(dataset: Dataset, published: pd.DataFrame, *, recoding: str | None, metadata: Mapping[str, Any] | None
           ) -> tuple[Release | None, list[Finding]]:
    missing = [c for c in dataset.quasi_identifiers + dataset.sensitive if c not in published.columns]
    if missing:
        return None, [Finding("columns", f"The published table lacks the declared column(s) {missing}.")]
    rec = recoding or (metadata or {}).get("recoding") or "unknown"
    if rec == "unknown" and _looks_freeform(dataset, published):
        rec = "freeform"
    lo, hi, sets, findings = _label_intervals(dataset, published, freeform=rec == "freeform")
    m, n = len(published), dataset.n
    if m > n:
        findings.append(Finding("counts", f"The release has {m} rows but the original only {n} records; a release "
                                "publishes each record at most once."))
    sens: dict[str, np.ndarray] = {}
    for col in dataset.sensitive:
        keys = pd.Index(value_keys(dataset.sensitive_values[col]))
        fp, up = pd.factorize(published[col], use_na_sentinel=False)
        codes = keys.get_indexer(_published_keys(dataset.sensitive_values[col], up))[fp]
        if (codes < 0).any():
            rows = np.flatnonzero(codes < 0)
            findings.append(Finding("generalization", f"Published sensitive value {published[col].iloc[int(rows[0])]!r} in "
                                    f"column {col!r} does not occur in the original.", rows=[int(i) for i in rows[:MAX_LISTED]]))
        sens[col] = np.maximum(codes, 0).astype(np.int32)
    if findings:
        return None, findings
    s = n - m
    full = (dataset.domain_sizes - 1).astype(np.int32)
    lo = np.vstack([lo, np.zeros((s, dataset.r), dtype=np.int32)])
    hi = np.vstack([hi, np.tile(full, (s, 1))])
    common: dict[str, Any] = dict(
        dataset=dataset,
        suppressed=np.concatenate([np.zeros(m, dtype=bool), np.ones(s, dtype=bool)]),
        source=None,
        recoding=rec,
        levels=None if not metadata or metadata.get("levels") is None else np.asarray(metadata["levels"], dtype=np.int64),
        published_sensitive={c: np.concatenate([v, np.zeros(s, dtype=np.int32)]) for c, v in sens.items()},
        provenance={**{k: metadata[k] for k in ("algorithm", "parameters", "randomness") if metadata and k in metadata},
                    # a claim of the (untrusted) file, which checkers must not take for a fact
                    **({"algorithm_source": "release metadata"} if metadata and metadata.get("algorithm") else {})},
    )
    if rec != "freeform":
        return Release(lo=lo, hi=hi, **common)._seal(), []
    from .freeform_release import FreeformRelease

    # exact cells as published; lo/hi their closure under each hierarchy (FreeformRelease)
    clo, chi = np.empty_like(lo), np.empty_like(hi)
    for j, h in enumerate(dataset.hierarchies):  # loop over columns
        clo[:, j], chi[:, j] = h.closure(lo[:, j], hi[:, j])
    value_sets = {j: np.vstack([v, np.ones((s, v.shape[1]), dtype=bool)]) for j, v in sets.items()}
    return FreeformRelease(lo=clo, hi=chi, cell_lo=lo, cell_hi=hi, value_sets=value_sets, **common)._seal(), []


# ------------------------------------------------------------------------------ generalization
def _generalization_findings(
    dataset: Dataset, published: pd.DataFrame, rel: Release, factor_k: int = 0
) -> tuple[list[Finding], str, ConsistencyGraph | None]:
    """Is there a matching of the published rows into distinct original records? (module doc, step 4)

    Also returns the consistency graph with its matching when it is the one the model checkers
    build (no sensitive/insensitive columns, every row published, unknown row order), so the
    audit lends it to them (:func:`ktype.models._graph.shared_graph`) instead of building and
    solving it twice; else ``None``. With ``factor_k >= 1`` (a claimed freeform k-anonymity, see
    :func:`_factor_k`) the shared graph's k-factor flow is tried first: if the k-factor exists,
    it proves the matching and is the flow the checks reuse.
    """
    from scipy import sparse
    from scipy.sparse.csgraph import maximum_flow

    from .models._graph import ConsistencyGraph  # noqa: F811 - lazy: the compiled graph kernels

    m = len(published)
    exact = dataset.sensitive + dataset.insensitive
    xo = [np.asarray(dataset.X)]
    cell_lo, cell_hi, sets = rel.cells()  # exact cells: freeform ranges and value sets
    plo, phi = [cell_lo[:m]], [cell_hi[:m]]
    dom = [np.asarray(dataset.domain_sizes)]
    for c in exact:
        co, cp, size = _exact_codes(dataset.data[c], published[c])
        xo.append(co[:, None])
        plo.append(cp[:, None])
        phi.append(cp[:, None])
        dom.append(np.array([max(size, 1)]))
    shape = SimpleNamespace(X=np.hstack(xo).astype(np.int32), domain_sizes=np.concatenate(dom),
                            quasi_identifiers=list(dataset.quasi_identifiers) + exact)
    vlo, vhi = np.hstack(plo).astype(np.int32), np.hstack(phi).astype(np.int32)
    vsets = {j: v[:m] for j, v in sets.items()}  # keyed by QI index; the exact columns come after the QIs
    view = SimpleNamespace(dataset=shape, lo=vlo, hi=vhi, source=None, cells=lambda: (vlo, vhi, vsets))
    # without exact columns the graph of the view is the model checkers' graph of the release
    share = not exact and rel.n == m and rel.source is None
    g = ConsistencyGraph(rel) if share else ConsistencyGraph(view)  # type: ignore[arg-type]  # duck-typed view
    B = g.n_box_types
    need = np.bincount(g.box_type, minlength=B)  # published rows per type (hidden rows excluded)
    pub_types = np.flatnonzero(need)  # the published types, ascending (np.unique without its sort)
    if g.hidden_type >= 0:
        real = g.edge_box != g.hidden_type
        eo, eb = g.edge_orig[real], g.edge_box[real]
    else:  # every edge is real: no copy of the edge arrays
        eo, eb = g.edge_orig, g.edge_box
    covered = np.bincount(eb, weights=g.orig_mult[eo], minlength=B)
    findings: list[Finding] = []
    orphan = pub_types[covered[pub_types] == 0]
    if len(orphan):
        rows = np.flatnonzero(np.isin(g.box_type, orphan))
        findings.append(Finding("generalization", f"{len(rows)} published row(s) generalize no original record: some QI "
                                "cell does not cover any record's value with equal sensitive/insensitive values (a "
                                "narrowed cell, a changed or perturbed value - e.g. the 'mask' baseline, which is no "
                                "generalization -, or a row not from this original).",
                                rows=[int(i) for i in rows[:MAX_LISTED]]))
    homogeneous = bool((np.bincount(eo, minlength=g.n_orig_types) <= 1).all())
    if homogeneous:
        short = pub_types[(need[pub_types] > covered[pub_types]) & (covered[pub_types] > 0)]
        if len(short):
            rows = np.flatnonzero(np.isin(g.box_type, short))
            classes = [_class_label(published, rel, dataset, int(np.flatnonzero(g.box_type == b)[0]),
                                    int(need[b]), int(covered[b])) for b in short[:MAX_LISTED]]
            findings.append(Finding("generalization", "More published rows than original records they can stand for "
                                    "(a duplicated or invented row, or sensitive values changed): for each class below, rows > records "
                                    "covered.",
                                    rows=[int(i) for i in rows[:MAX_LISTED]], classes=classes))
        return findings, "class-wise count (homogeneous recoding)", None
    if share and factor_k >= 1 and _has_factor(g, factor_k):
        return findings, "maximum flow on the type graph", g  # a k-factor contains a perfect matching
    if share:
        try:
            _ = g.flow  # one maximum flow (original types -> published types), kept for the model checks
        except DataError:
            pass  # no perfect matching: the flow below names the rows that cannot be matched
        else:
            return findings, "maximum flow on the type graph", g
    # general case: maximum flow source -> published types -> original types -> sink
    A = g.n_orig_types
    s_, t_ = 0, A + B + 1
    rows_ = np.concatenate([np.zeros(len(pub_types), dtype=np.int64), 1 + eb, 1 + B + np.arange(A, dtype=np.int64)])
    cols_ = np.concatenate([1 + pub_types, 1 + B + eo, np.full(A, t_, dtype=np.int64)])
    cap = np.concatenate([need[pub_types], np.minimum(need[eb], g.orig_mult[eo]), g.orig_mult]).astype(np.int32)
    G = sparse.csr_array((cap, (rows_, cols_)), shape=(A + B + 2, A + B + 2))
    res = maximum_flow(G, s_, t_, method="dinic")
    if int(res.flow_value) < m and not findings:
        F = sparse.csr_array(res.flow)
        sent = np.asarray(F[[0] * len(pub_types), 1 + pub_types]).ravel()
        short = pub_types[sent < need[pub_types]]
        rows = np.flatnonzero(np.isin(g.box_type, short))
        findings.append(Finding("generalization", f"At most {int(res.flow_value)} of the {m} published rows can be "
                                "assigned to distinct original records they generalize (no perfect matching): a "
                                "duplicated, invented or altered row among the rows listed.",
                                rows=[int(i) for i in rows[:MAX_LISTED]]))
    return findings, "maximum flow on the type graph", None


def _has_factor(g: ConsistencyGraph, k: int) -> bool:
    try:
        return g.k_factor(k)[0]
    except InvalidParameterError:  # too large to decide: the matching flow decides generalization
        return False


def _factor_k(model: PrivacyModel | Sequence[PrivacyModel] | None, meta: Mapping[str, Any] | None) -> int:
    """The largest ``k`` of the freeform k-anonymity models to be checked (given, else claimed by
    the metadata); 0 without one or when the claim cannot be rebuilt (the models step reports it)."""
    from .models.freeform import FreeformKAnonymity

    if model is not None:
        models = [model] if isinstance(model, PrivacyModel) else list(model)
    elif meta is not None:
        try:
            models = models_from_metadata(meta)
        except (KtypeError, TypeError, ValueError):  # an untrusted claim that cannot be rebuilt
            return 0
    else:
        return 0
    return max((int(m.k) for m in models if isinstance(m, FreeformKAnonymity)), default=0)


def _class_label(published: pd.DataFrame, rel: Release, ds: Dataset, row: int, rows: int, records: int) -> dict[str, Any]:
    out: dict[str, Any] = {c: str(published[c].iloc[row]) for c in ds.quasi_identifiers}
    out["rows"], out["records_covered"] = rows, records
    return out


# ------------------------------------------------------------------------------ models
def models_from_metadata(metadata: Mapping[str, Any]) -> list[PrivacyModel]:
    """The models a release file claims, rebuilt with the scope they were verified in."""
    from .models._names import model_from_name
    from .models._table import spec_by_name

    out = []
    for entry in metadata.get("models", []):
        spec = spec_by_name(str(entry.get("name")))
        if spec is None:
            raise DataError(f"The release claims model {entry.get('name')!r}, which this ktype does not know; "
                            "check it with explicit --model flags.")
        params = dict(entry.get("params", {}))
        if "scope" in spec.params and entry.get("scope") in ("class", "matches"):
            params["scope"] = entry["scope"]
        out.append(model_from_name(spec.name, **params))
    return out


def _scope_dependent(model: PrivacyModel) -> bool:
    return getattr(model, "scope", None) == "auto"


# ------------------------------------------------------------------------------ audit
def audit(  # noqa: PLR0913
    original: pd.DataFrame | Dataset,
    release: str | Path | pd.DataFrame,
    model: PrivacyModel | Sequence[PrivacyModel] | None = None,
    *,
    quasi_identifiers: Sequence[str] | None = None,
    sensitive: Sequence[str] | str = (),
    identifiers: Sequence[str] = (),
    insensitive: Sequence[str] = (),
    hierarchies: Mapping[str, Any] | None = None,
    recoding: str | None = None,
    metadata: Mapping[str, Any] | None = None,
    sep: str | None = None,
    csv_escape: bool | None = None,
    missing: Mapping[str, str] | str | None = None,
    progress: ProgressLike = None,
) -> AuditReport:
    """Audit a published release against its original (module docstring), then check models.

    Parameters
    ----------
    original : DataFrame or Dataset
        The original table. With a DataFrame, roles default to the release metadata's
        (columns absent from the release are identifiers); hierarchies must be given unless
        the defaults (ordered / flat) were used.
    release : path or DataFrame
        A release file (its Parquet metadata or CSV sidecar is read) or a published table.
    model : model or list, optional
        Default: the models the release's metadata claims.
    recoding : str, optional
        ``"local"``, ``"multidimensional"``, ``"full-domain"`` or ``"freeform"``; overrides
        the metadata. Needed for scope-dependent models (ℓ-diversity, p-sensitivity,
        t-closeness with ``scope="auto"``) when the release has no metadata.
    missing : str or mapping, optional
        The missing-value policy the original was anonymized with (``Dataset``'s ``missing``),
        applied whichever way the roles were given.
    progress : None, callable, True or "auto"
        Progress of the audit's five steps (columns, labels and counts, generalization,
        models), as for :func:`ktype.algorithms.run`.
    """
    with reporting(progress), stage("audit", total=len(_STEPS), detail="release against its original"):
        return _audit(original, release, model, quasi_identifiers=quasi_identifiers, sensitive=sensitive,
                      identifiers=identifiers, insensitive=insensitive, hierarchies=hierarchies, recoding=recoding,
                      metadata=metadata, sep=sep, csv_escape=csv_escape, missing=missing)


#: the audit's steps, in order (progress)
_STEPS = ("reading", "columns", "labels and counts", "generalization", "models")


def _step(name: str) -> None:
    update("audit", _STEPS.index(name), len(_STEPS), name, force=True)


def _audit(  # noqa: C901, PLR0912, PLR0913, PLR0915
    original: pd.DataFrame | Dataset,
    release: str | Path | pd.DataFrame,
    model: PrivacyModel | Sequence[PrivacyModel] | None,
    *,
    quasi_identifiers: Sequence[str] | None,
    sensitive: Sequence[str] | str,
    identifiers: Sequence[str],
    insensitive: Sequence[str],
    hierarchies: Mapping[str, Any] | None,
    recoding: str | None,
    metadata: Mapping[str, Any] | None,
    sep: str | None,
    csv_escape: bool | None,
    missing: Mapping[str, str] | str | None,
) -> AuditReport:
    _step("reading")
    meta: Mapping[str, Any] | None = metadata
    if isinstance(release, (str, Path)):
        try:
            published, file_meta = read_release(release, sep=sep, csv_escape=csv_escape)
        except StaleMetadataError as e:  # the metadata does not belong to the file: nothing is audited
            return AuditReport([Finding("metadata", str(e))], [], {"metadata": "stale"})
        meta = meta if meta is not None else file_meta
    elif isinstance(release, pd.DataFrame):
        published = release
    else:
        raise InvalidParameterError(f"release must be a file path or a DataFrame; got {type(release).__name__}.")
    published = published.reset_index(drop=True)
    if meta is None and model is None:
        no_claim = Finding("metadata", "The release has no metadata naming its models, so it claims nothing that can be "
                           "verified; say which models to check (--model NAME with its parameters; model=...).")
        if quasi_identifiers is None and not isinstance(original, Dataset):
            return AuditReport([no_claim], [], {"metadata": False})
    try:
        ds, untrusted = _dataset(original, published, meta, quasi_identifiers, sensitive, identifiers, insensitive,
                                 hierarchies, missing)
    except DataError as e:
        if quasi_identifiers is not None or isinstance(original, Dataset) or meta is None:
            raise  # the auditor's own roles do not fit the original: a usage error
        return AuditReport([Finding("roles", f"The roles of the release metadata (untrusted) do not fit the original: "
                                    f"{e}")], [], {"metadata": True})
    findings: list[Finding] = []
    # 1. columns
    _step("columns")
    pub_cols = [str(c) for c in published.columns]
    ids = [c for c in pub_cols if c in ds.identifiers]
    if ids:
        findings.append(Finding("identifiers", f"Identifier column(s) {ids} are published. Identifiers must be removed "
                                "from every release."))
    declared = set(ds.quasi_identifiers) | set(ds.sensitive) | set(ds.insensitive)
    undeclared = [c for c in pub_cols if c not in declared and c not in ds.identifiers]
    if undeclared:
        findings.append(Finding("undeclared", f"Column(s) {undeclared} are published but not declared as "
                                "quasi-identifier, sensitive or insensitive."))
    absent = [c for c in ds.data.columns if c in declared and c not in pub_cols]
    if absent:
        findings.append(Finding("columns", f"Declared column(s) {absent} are missing from the release."))
    if meta is not None:
        roles = {c["name"]: c.get("role") for c in meta.get("columns", [])}
        differ = {c: (roles[c], ds.roles.get(c)) for c in roles if c in ds.roles and roles[c] != ds.roles.get(c)}
        if differ:
            findings.append(Finding("metadata", "Column roles differ from the release metadata (metadata, given): "
                                    f"{differ}."))
        for c, h in zip(ds.quasi_identifiers, ds.hierarchies):
            want = (meta.get("hierarchies") or {}).get(c, {}).get("fingerprint")
            if want is not None and want != hierarchy_fingerprint(h):
                findings.append(Finding("metadata", f"The hierarchy given for {c!r} is not the one the release was made "
                                        "with (fingerprints differ); give the same hierarchy (-H)."))
    if untrusted:
        findings += _role_findings(ds, published, untrusted, _claimed_k(model, meta))
    if meta is not None and meta.get("perturbed"):
        findings.append(Finding("perturbed", f"The release metadata says it perturbs published values (algorithm "
                                f"{meta.get('algorithm')!r}): a perturbed release is not a generalization of its "
                                "original, so no audit can establish that it is a release of this original; it is "
                                "refused. Publish a generalization (e.g. hybrid, tailor, mondrian) instead."))
    facts: dict[str, Any] = {
        "metadata": meta is not None,
        "input_records": ds.n,
        "published_rows": len(published),
        "suppressed": ds.n - len(published),
        # roles taken from the release's own metadata: untrusted, audited above
        "untrusted_roles": dict(untrusted),
    }
    if any(f.check in ("columns",) for f in findings):
        return AuditReport(findings, [], facts)
    # 2-3. labels and counts
    _step("labels and counts")
    rel, parse_findings = _parse(ds, published, recoding=recoding, metadata=meta)
    findings += parse_findings
    if meta is not None:
        for key, have in (("input_records", ds.n), ("published_rows", len(published))):
            if key in meta and int(meta[key]) != have:
                findings.append(Finding("counts", f"The metadata records {key.replace('_', ' ')} = {meta[key]}, "
                                        f"but there are {have}."))
        if "input_records" in meta and "suppressed" in meta and not meta.get("suppressed_rows_published"):
            if int(meta["input_records"]) - int(meta["suppressed"]) != len(published):
                findings.append(Finding("counts", f"published rows ({len(published)}) != input records "
                                        f"({meta['input_records']}) - suppressed ({meta['suppressed']})."))
    if rel is None:
        return AuditReport(findings, [], facts)
    facts["recoding"] = rel.recoding
    # 4. generalization
    _step("generalization")
    factor_k = _factor_k(model, meta) if rel.recoding == "freeform" else 0
    gen_findings, facts["matching"], graph = _generalization_findings(ds, published, rel, factor_k)
    findings += gen_findings
    if any(f.check in ("generalization", "labels", "counts") for f in findings):
        return AuditReport(findings, [], facts, rel)
    # 5. models
    _step("models")
    if model is None:
        if meta is None:
            return AuditReport(findings + [no_claim], [], facts, rel)
        if not meta.get("models"):
            return AuditReport(findings + [Finding(
                "metadata", "The release metadata lists no model, so the release claims no protection that can be "
                "verified; check it with explicit models (--model NAME with its parameters; model=...).")], [], facts, rel)
        try:
            models = models_from_metadata(meta)
        except (DataError, InvalidParameterError) as e:  # a claim this ktype cannot rebuild is not verified
            return AuditReport(findings + [Finding("metadata", str(e))], [], facts, rel)
    else:
        models = [model] if isinstance(model, PrivacyModel) else list(model)
    if rel.recoding == "unknown":
        vague = [str(m) for m in models if _scope_dependent(m)]
        if vague:
            raise InvalidParameterError(
                f"{', '.join(vague)}: the verdict depends on how the release was recoded (per equivalence class, or per "
                "record over its matches for a local recoding), and this release has no metadata saying it. Give "
                "recoding='local' or 'multidimensional' (command line: --recoding KIND, or --local), or a model scope.")
    from .models._graph import shared_graph
    from .models._table import model_scope

    facts["scopes"] = {str(m): model_scope(m, rel.recoding) for m in models}
    rel = _verify_algorithm_claim(ds, rel, models)
    results = []
    with shared_graph(rel, graph) if graph is not None else nullcontext():  # built and matched once
        for m in models:
            try:
                results.append(m.check(rel))
            except KtypeError as e:
                if model is not None and not untrusted:
                    raise  # the auditor's models on the auditor's roles: a usage error
                # a claim (models or roles from the untrusted metadata) that cannot even be checked is not verified
                findings.append(Finding("models", f"{m} cannot be checked on this release as its metadata describes "
                                        f"it: {e}"))
    return AuditReport(findings, results, facts, rel, list(models))


def _dataset(original: pd.DataFrame | Dataset, published: pd.DataFrame, meta: Mapping[str, Any] | None,
             quasi_identifiers: Sequence[str] | None, sensitive: Sequence[str] | str, identifiers: Sequence[str],
             insensitive: Sequence[str], hierarchies: Mapping[str, Any] | None,
             missing: Mapping[str, str] | str | None = None) -> tuple[Dataset, dict[str, str]]:
    """The original as a Dataset, and the roles taken from the (untrusted) release metadata.

    Roles the auditor gives are authoritative: a :class:`Dataset`, or ``quasi_identifiers``
    (then every role is the auditor's). Without ``quasi_identifiers`` the roles the auditor
    does give (``sensitive``, ``identifiers``, ``insensitive``, and a hierarchy, which names
    a quasi-identifier) win, and the other columns take the metadata's role; those are
    returned, to be audited (:func:`_role_findings`) and reported. Original columns with no
    role are identifiers; metadata roles of columns the original lacks are ignored (such a
    published column is undeclared).
    """
    if isinstance(original, Dataset):
        return original, {}
    if not isinstance(original, pd.DataFrame):
        raise DataError(f"Expected the original as a pandas DataFrame or a ktype Dataset; got {type(original).__name__}.")
    sens = [sensitive] if isinstance(sensitive, str) else list(sensitive)
    if quasi_identifiers is not None:
        return Dataset(original, quasi_identifiers=quasi_identifiers, sensitive=sens, identifiers=identifiers,
                       insensitive=insensitive, hierarchies=hierarchies, missing=missing), {}
    if meta is None:
        raise InvalidParameterError("Name the quasi-identifiers (quasi_identifiers=[...] / --qi): the release has no "
                                    "metadata giving the roles.")
    cols = [str(c) for c in original.columns]
    given: dict[str, str] = {}
    for role, names in (("sensitive", sens), ("identifier", identifiers), ("insensitive", insensitive)):
        for c in names:
            given.setdefault(str(c), role)
    for c in hierarchies or {}:
        given.setdefault(str(c), "quasi_identifier")
    untrusted = {str(c["name"]): str(c.get("role")) for c in meta.get("columns", [])
                 if str(c.get("name")) in cols and str(c.get("name")) not in given
                 and c.get("role") in ("quasi_identifier", "sensitive", "insensitive")}
    role = {**untrusted, **given}
    qis = [c for c in untrusted if role[c] == "quasi_identifier"] + [c for c in given if given[c] == "quasi_identifier"]
    named = [c for c in cols if role.get(c) in ("sensitive", "insensitive")]
    ds = Dataset(original, quasi_identifiers=qis, sensitive=[c for c in named if role[c] == "sensitive"],
                 identifiers=[c for c in cols if c not in qis and c not in named],
                 insensitive=[c for c in named if role[c] == "insensitive"], hierarchies=hierarchies, missing=missing)
    return ds, untrusted


def _verify_algorithm_claim(ds: Dataset, rel: Release, models: Sequence[PrivacyModel]) -> Release:
    """Check the metadata's algorithm name where a checker would otherwise take it on trust.

    The sufficient condition of :class:`~ktype.models.TransparentLDiversity` (used above its
    exact method's size) holds for the outputs of a proved-transparent algorithm only. Tailor
    with distinct identifiers is deterministic (Xiao, Tao & Koudas, TODS 2010, §3.1: ties
    broken by the public identifier order, Definitions 9-10), so it is re-run on the original and its output
    compared with the release; the outcome goes into the provenance of the release returned
    (``algorithm_verified`` / ``algorithm_refuted`` / ``algorithm_not_verified``) for the checker. Ace and Hybrid draw
    secret random choices, and Tailor without distinct identifiers breaks ties by a secret
    order: those claims stay unverified, and the check says so.
    """
    from .models.transparent import TransparentLDiversity

    prov = rel.provenance
    if prov.get("algorithm_source") != "release metadata":
        return rel
    alg = str(prov.get("algorithm", "")).strip().lower().replace("-", "_")
    todo = [m for m in models if isinstance(m, TransparentLDiversity) and m.algorithm is None
            and m.resolved_method(rel) == "sufficient"]
    if not todo or alg != "tailor":
        return rel
    keys = ds.data[ds.identifiers].astype(str).agg("\x1f".join, axis=1) if ds.identifiers else None
    if keys is None or keys.duplicated().any():
        return _noted(rel, algorithm_not_verified="tailor breaks ties by a secret random order when the identifiers "
                      "are not distinct, so its output cannot be recomputed")
    from .algorithms import run

    m = todo[0]
    col = ds.sensitive_column(m.sensitive)
    try:
        ref = run("tailor", ds, TransparentLDiversity(m.l, sensitive=m.sensitive), rng=0)
    except KtypeError as e:
        return _noted(rel, algorithm_not_verified=f"tailor cannot run on the original ({e})")

    def rows(r: Release) -> np.ndarray:
        keep = ~np.asarray(r.suppressed, dtype=bool)
        t = np.column_stack([r.lo[keep], r.hi[keep], r.sensitive_codes(col)[keep]]).astype(np.int64)
        return t[np.lexsort(t.T[::-1])] if len(t) else t

    if rows(ref).shape == rows(rel).shape and np.array_equal(rows(ref), rows(rel)):
        return _noted(rel, algorithm_verified="tailor re-run on the original (distinct identifiers) publishes this release")
    return _noted(rel, algorithm_refuted="re-run on the original (distinct identifiers), tailor publishes another release")


def _noted(rel: Release, **notes: str) -> Release:
    return rel.replace(provenance={**rel.provenance, **notes})


def _claimed_k(model: PrivacyModel | Sequence[PrivacyModel] | None, meta: Mapping[str, Any] | None) -> int:
    """The largest k the release is checked for (its metadata's models, or the given ones); 2 without one."""
    ks = [2]
    if model is not None:
        for m in [model] if isinstance(model, PrivacyModel) else list(model):
            if isinstance(getattr(m, "k", None), int):
                ks.append(int(m.k))  # type: ignore[attr-defined]
    elif meta is not None:
        for entry in meta.get("models") or []:
            k = (entry.get("params") or {}).get("k") if isinstance(entry, Mapping) else None
            if isinstance(k, int) and not isinstance(k, bool):
                ks.append(k)
    return max(ks)


def _role_findings(ds: Dataset, published: pd.DataFrame, untrusted: Mapping[str, str], k: int) -> list[Finding]:
    """Audit the roles taken from the release metadata (module docstring, step 1).

    A published column the metadata does not make a quasi-identifier is published with its
    exact values (step 4 proves they are the original's). It fails, whatever role the
    metadata gives it, when in the original table

    * the identifier hints flag it (:func:`ktype.risk.identifier_hints`: a name, a number
      such as an SSN or a record number, an e-mail address, an exact date, a ZIP code, ...,
      by its name or values, or a column whose values are all distinct); or
    * it singles people out: a value of a *sensitive* column held by one record only, a
      value of an *insensitive* column held by fewer than ``k`` records (``k`` the largest the
      release is checked for, at least 2) — an unprotected column that a hidden
      quasi-identifier (exact ages relabelled "insensitive") cannot avoid being.

    The rule cannot tell every quasi-identifier relabelled "sensitive" from a sensitive
    attribute (one whose values are all shared by two or more records passes it); roles
    given by the auditor are never second-guessed.
    """
    from .risk.hipaa import identifier_hints

    exact = [str(c) for c in published.columns if untrusted.get(str(c)) in ("sensitive", "insensitive")]
    if not exact:
        return []
    hints = {h.column: h for h in identifier_hints(ds.data[exact])}
    out: list[Finding] = []
    for c in exact:  # loop over columns
        role = untrusted[c]
        why = []
        if c in hints:
            why.append(f"it looks like {hints[c].category} ({hints[c].reason})")
        need = 2 if role == "sensitive" else max(2, k)
        codes, _ = pd.factorize(ds.data[c], use_na_sentinel=False)
        counts = np.bincount(codes)
        rare = counts[codes] < need
        if rare.any():
            what = "is held by that record only" if need == 2 else f"is shared by fewer than {need} records"
            why.append(f"it singles people out: for {int(rare.sum())} original record(s) the value {what}")
        if why:
            out.append(Finding(
                "roles", f"Column {c!r} is published with its exact values as {role!r}, a role only the release "
                f"metadata (untrusted) gives it, and {'; '.join(why)}. Such a column fails whatever role the metadata "
                "claims; if it really is " + role + ", give the roles yourself (--qi, --sensitive, --insensitive, "
                "--identifier or a config file; quasi_identifiers=... in Python).",
                records=[int(i) for i in np.flatnonzero(rare)[:MAX_LISTED]]))
    return out


def _plain(x: Any) -> Any:
    from .release import _jsonable

    return _jsonable(x)
