"""Sensitive-attribute diversity models: ℓ-diversity (distinct, entropy, recursive (c,ℓ),
frequency / simple), and p-sensitivity.

Every model here can be checked in two scopes:

* ``scope="class"`` — per **equivalence class** (q-block): the released rows with identical
  published quasi-identifiers; suppressed rows are excluded (survey §6, Machanavajjhala et
  al. 2007). Verdicts are per released row.
* ``scope="matches"`` — per **original record** ``R_i`` over the multiset ``S_i`` of sensitive
  values of its *matches* (released rows lying on some perfect matching of the consistency
  graph; ``S_i`` includes ``s_i`` itself). This is the k-concealment paper's §8 (Tassa,
  Mazza & Gionis, TDP 2012): there are no classes under local recoding. Verdicts are per original record.
* ``scope="auto"`` (default) — ``"matches"`` for ``recoding="local"`` or ``"freeform"``
  releases, ``"class"`` otherwise. Under single-dimensional global (full-domain) recoding and
  partition-based multidimensional recoding the two scopes coincide (the k-concealment
  paper, end of §4.2; not under overlapping multidimensional covers, see
  :mod:`ktype.models.ktype_models`).

Both scopes feed the same vectorized rule, :meth:`class_verdicts`, with one row per group
(class or record): ``sizes`` = group size, ``hist`` = (groups x values) count matrix.

Monotonicity (the ``monotone = True`` flag is a class-scope statement)
----------------------------------------------------------------------
In class scope every model here is preserved when two classes merge, which is what
generalization does: distinct ℓ-diversity and p-sensitivity (the value set only grows),
entropy ℓ-diversity (entropy is concave, so a mixture's entropy is at least the smaller
part's), recursive (c,ℓ) ([1]: ``r_1`` of a union is at most the sum of the parts' ``r_1``,
its tail at least the sum of their tails), frequency ℓ-diversity (the mediant
``(|A|+|B|)/(f_A+f_B)``), and t-closeness (EMD is convex in the class distribution).
Caveats: (i) this holds for generalization that does not change *which* rows are
suppressed; under "suppress every class smaller than k" a coarser node can publish rows
that were suppressed before, which can lower entropy / frequency diversity or raise the EMD
(distinct ℓ and p-sensitivity stay monotone, since rows are only added). (ii) In match
scope only distinct ℓ-diversity and p-sensitivity are monotone under further
generalization (matches only grow); adding a match that carries the mode value lowers
entropy / frequency diversity (this follows from the match-based definitions of the
k-concealment paper, §8; the paper does not state it).

References
----------
.. [1] A. Machanavajjhala, D. Kifer, J. Gehrke, M. Venkitasubramaniam. ℓ-Diversity: Privacy
   beyond k-anonymity. ACM TKDD 1(1), 2007 (ICDE 2006). Distinct, entropy and recursive
   (c,ℓ)-diversity; monotonicity (their §4.3 / Thm. on entropy and recursive diversity).
.. [2] V. Ciriani, S. De Capitani di Vimercati, S. Foresti, P. Samarati. k-Anonymity. In
   Secure Data Management in Decentralized Systems, Springer 2007, §6, "ℓ-Diversity" (q-blocks, distinct
   ℓ-diversity, Fig. 15).
.. [3] T. Tassa, A. Mazza, A. Gionis. k-Concealment: an alternative model of k-type
   anonymity. Trans. Data Privacy 5(1), 2012, §1.2 (simple ℓ-diversity, p-sensitivity),
   §8 (match-based diversity), Appendix C Def. 14 (cluster diversity ``|C|/f``).
.. [4] T. M. Truta, B. Vinay. Privacy protection: p-sensitive k-anonymity property. ICDE
   Workshops 2006.
.. [5] R. C.-W. Wong, J. Li, A. W.-C. Fu, K. Wang. (α,k)-anonymity. KDD 2006 (α = 1/ℓ).
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any, ClassVar

import numpy as np

from .._validation import Interval, Options
from ..data.dataset import Dataset
from ..exceptions import InfeasibleError
from ..release import Release
from ._base import CheckResult, ClassModel, class_histograms, equivalence_classes
from ._rulespec import DISTINCT, ENTROPY, FREQUENCY, RECURSIVE, RuleSpec

__all__ = [
    "DistinctLDiversity",
    "EntropyLDiversity",
    "RecursiveCLDiversity",
    "FrequencyLDiversity",
    "PSensitivity",
]

SCOPES = ("auto", "class", "matches")
#: absolute tolerance of the floating-point comparisons (entropy, EMD)
TOLERANCE = 1e-10
#: parameters such as ℓ = 1.1 are read as the nearest fraction with at most this denominator
MAX_DENOMINATOR = 10**6
#: rows of a dense (groups x values) block in the match scope
_BLOCK_CELLS = 1 << 22


def as_fraction(x: float) -> tuple[int, int]:
    """Exact ``(numerator, denominator)`` of a user parameter.

    The float's shortest decimal form is read as a fraction and limited to denominators
    ``<= 10**6``, so ``1.1`` is ``11/10`` and ``1.3333333333333333`` is ``4/3``. Integer
    comparisons with it are then exact (no ``1.1 * 10 > 11`` rounding surprise).
    """
    f = Fraction(repr(float(x))).limit_denominator(MAX_DENOMINATOR)
    return f.numerator, f.denominator


class SensitiveModel(ClassModel):
    """Base of the models over one sensitive attribute, checkable per class or per record.

    Subclasses are frozen dataclasses with fields ``sensitive`` and ``scope`` and implement
    :meth:`class_values` (a per-group score for reports), :meth:`class_verdicts` (the exact
    rule) and :meth:`_advice` (what to change when the table is infeasible).
    """

    needs_sensitive: ClassVar[bool] = True
    #: preserved when equivalence classes merge (class scope, no suppression change)
    monotone: ClassVar[bool] = True
    #: name of the score returned by :meth:`class_values`, and whether larger is better
    _score_name: ClassVar[str] = "score"
    _higher_is_better: ClassVar[bool] = True

    # ------------------------------------------------------------------ per-group rule
    def class_values(self, sizes: np.ndarray, hist: np.ndarray, dataset: Dataset) -> np.ndarray:
        """Score of each group (row of ``hist``), for reports; see ``_score_name``."""
        raise NotImplementedError

    # ------------------------------------------------------------------ scope
    def resolve_scope(self, release: Release) -> str:
        """``"class"`` or ``"matches"`` for this release (``"auto"`` follows the recoding)."""
        scope = getattr(self, "scope", "auto")
        if scope == "auto":
            if release.recoding == "unknown":  # a published table read back without metadata
                from ..exceptions import InvalidParameterError

                raise InvalidParameterError(
                    f"{self}: the release's recoding is unknown (no metadata), so per class or per record over its "
                    "matches cannot be chosen; give recoding= when parsing it, or an explicit scope."
                )
            return "matches" if release.recoding in ("local", "freeform") else "class"
        return scope

    # ------------------------------------------------------------------ feasibility
    def _table_hist(self, dataset: Dataset) -> tuple[str, np.ndarray, np.ndarray]:
        col = dataset.sensitive_column(getattr(self, "sensitive", None))
        m = len(dataset.sensitive_values[col])
        hist = np.bincount(dataset.sensitive_codes[col], minlength=m).astype(np.int64)[None, :]
        return col, np.array([dataset.n], dtype=np.int64), hist

    def feasible(self, dataset: Dataset) -> tuple[bool, str]:
        """Whether some generalization of ``dataset`` can satisfy the model at all.

        Every model in this module is preserved when classes merge, so the whole table
        released as a single class is the best any generalization (without suppression) can
        do: the model is feasible iff the whole table satisfies it. Returns
        ``(ok, message)``; the message states the best achievable value and, when
        infeasible, what to change. (In match scope the same whole-table condition is the
        feasibility test for the match-based models of the k-concealment paper, §8: the
        multiset ``S_i`` of a record's matches is at best the whole table's.)
        """
        col, sizes, hist = self._table_hist(dataset)
        ok = bool(self.class_verdicts(sizes, hist, dataset)[0])
        best = float(self.class_values(sizes, hist, dataset)[0])
        head = (
            f"{self} on sensitive column {col!r}: the whole table (n={dataset.n}, "
            f"{int((hist > 0).sum())} distinct values) has {self._score_name} = {best:.6g}, "
            "the best value any generalization can reach"
        )
        if ok:
            return True, head + "; feasible."
        return False, head + f", so no release can satisfy the model. {self._advice(best, hist[0])}"

    def _advice(self, best: float, counts: np.ndarray) -> str:
        return "Relax the parameter or choose another sensitive attribute."

    def validate(self, dataset: Dataset) -> None:
        """Check the sensitive column, then raise :class:`InfeasibleError` if no
        generalization of ``dataset`` can satisfy the model (see :meth:`feasible`)."""
        super().validate(dataset)
        ok, msg = self.feasible(dataset)
        if not ok:
            raise InfeasibleError(msg)

    # ------------------------------------------------------------------ checking
    def check(self, release: Release) -> CheckResult:
        """Check a release in the resolved scope (see the module docstring).

        ``per_record`` is per released row (release order) in class scope and per original
        record (dataset order) in match scope; ``summary["per"]`` says which. Suppressed rows,
        and in match scope records not published, pass.
        """
        if self.resolve_scope(release) == "matches":
            return self._check_matches(release)
        return self._check_classes(release)

    def _worst(self, values: np.ndarray) -> float | None:
        if len(values) == 0:
            return None
        return float(values.min() if self._higher_is_better else values.max())

    def _check_classes(self, release: Release) -> CheckResult:
        ds = release.dataset
        col = ds.sensitive_column(getattr(self, "sensitive", None))
        class_of, g = equivalence_classes(release)
        sizes = np.bincount(class_of[class_of >= 0], minlength=g).astype(np.int64)
        hist = class_histograms(class_of, g, release.sensitive_codes(col), len(ds.sensitive_values[col]))
        if g:
            ok_class = np.asarray(self.class_verdicts(sizes, hist, ds), dtype=bool)
            values = self.class_values(sizes, hist, ds)
        else:
            ok_class = np.zeros(0, dtype=bool)
            values = np.zeros(0)
        per_record = np.ones(release.n, dtype=bool)
        pub = class_of >= 0
        per_record[pub] = ok_class[class_of[pub]]
        summary: dict[str, Any] = {
            "scope": "class",
            "per": "released row",
            "sensitive": col,
            "classes": g,
            "smallest_class": int(sizes.min()) if g else 0,
            "failing_classes": int((~ok_class).sum()),
            "failing_records": int((~per_record).sum()),
            "suppressed": release.n_suppressed,
            ("min_" if self._higher_is_better else "max_") + self._score_name: self._worst(values),
        }
        return CheckResult(str(self), bool(per_record.all()), per_record, summary)

    def _check_matches(self, release: Release) -> CheckResult:
        ds = release.dataset
        col = ds.sensitive_column(getattr(self, "sensitive", None))
        m = len(ds.sensitive_values[col])
        group_of, sizes_g, hist_g = match_histograms(release, col, m)
        sizes = sizes_g[group_of]
        published = sizes > 0
        if release.source is not None:
            published_rec = np.zeros(ds.n, dtype=bool)
            published_rec[release.source[~release.suppressed]] = True
            published &= published_rec
        # the rule runs once per group (record type: records with equal QIs have equal S_i)
        ok_g = np.ones(len(sizes_g), dtype=bool)
        worst: list[float] = []
        idx = np.flatnonzero(np.bincount(group_of[published], minlength=len(sizes_g)))
        step = max(1, _BLOCK_CELLS // max(m, 1))
        for a in range(0, len(idx), step):  # blocks of groups, to bound memory
            rows = idx[a : a + step]
            h = np.asarray(hist_g[rows].toarray(), dtype=np.int64)
            ok_g[rows] = self.class_verdicts(sizes_g[rows], h, ds)
            w = self._worst(self.class_values(sizes_g[rows], h, ds))
            if w is not None:
                worst.append(w)
        ok = ok_g[group_of] | ~published
        summary: dict[str, Any] = {
            "scope": "matches",
            "per": "original record",
            "sensitive": col,
            "records": int(published.sum()),
            "smallest_match_set": int(sizes[published].min()) if published.any() else 0,
            "failing_records": int((~ok).sum()),
            "suppressed": release.n_suppressed,
            ("min_" if self._higher_is_better else "max_") + self._score_name: (
                (min(worst) if self._higher_is_better else max(worst)) if worst else None
            ),
        }
        return CheckResult(str(self), bool(ok.all()), ok, summary)


def match_histograms(release: Release, column: str, n_values: int) -> tuple[np.ndarray, np.ndarray, Any]:
    """Sensitive values of the matches of every original record (the multiset ``S_i`` of the
    k-concealment paper, §8), grouped.

    Returns ``(group_of_record, sizes, hist)``: records of one group share ``S_i``;
    ``sizes[g]`` is ``|S_i|`` and ``hist[g]`` (sparse, groups x values) its value counts.
    Suppressed released rows are not published, so they are left out of ``S_i``.

    Uses the type-compressed consistency graph of :mod:`ktype.models._graph` when available
    (records with identical quasi-identifiers have the same matches, so the counts are a
    product ``(orig types x box types) @ (box types x values)``); otherwise the record-level
    ``record_matches(release)`` matrix ``(dataset.n x release.n)``.
    """
    from scipy import sparse

    from . import _graph  # lazy: the consistency-graph module

    codes = release.sensitive_codes(column)
    keep = (~release.suppressed).astype(np.int64)
    graph_fn = getattr(_graph, "consistency_graph", None)
    if graph_fn is not None:
        g = graph_fn(release)
        A, B = g.n_orig_types, g.n_box_types
        sel = g.is_match
        T = sparse.csr_matrix(
            (np.ones(int(sel.sum()), dtype=np.int64), (g.edge_orig[sel], g.edge_box[sel])), shape=(A, B)
        )
        box_hist = sparse.csr_matrix((keep, (g.box_type, codes)), shape=(B, n_values))
        hist = (T @ box_hist).tocsr()
        group_of = np.asarray(g.orig_type, dtype=np.int64)
    else:
        mat = sparse.csr_matrix(_graph.record_matches(release), copy=True)
        mat.data = (mat.data != 0).astype(np.int64)
        mat.eliminate_zeros()
        onehot = sparse.csr_matrix((keep, (np.arange(release.n), codes)), shape=(release.n, n_values))
        hist = (mat @ onehot).tocsr()
        group_of = np.arange(release.dataset.n, dtype=np.int64)
    sizes = np.asarray(hist.sum(axis=1)).ravel().astype(np.int64)
    return group_of, sizes, hist


def _distinct(hist: np.ndarray) -> np.ndarray:
    return (np.asarray(hist) > 0).sum(axis=1)


# ---------------------------------------------------------------------------------- models
@dataclass(frozen=True)
class DistinctLDiversity(SensitiveModel):
    """Distinct ℓ-diversity: every q-block holds at least ``l`` distinct sensitive values.

    Survey §6 [2]; Machanavajjhala et al. [1] §4.1. Preserved when classes merge (the
    union of value sets only grows), so it is monotone under generalization. In match scope
    (k-concealment §8) it is the same test on ``S_i``.

    Parameters
    ----------
    l : int
        Minimum number of distinct sensitive values per class, ``l >= 1``.
    sensitive : str, optional
        The sensitive column; ``None`` = the dataset's only one.
    scope : {"auto", "class", "matches"}
        Where the rule applies (module docstring).
    """

    public_name: ClassVar[str | None] = "distinct-l-diversity"

    l: int  # noqa: E741
    sensitive: str | None = None
    scope: str = "auto"
    _parameter_constraints: ClassVar[dict] = {
        "l": [Interval(int, 1, None, closed="left")],
        "sensitive": [str, None],
        "scope": [Options(SCOPES)],
    }
    _score_name: ClassVar[str] = "distinct"

    def class_values(self, sizes: np.ndarray, hist: np.ndarray, dataset: Dataset) -> np.ndarray:
        return _distinct(hist)

    def class_verdicts(self, sizes: np.ndarray, hist: np.ndarray | None, dataset: Dataset) -> np.ndarray:
        assert hist is not None  # needs_sensitive: the checker always passes the histograms
        return _distinct(hist) >= self.l

    def rule_spec(self, dataset: Dataset) -> RuleSpec:
        """At least ``l`` distinct values."""
        return RuleSpec(DISTINCT, (int(self.l),), column=self.sensitive_name(dataset))

    def _advice(self, best: float, counts: np.ndarray) -> str:
        return f"Use l <= {int(best)}, or a sensitive attribute with at least {self.l} distinct values."


@dataclass(frozen=True)
class PSensitivity(SensitiveModel):
    """p-sensitivity: every q-block holds at least ``p`` distinct sensitive values.

    Truta & Vinay [4] (p-sensitive k-anonymity, without the k part — combine with
    :class:`~ktype.models.kanonymity.KAnonymity`); k-concealment paper §1.2 and §8.1 [3] for
    the match scope (``S_i`` has at least ``p`` distinct values). Monotone under merging, and
    in match scope also under further generalization (matches only grow).

    Parameters
    ----------
    p : int
        Minimum number of distinct sensitive values, ``p >= 1``.
    sensitive : str, optional
        The sensitive column; ``None`` = the dataset's only one.
    scope : {"auto", "class", "matches"}
        Where the rule applies (module docstring).
    """

    public_name: ClassVar[str | None] = "p-sensitivity"

    p: int
    sensitive: str | None = None
    scope: str = "auto"
    _parameter_constraints: ClassVar[dict] = {
        "p": [Interval(int, 1, None, closed="left")],
        "sensitive": [str, None],
        "scope": [Options(SCOPES)],
    }
    _score_name: ClassVar[str] = "distinct"

    def class_values(self, sizes: np.ndarray, hist: np.ndarray, dataset: Dataset) -> np.ndarray:
        return _distinct(hist)

    def class_verdicts(self, sizes: np.ndarray, hist: np.ndarray | None, dataset: Dataset) -> np.ndarray:
        assert hist is not None  # needs_sensitive: the checker always passes the histograms
        return _distinct(hist) >= self.p

    def rule_spec(self, dataset: Dataset) -> RuleSpec:
        """At least ``p`` distinct values (the distinct rule with ``l = p``)."""
        return RuleSpec(DISTINCT, (int(self.p),), column=self.sensitive_name(dataset))

    def _advice(self, best: float, counts: np.ndarray) -> str:
        return f"Use p <= {int(best)}, or a sensitive attribute with at least {self.p} distinct values."


@dataclass(frozen=True)
class EntropyLDiversity(SensitiveModel):
    """Entropy ℓ-diversity: in every q-block, ``-Σ_s p(s) log p(s) >= log l``.

    Machanavajjhala et al. [1] Def. 4.1; k-concealment paper §1.2 [3]. ``p(s)`` is the
    share of value ``s`` in the block. The reported score is the *effective* ℓ,
    ``exp(entropy)``. The comparison allows an absolute slack of ``1e-10`` nats so that a
    block exactly uniform over ``l`` values passes despite rounding.

    Entropy is concave, so a merged class has entropy at least the weighted mean of its
    parts: the model is preserved under merging (monotone) [1]. Not monotone in match scope
    (adding a match with the mode value can lower the entropy).

    Parameters
    ----------
    l : float
        ``l >= 1``; may be non-integer.
    sensitive : str, optional
        The sensitive column; ``None`` = the dataset's only one.
    scope : {"auto", "class", "matches"}
        Where the rule applies (module docstring).
    """

    public_name: ClassVar[str | None] = "entropy-l-diversity"

    l: float  # noqa: E741
    sensitive: str | None = None
    scope: str = "auto"
    _parameter_constraints: ClassVar[dict] = {
        "l": [Interval(float, 1, None, closed="left")],
        "sensitive": [str, None],
        "scope": [Options(SCOPES)],
    }
    _score_name: ClassVar[str] = "effective_l"

    @staticmethod
    def entropy(sizes: np.ndarray, hist: np.ndarray) -> np.ndarray:
        """Natural-log entropy of each row of ``hist`` (``0 log 0 = 0``)."""
        h = np.asarray(hist, dtype=np.float64)
        p = h / np.maximum(np.asarray(sizes, dtype=np.float64), 1)[:, None]
        logp = np.log(p, out=np.zeros_like(p), where=h > 0)
        return -(p * logp).sum(axis=1)

    def class_values(self, sizes: np.ndarray, hist: np.ndarray, dataset: Dataset) -> np.ndarray:
        return np.exp(self.entropy(sizes, hist))

    def class_verdicts(self, sizes: np.ndarray, hist: np.ndarray | None, dataset: Dataset) -> np.ndarray:
        assert hist is not None  # needs_sensitive: the checker always passes the histograms
        return self.entropy(sizes, hist) >= np.log(float(self.l)) - TOLERANCE

    def rule_spec(self, dataset: Dataset) -> RuleSpec:
        """Entropy at least this checker's threshold ``log l − TOLERANCE``."""
        return RuleSpec(ENTROPY, reals=(float(np.log(float(self.l)) - TOLERANCE),), column=self.sensitive_name(dataset))

    def _advice(self, best: float, counts: np.ndarray) -> str:
        return f"Use l <= {best:.6g} (the exponential of the table's entropy), or another sensitive attribute."


