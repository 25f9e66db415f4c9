"""``ktype.check``: one signature, one result — what a release achieves, and whether it holds.

:func:`check` takes a release (in memory, a file or a published table), the models to check
(default: those the release claims) and, keyword-only, the original it was made from. It
always returns a :class:`CheckReport`: pass/fail, one :class:`Verdict` per model with the
level the release *achieves* ("7-anonymous, distinct 2-diverse, 0.31-close", as pycanon and
sdcMicro report it) beside the level required, and the audit's findings when the release
came from outside (a file or a table is audited against the original first:
:func:`ktype.audit.audit`).

An in-memory release carries its original; an ``original`` given with it must be that table
(compared by a fingerprint of the columns the release publishes), otherwise the report fails
with a finding naming the difference — a check never passes a release against a table it was
not made from.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from ._progress import ProgressLike, reporting
from .audit import Finding, audit
from .data.dataset import Dataset
from .exceptions import InvalidParameterError
from .models._base import CheckResult, PrivacyModel
from .release import Release

__all__ = ["check", "CheckReport", "Verdict", "achieved", "fingerprint"]


@dataclass(frozen=True)
class Verdict:
    """One model's outcome: the model, whether it holds, and the level the release achieves."""

    model: str
    satisfied: bool
    achieved: str
    value: float | None
    result: CheckResult

    def __str__(self) -> str:
        return f"{'✓' if self.satisfied else '✗'} {self.model}: {self.achieved}"


@dataclass(frozen=True)
class CheckReport:
    """The outcome of :func:`check`.

    ``passed``: every model holds and the audit (for a file or table) found nothing.
    ``verdicts``: one per model, in the order given. ``findings``: why the release is not a
    release of this original (empty when it is). ``facts``: what the audit established.
    ``str(report)`` is the achieved levels in words.
    """

    verdicts: tuple[Verdict, ...]
    findings: tuple[Finding, ...] = ()
    facts: Mapping[str, Any] = field(default_factory=dict)

    @property
    def passed(self) -> bool:
        return not self.findings and bool(self.verdicts) and all(v.satisfied for v in self.verdicts)

    @property
    def results(self) -> list[CheckResult]:
        """The checkers' own results (per-record verdicts and summaries), in model order."""
        return [v.result for v in self.verdicts]

    def __bool__(self) -> bool:
        return self.passed

    def __str__(self) -> str:
        if self.findings:
            return "not a release of this original: " + " ".join(str(f) for f in self.findings)
        return ", ".join(v.achieved for v in self.verdicts) or "no model checked"

    def to_dict(self) -> dict[str, Any]:
        return {
            "passed": self.passed,
            "achieved": str(self),
            "models": [{"model": v.model, "satisfied": v.satisfied, "achieved": v.achieved, "value": v.value,
                        "summary": _plain(v.result.summary)} for v in self.verdicts],
            "findings": [f.to_dict() for f in self.findings],
        }


