"""The k-type family beside k-anonymity: (1,k)-, (k,1)-, (k,k)-anonymity and k-concealment.

Tassa, Mazza & Gionis [1]_. All four read the consistency graph ``V_{D,g(D)}`` between the
original records (dataset rows) and the released rows (:mod:`ktype.models._graph`): an edge
joins ``R_i`` and ``R̄_j`` iff the released box ``R̄_j`` contains ``R_i``. They are meant
for **local recoding**; under single-dimensional global recoding (and multidimensional
recoding with disjoint regions) they coincide with k-anonymity, but not under overlapping
multidimensional covers, although the paper (end of §4.2) says they coincide under any
global recoding: ``test_ktype_models.py::test_overlapping_multidimensional_counterexample``
has a three-record table where they differ.

Class relations (Prop. 5, 7): ``k-anonymous ⊆ (k,k) = (1,k) ∩ (k,1)`` and
``k-anonymous ⊆ k-concealed ⊆ (1,k)``. All four are **monotone under further
generalization** (enlarging any released box only adds edges; perfect matchings are never
destroyed, so matches only grow) and monotone in ``k``; hence ``monotone = True``.
``per_class = False``: none is a per-equivalence-class property.

Verdicts: ``per_record`` of (1,k)-anonymity and k-concealment is per **original record**
(dataset row order); of (k,1)-anonymity per **released row** (release row order). The
``summary["per"]`` entry says which. Suppressed rows stay in the graph as whole-domain
boxes (see :mod:`ktype.models._graph` for why, and for the ``0 < s < k`` caveat).

References
----------
.. [1] T. Tassa, A. Mazza, A. Gionis. k-Concealment: an alternative model of k-type
   anonymity. Transactions on Data Privacy 5(1), 2012. Def. 4 ((1,k), (k,1), (k,k)), Def. 6
   (k-concealment), Prop. 5 and 7 (inclusions), §6.2 Algorithm 4 (matches).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from .._validation import Interval
from ..release import Release
from ._base import PER_ORIGINAL_RECORD, PER_RELEASED_ROW, CheckResult, PrivacyModel
from ._graph import consistency_graph

__all__ = ["OneKAnonymity", "KOneAnonymity", "KKAnonymity", "KConcealment"]

_K = {"k": [Interval(int, 1, None, closed="left")]}


def _min(x: np.ndarray) -> int:
    return int(x.min()) if len(x) else 0


class _KTypeModel(PrivacyModel):
    """Shared flags of the k-type graph models."""

    per_class: ClassVar[bool] = False
    #: preserved by any further generalization of released rows (enlarging a box only adds
    #: edges to the consistency graph, so matches only grow; see the module docstring)
    monotone: ClassVar[bool] = True
    #: preserved when ``k`` decreases
    monotone_in_k: ClassVar[bool] = True
    #: what ``CheckResult.per_record`` is indexed by (``CheckResult.per``)
    per: ClassVar[str] = PER_ORIGINAL_RECORD
    #: judged per original record over the consistency graph, whatever the recoding
    graph_scope: ClassVar[bool] = True


def _degree_result(model: str, degrees: np.ndarray, k: int, per: str, release: Release) -> CheckResult:
    """Verdict "degree >= k" per node of one side of the consistency graph."""
    ok = degrees >= k
    summary: dict[str, Any] = {
        "per": per,
        "min_degree": _min(degrees),
        "failing_records": int((~ok).sum()),
        "suppressed": release.n_suppressed,
    }
    return CheckResult(model, bool(ok.all()), ok, summary)


@dataclass(frozen=True)
class OneKAnonymity(_KTypeModel):
    """(1,k)-anonymity: every original record is consistent with at least ``k`` released rows.

    Tassa et al. Def. 4: every node of ``D`` has degree ``>= k`` in the consistency graph
    (the record's own row included). Guards against "given the target's quasi-identifiers,
    find its released row". Verdicts per original record.

    Parameters
    ----------
    k : int
        Minimum degree, ``k >= 1``.
    """

    public_name: ClassVar[str | None] = "1k-anonymity"

    k: int
    _parameter_constraints: ClassVar[dict] = _K

    def check(self, release: Release) -> CheckResult:
        deg_o, _ = consistency_graph(release).degrees()
        return _degree_result(str(self), deg_o, self.k, PER_ORIGINAL_RECORD, release)


@dataclass(frozen=True)
class KOneAnonymity(_KTypeModel):
    """(k,1)-anonymity: every released row is consistent with at least ``k`` original records.

    Tassa et al. Def. 4 (= k-ambiguity): every released node has degree ``>= k``. Guards
    against "given a released row, find whose it is". Verdicts per released row (release
    row order); a suppressed row covers everyone and passes whenever ``k <= n``.

    Parameters
    ----------
    k : int
        Minimum degree, ``k >= 1``.
    """

    public_name: ClassVar[str | None] = "k1-anonymity"

    k: int
    _parameter_constraints: ClassVar[dict] = _K
    per: ClassVar[str] = PER_RELEASED_ROW

    def check(self, release: Release) -> CheckResult:
        _, deg_r = consistency_graph(release).degrees()
        return _degree_result(str(self), deg_r, self.k, PER_RELEASED_ROW, release)


@dataclass(frozen=True)
class KKAnonymity(_KTypeModel):
    """(k,k)-anonymity: both (1,k)- and (k,1)-anonymity (Tassa et al. Def. 4).

    ``per_record`` is per **original record** (degree ``>= k``); the released side is
    reported in the summary (``min_released_degree``, ``failing_released_rows``), and
    ``satisfied`` requires both sides. So ``satisfied`` can be False while every entry of
    ``per_record`` is True.

    Parameters
    ----------
    k : int
        Minimum degree on both sides, ``k >= 1``.
    """

    public_name: ClassVar[str | None] = "kk-anonymity"

    k: int
    _parameter_constraints: ClassVar[dict] = _K

    def check(self, release: Release) -> CheckResult:
        deg_o, deg_r = consistency_graph(release).degrees()
        ok = deg_o >= self.k
        ok_r = deg_r >= self.k
        summary: dict[str, Any] = {
            "per": PER_ORIGINAL_RECORD,
            "min_degree": _min(deg_o),
            "failing_records": int((~ok).sum()),
            "min_released_degree": _min(deg_r),
            "failing_released_rows": int((~ok_r).sum()),
            "suppressed": release.n_suppressed,
        }
        return CheckResult(str(self), bool(ok.all() and ok_r.all()), ok, summary)


@dataclass(frozen=True)
class KConcealment(_KTypeModel):
    """k-concealment: every original record has at least ``k`` matches.

    Tassa et al. Def. 6: a released row is a *match* of ``R_i`` iff it is consistent with
    ``R_i`` and the edge lies on some perfect matching of the consistency graph (computed
    by the multiplicity-aware Algorithm 4 of :mod:`ktype.models._graph`). Even an adversary
    who knows every record of the table cannot narrow a target to fewer than ``k`` released
    rows without counting perfect matchings (see :func:`ktype.attacks.match_posteriors`
    for what small components still leak). Verdicts per original record.

    Parameters
    ----------
    k : int
        Minimum number of matches, ``k >= 1``.
    """

    public_name: ClassVar[str | None] = "k-concealment"

    k: int
    _parameter_constraints: ClassVar[dict] = _K

    def check(self, release: Release) -> CheckResult:
        g = consistency_graph(release)
        cnt = g.match_counts()
        ok = cnt >= self.k
        _, sizes = g.components()
        summary: dict[str, Any] = {
            "per": PER_ORIGINAL_RECORD,
            "min_matches": _min(cnt),
            "failing_records": int((~ok).sum()),
            "components": int(len(sizes)),
            "smallest_component": _min(sizes),
            "suppressed": release.n_suppressed,
        }
        return CheckResult(str(self), bool(ok.all()), ok, summary)