@dataclass(frozen=True)
class RecursiveCLDiversity(SensitiveModel):
    """Recursive (c,ℓ)-diversity: in every q-block, ``r_1 < c (r_l + r_{l+1} + ... + r_m)``.

    Machanavajjhala et al. [1] Def. 4.3; ``r_i`` is the count of the i-th most frequent
    sensitive value in the block (``r_i = 0`` beyond the values present, so a block with fewer
    than ``l`` distinct values fails). The strict inequality is decided exactly in integers,
    with ``c`` read as a fraction (:func:`as_fraction`). The reported score is
    ``r_1 / (r_l + ... + r_m)`` (``inf`` when the tail is empty); the block passes iff it is
    ``< c``.

    Preserved under merging [1]: ``r_1`` of a union is at most the sum of the parts' ``r_1``
    and its tail at least the sum of their tails.

    Parameters
    ----------
    c : float
        ``c > 0``.
    l : int
        ``l >= 1``.
    sensitive : str, optional
        The sensitive column; ``None`` = the dataset's only one.
    scope : {"auto", "class", "matches"}
        Where the rule applies (module docstring).
    """

    public_name: ClassVar[str | None] = "recursive-cl-diversity"

    c: float
    l: int  # noqa: E741
    sensitive: str | None = None
    scope: str = "auto"
    _parameter_constraints: ClassVar[dict] = {
        "c": [Interval(float, 0, None, closed="neither")],
        "l": [Interval(int, 1, None, closed="left")],
        "sensitive": [str, None],
        "scope": [Options(SCOPES)],
    }
    _score_name: ClassVar[str] = "r1_over_tail"
    _higher_is_better: ClassVar[bool] = False

    def protects_nothing(self) -> str | None:
        """With ``l = 1`` the tail is the whole class, so ``r_1 < c |C|`` holds for every
        class when ``c > 1``; with ``c <= 1`` it still bounds the largest share."""
        return "ℓ = 1" if self.l <= 1 and self.c > 1 else None

    def _r1_tail(self, hist: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        h = np.asarray(hist, dtype=np.int64)
        s = -np.sort(-h, axis=1)
        r1 = s[:, 0] if s.shape[1] else np.zeros(len(s), dtype=np.int64)
        tail = s[:, self.l - 1 :].sum(axis=1)
        return r1, tail

    def class_values(self, sizes: np.ndarray, hist: np.ndarray, dataset: Dataset) -> np.ndarray:
        r1, tail = self._r1_tail(hist)
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.where(tail > 0, r1 / np.maximum(tail, 1), np.inf)

    def class_verdicts(self, sizes: np.ndarray, hist: np.ndarray | None, dataset: Dataset) -> np.ndarray:
        assert hist is not None  # needs_sensitive: the checker always passes the histograms
        num, den = as_fraction(self.c)
        r1, tail = self._r1_tail(hist)
        return r1 * den < tail * num

    def rule_spec(self, dataset: Dataset) -> RuleSpec:
        """``r_1 · den < (r_l + … + r_m) · num`` with ``c = num/den`` (:func:`as_fraction`)."""
        num, den = as_fraction(self.c)
        return RuleSpec(RECURSIVE, (int(self.l), int(num), int(den)), column=self.sensitive_name(dataset))

    def _advice(self, best: float, counts: np.ndarray) -> str:
        if not np.isfinite(best):
            return f"The column has fewer than l={self.l} distinct values; lower l."
        return f"Use c > {best:.6g} (r1 / (r_l + ... + r_m) of the whole table) or a smaller l."


@dataclass(frozen=True)
class FrequencyLDiversity(SensitiveModel):
    """Frequency (simple) ℓ-diversity: no sensitive value occurs in more than ``1/l`` of a
    q-block, i.e. ``f_max <= |C| / l``.

    Also called (1/ℓ)-frequency or, with k-anonymity, (α,k)-anonymity with ``α = 1/l`` [5];
    k-concealment paper §1.2 and Appendix C, Def. 14: the *diversity* ``div(C) = |C| / f``
    must be ``>= l`` [3]; in match scope ``|S_i| / f_max(S_i) >= l`` (§8.2). The reported
    score is ``div``. The test is exact integer arithmetic, ``f * num <= |C| * den`` with
    ``l = num/den`` read by :func:`as_fraction` (so ``l=1.1`` means 11/10 exactly).

    Preserved under merging: ``div(A ∪ B) >= (|A|+|B|)/(f_A+f_B) >= min(div A, div B)``
    (the mediant). Not monotone in match scope (adding a match that carries the mode
    lowers it).

    Parameters
    ----------
    l : float
        ``l >= 1``; may be non-integer (the k-concealment experiments use 1.1).
    sensitive : str, optional
        The sensitive column; ``None`` = the dataset's only one.
    scope : {"auto", "class", "matches"}
        Where the rule applies (module docstring).
    """

    public_name: ClassVar[str | None] = "frequency-l-diversity"

    l: float  # noqa: E741
    sensitive: str | None = None
    scope: str = "auto"
    _parameter_constraints: ClassVar[dict] = {
        "l": [Interval(float, 1, None, closed="left")],
        "sensitive": [str, None],
        "scope": [Options(SCOPES)],
    }
    _score_name: ClassVar[str] = "diversity"

    def class_values(self, sizes: np.ndarray, hist: np.ndarray, dataset: Dataset) -> np.ndarray:
        f = np.asarray(hist).max(axis=1)
        return np.asarray(sizes, dtype=np.float64) / np.maximum(f, 1)

    def class_verdicts(self, sizes: np.ndarray, hist: np.ndarray | None, dataset: Dataset) -> np.ndarray:
        assert hist is not None  # needs_sensitive: the checker always passes the histograms
        num, den = as_fraction(self.l)
        f = np.asarray(hist, dtype=np.int64).max(axis=1)
        return f * num <= np.asarray(sizes, dtype=np.int64) * den

    def rule_spec(self, dataset: Dataset) -> RuleSpec:
        """``f_max · num <= |C| · den`` with ``l = num/den`` (:func:`as_fraction`)."""
        num, den = as_fraction(self.l)
        return RuleSpec(FREQUENCY, (int(num), int(den)), column=self.sensitive_name(dataset))

    def _advice(self, best: float, counts: np.ndarray) -> str:
        return (
            f"Use l <= {best:.6g} (= n / count of the most frequent value), or another sensitive "
            "attribute; a column with d distinct values never allows l > d."
        )
