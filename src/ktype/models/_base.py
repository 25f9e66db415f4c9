"""Base classes of privacy models and their check results."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any, ClassVar, cast

import numpy as np

from .._grouping import group_rows
from .._validation import check_params
from ..data.dataset import Dataset
from ..exceptions import InvalidParameterError
from ..release import Release
from ._rulespec import RuleSpec

__all__ = ["CheckResult", "PER_RELEASED_ROW", "PER_ORIGINAL_RECORD", "PrivacyModel", "ClassModel", "equivalence_classes", "class_histograms"]


#: the two axes a :class:`CheckResult`'s ``per_record`` can be indexed by
PER_RELEASED_ROW = "released row"
PER_ORIGINAL_RECORD = "original record"
PER_AXES = (PER_RELEASED_ROW, PER_ORIGINAL_RECORD)
#: short spellings some checkers put in ``summary["per"]``
_PER_ALIASES = {"released": PER_RELEASED_ROW, "original": PER_ORIGINAL_RECORD}


@dataclass(frozen=True)
class CheckResult:
    """Outcome of checking a release against a privacy model.

    Attributes
    ----------
    model : str
        The model, e.g. ``"KAnonymity(k=5)"``.
    satisfied : bool
        Whether the release satisfies the model.
    per_record : ndarray of bool
        One verdict per element of the axis named by ``per``.
    summary : dict
        Model-specific facts (smallest class, violating records, ...); ``summary["per"]``
        always equals ``per``.
    per : {"released row", "original record"}
        What ``per_record`` is indexed by:

        * ``"released row"`` — one entry per row of the release, in release row order
          (class-scope models: k-anonymity, ℓ-diversity / t-closeness per class, and
          (k,1)-anonymity). Suppressed rows pass (they are not published as records).
        * ``"original record"`` — one entry per record of the original table, in dataset
          order (match-scope diversity, (1,k)-, (k,k)-anonymity, k-concealment). Records
          that are not published (suppressed) pass.

        Default: ``summary["per"]`` if present, else ``"released row"``.
    """

    model: str
    satisfied: bool
    per_record: np.ndarray
    summary: dict[str, Any] = field(default_factory=dict)
    per: str | None = None

    def __post_init__(self) -> None:
        from ..exceptions import InternalError

        per = self.per if self.per is not None else self.summary.get("per", PER_RELEASED_ROW)
        per = _PER_ALIASES.get(per, per)
        if per not in PER_AXES:
            raise InternalError(f"CheckResult.per must be one of {PER_AXES}; got {per!r}")
        if _PER_ALIASES.get(self.summary.get("per", per), self.summary.get("per", per)) != per:
            raise InternalError(f"CheckResult.per={per!r} disagrees with summary['per']={self.summary['per']!r}")
        object.__setattr__(self, "per", per)
        self.summary["per"] = per

    def __bool__(self) -> bool:
        return bool(self.satisfied)

    @property
    def n_violations(self) -> int:
        """Number of failing entries of ``per_record`` (on the ``per`` axis)."""
        return int((~self.per_record).sum())


class PrivacyModel:
    """A privacy model: frozen parameters, validation, and an independent checker.

    Subclasses are frozen dataclasses that declare ``_parameter_constraints``; parameters
    are validated at construction, data-dependent bounds in :meth:`validate`.
    """

    _parameter_constraints: ClassVar[dict[str, list]] = {}
    #: defined per equivalence class (usable by lattice search and Mondrian)
    per_class: ClassVar[bool] = False
    #: preserved when classes merge (generalization monotonicity, without suppression)
    monotone: ClassVar[bool] = True
    #: needs a sensitive attribute
    needs_sensitive: ClassVar[bool] = False
    #: always judged per original record over the consistency graph (the k-type graph models)
    graph_scope: ClassVar[bool] = False
    #: the model's public name (``ktype check --model``, release metadata), declared by each model of the
    #: model table on its own class (a subclass is not the table's model: it is named by its class name)
    public_name: ClassVar[str | None] = None

    def __post_init__(self) -> None:
        check_params(type(self).__name__, self.params, self._parameter_constraints)

    @property
    def params(self) -> dict[str, Any]:
        return {f.name: getattr(self, f.name) for f in dataclasses.fields(cast(Any, self))}

    def __str__(self) -> str:
        inner = ", ".join(f"{k}={v!r}" for k, v in self.params.items() if v is not None)
        return f"{type(self).__name__}({inner})"

    def scope_on(self, recoding: str) -> str:
        """Where this model's verdict is computed on a release of this recoding kind.

        ``"class"``: per equivalence class of identical published rows; ``"matches"``: per
        original record over the consistency graph (local / freeform recodings, and the k-type
        graph models and freeform k-anonymity always).
        """
        scope = getattr(self, "scope", None)
        if scope in ("class", "matches"):
            return scope
        if self.graph_scope:
            return "matches"
        if scope == "auto":
            return "matches" if recoding in ("local", "freeform") else "class"
        return "class"

    def metadata_record(self, recoding: str) -> dict[str, Any]:
        """How a release file's metadata names this model: its public name (the model table's,
        as ``ktype check --model`` accepts it), parameters and the scope it is checked in on a
        release of this recoding kind (``"class"`` or ``"matches"``)."""
        name = type(self).__dict__.get("public_name") or type(self).__name__
        params = {k: v for k, v in self.params.items() if v is not None and k != "scope"}
        return {"name": name, "model": str(self), "params": params, "scope": self.scope_on(recoding)}

    def protects_nothing(self) -> str | None:
        """``"k = 1"`` (``"ℓ = 1"``, ``"p = 1"``) when these parameters hold for every
        release — one-record classes, each with a single sensitive value —, else None.

        Judged from the parameter alone: ``k``, ``l`` or ``p`` at most 1. Models without
        such a parameter (t-closeness) are never called trivial.
        """
        for name, label in (("k", "k"), ("l", "ℓ"), ("p", "p")):
            value = getattr(self, name, None)
            if value is not None:
                return f"{label} = 1" if value <= 1 else None
        return None

    def validate(self, dataset: Dataset) -> None:
        """Check data-dependent bounds (e.g. ``k <= n``). Called once by the entry point."""
        k = getattr(self, "k", None)
        if k is not None and k > dataset.n:
            raise InvalidParameterError(f"k={k} exceeds the number of rows ({dataset.n}) in the table.")
        if self.needs_sensitive:
            dataset.sensitive_column(getattr(self, "sensitive", None))

    def check(self, release: Release) -> CheckResult:  # pragma: no cover - abstract
        raise NotImplementedError(f"{type(self).__name__} has no checker")


def equivalence_classes(release: Release) -> tuple[np.ndarray, int]:
    """Equivalence classes of a release: rows with identical published QI values.

    Suppressed rows get class ``-1``. Returns ``(class_of_row, n_classes)``.
    """
    keep = ~release.suppressed
    ids = np.full(release.n, -1, dtype=np.int64)
    if keep.all() and release.n:  # nothing suppressed: group the arrays as they are (no copy)
        return group_rows(release.lo, release.hi)
    if keep.any():
        sub, g = group_rows(release.lo[keep], release.hi[keep])
        ids[keep] = sub
        return ids, g
    return ids, 0


def class_histograms(class_of: np.ndarray, n_classes: int, codes: np.ndarray, n_values: int) -> np.ndarray:
    """Matrix ``(n_classes, n_values)`` of sensitive-value counts per class."""
    keep = class_of >= 0
    flat = class_of[keep] * n_values + codes[keep]
    return np.bincount(flat, minlength=n_classes * n_values).reshape(n_classes, n_values)


class ClassModel(PrivacyModel):
    """A model defined per equivalence class: subclasses implement :meth:`class_verdicts`."""

    per_class: ClassVar[bool] = True

    def sensitive_name(self, dataset: Dataset) -> str | None:
        if not self.needs_sensitive:
            return None
        return dataset.sensitive_column(getattr(self, "sensitive", None))

    def class_verdicts(self, sizes: np.ndarray, hist: np.ndarray | None, dataset: Dataset) -> np.ndarray:
        """Vector of booleans, one per class, from class sizes and sensitive histograms."""
        raise NotImplementedError

    def rule_spec(self, dataset: Dataset) -> RuleSpec | None:
        """The per-class rule as the algorithms' compiled predicate reads it (a rule code and
        its parameters, :mod:`ktype.models._rulespec`), or None when the model declares none
        (algorithms then fall back to :meth:`class_verdicts`).

        A subclass inherits its base's spec; a subclass that changes the rule overrides both
        this and :meth:`class_verdicts`. ``tests/test_rules.py`` checks that the two agree.
        """
        return None

    def check(self, release: Release) -> CheckResult:
        ds = release.dataset
        class_of, g = equivalence_classes(release)
        sizes = np.bincount(class_of[class_of >= 0], minlength=g)
        hist = None
        col = self.sensitive_name(ds)
        if col is not None:
            hist = class_histograms(class_of, g, release.sensitive_codes(col), len(ds.sensitive_values[col]))
        ok_class = self.class_verdicts(sizes, hist, ds) if g else np.zeros(0, dtype=bool)
        per_record = np.ones(release.n, dtype=bool)
        pub = class_of >= 0
        per_record[pub] = ok_class[class_of[pub]]
        summary = {
            "per": PER_RELEASED_ROW,
            "classes": g,
            "smallest_class": int(sizes.min()) if g else 0,
            "failing_classes": int((~ok_class).sum()),
            "failing_records": int((~per_record).sum()),
            "suppressed": release.n_suppressed,
        }
        return CheckResult(str(self), bool(per_record.all()), per_record, summary)