def _plain(x: Any) -> Any:
    if isinstance(x, Mapping):
        return {str(k): _plain(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [_plain(v) for v in x]
    if isinstance(x, np.generic):
        return x.item()
    return x


def _num(v: float) -> str:
    if isinstance(v, float) and math.isinf(v):
        return "∞"
    return f"{v:.3g}" if isinstance(v, float) and not float(v).is_integer() else str(int(v))


#: summary key holding the achieved level, and how to say it, per model family (first match wins)
_ACHIEVED: tuple[tuple[str, str, str], ...] = (
    ("KConcealment", "min_matches", "{v}-concealed"),
    ("FreeformKAnonymity", "min_matches", "{v} equiprobable matches per record"),
    ("KKAnonymity", "min_degree", "({v},{v})-anonymous"),
    ("OneKAnonymity", "min_degree", "(1,{v})-anonymous"),
    ("KOneAnonymity", "min_degree", "({v},1)-anonymous"),
    ("KAnonymity", "smallest_class", "{v}-anonymous"),
    ("DistinctLDiversity", "min_distinct", "distinct {v}-diverse"),
    ("PSensitivity", "min_distinct", "p-sensitive with p = {v}"),
    ("EntropyLDiversity", "min_effective_l", "entropy {v}-diverse"),
    ("FrequencyLDiversity", "min_diversity", "frequency {v}-diverse"),
    ("RecursiveCLDiversity", "max_r1_over_tail", "recursive: most frequent value ≤ {v} × the tail"),
    ("TCloseness", "max_emd", "{v}-close"),
)


def achieved(model: PrivacyModel, result: CheckResult) -> tuple[str, float | None]:
    """What ``result`` says the release achieves for ``model``, in words and as a number.

    Judged by the model's family (a subclass of a model is described as its base). For the
    k-type graph models with two sides, the weaker side is reported.
    """
    summary = result.summary
    for cls in type(model).__mro__:
        for name, key, text in _ACHIEVED:
            if cls.__name__ == name and key in summary:
                v = summary[key]
                if name == "KKAnonymity" and "min_released_degree" in summary:
                    v = min(v, summary["min_released_degree"])
                value = float(v)
                return text.format(v=_num(value)), value
    return ("satisfied" if result.satisfied else "violated"), None


def fingerprint(table: pd.DataFrame | Dataset, columns: Sequence[str]) -> str:
    """A hash of ``columns`` of a table (values and row order; column order as given)."""
    data = table.data if isinstance(table, Dataset) else table
    missing = [c for c in columns if c not in data.columns]
    if missing:
        return "missing columns: " + ", ".join(map(str, missing))
    frame = data[list(columns)].astype(str)
    h = pd.util.hash_pandas_object(frame, index=False).to_numpy()
    return f"{len(frame)}:{int(np.bitwise_xor.reduce(h * np.arange(1, len(h) + 1, dtype=np.uint64))) if len(h) else 0:x}"


def _models(release: Release | None, models: Any) -> list[PrivacyModel]:
    if models is None:
        models = release.models if release is not None else None
    if models is None:
        return []
    if isinstance(models, PrivacyModel):
        return [models]
    out = list(models)
    for m in out:
        if not isinstance(m, PrivacyModel):
            raise InvalidParameterError(f"models must be privacy models; got {type(m).__name__}.")
    return out


def _report(models: Sequence[PrivacyModel], results: Sequence[CheckResult], findings: Sequence[Finding] = (),
            facts: Mapping[str, Any] | None = None) -> CheckReport:
    verdicts = []
    for m, r in zip(models, results):
        text, value = achieved(m, r)
        verdicts.append(Verdict(str(m), bool(r.satisfied), text, value, r))
    return CheckReport(tuple(verdicts), tuple(findings), dict(facts or {}))


def check(
    release: Release | pd.DataFrame | str | Path,
    models: PrivacyModel | Sequence[PrivacyModel] | None = None,
    *,
    original: pd.DataFrame | Dataset | None = None,
    progress: ProgressLike = None,
    **roles: Any,
) -> CheckReport:
    """Check a release against privacy models; report what it achieves.

    Parameters
    ----------
    release : Release, path or DataFrame
        An in-memory :class:`~ktype.Release`, a release file (CSV with its ``.ktype.json``
        sidecar, or Parquet with its metadata) or a published table.
    models : model or list, optional
        Default: the models the release claims (``Release.models`` or the file's metadata).
    original : DataFrame or Dataset, keyword-only
        The table the release was made from. Required for a file or a table (which is first
        audited against it); for an in-memory release it must be the release's own original.
    progress : None, callable, True or "auto"
        Progress of the audit and the checks (:mod:`ktype._progress`).
    **roles
        For a file or table: :func:`ktype.audit.audit`'s keywords (``quasi_identifiers``,
        ``sensitive``, ``identifiers``, ``insensitive``, ``hierarchies``, ``recoding``,
        ``metadata``, ``sep``, ``missing``).

    Returns
    -------
    CheckReport
        ``report.passed``, ``str(report)`` (e.g. ``"7-anonymous, distinct 2-diverse"``),
        one verdict per model.

    Examples
    --------
    >>> import ktype
    >>> from ktype.models import KAnonymity
    >>> rel = ktype.algorithms.run("mondrian", ktype.load_adult(n=500), KAnonymity(5))
    >>> report = ktype.check(rel)
    >>> report.passed, str(report).endswith("-anonymous")
    (True, True)
    """
    with reporting(progress):
        if isinstance(release, Release):
            if roles:
                raise InvalidParameterError(
                    f"An in-memory release carries its roles; {', '.join(sorted(roles))} apply to files and tables only.")
            chosen = _models(release, models)
            if not chosen:
                raise InvalidParameterError("The release claims no model: say which to check (models=...).")
            if original is not None:
                cols = [c for c in release.dataset.data.columns if c not in release.dataset.identifiers]
                mine, theirs = fingerprint(release.dataset, cols), fingerprint(original, cols)
                if mine != theirs:
                    return _report(chosen, [m.check(release) for m in chosen], [Finding(
                        "original", "The original given is not the table this release was made from (its columns "
                        f"{', '.join(map(str, cols))} differ in values, order or number of rows); check the release "
                        "against its own original.")], {"fingerprint": {"release": mine, "original": theirs}})
            return _report(chosen, [m.check(release) for m in chosen])
        if original is None:
            raise InvalidParameterError(
                "A release file or table is checked against its original: give original=... (the table it was made "
                "from; it is audited first).")
        if not isinstance(release, (str, Path, pd.DataFrame)):
            raise InvalidParameterError(
                f"release must be a Release, a file path or a DataFrame; got {type(release).__name__}.")
        rep = audit(original, release, models, **roles)
        if rep.findings:
            return CheckReport((), tuple(rep.findings), dict(rep.facts))
        return _report(rep.models, rep.results, (), rep.facts)
