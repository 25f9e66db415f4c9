"""How a class-based privacy model declares its rule to the algorithms: a :class:`RuleSpec`.

A model defined per equivalence class (``ClassModel``) decides each class from two things:
its size and the histogram of its sensitive values. Its checker (``class_verdicts``) does
that in numpy with exact fractions. The algorithms need the same decision millions of times
inside compiled loops, so each model also *declares* its rule as a small spec: an integer
rule code from the table below plus numeric parameters. One compiled predicate on the
algorithm side (``ktype.algorithms._rules``) evaluates every code; no algorithm looks at the
model's class. See ``docs/design/rules.md``.

Rule codes (``h`` = the class's sensitive histogram, ``size`` = its number of records)
------------------------------------------------------------------------------------
================  ==========================================  =================================
code              accepts a class iff                          parameters
================  ==========================================  =================================
``MIN_SIZE``      ``size >= k``                                ``ints = (k,)``
``DISTINCT``      ``#{v : h[v] > 0} >= l``                     ``ints = (l,)``
``FREQUENCY``     ``max_{v in mask} h[v] · num <= size · den`` ``ints = (num, den)``; ``mask``
``RECURSIVE``     ``r_1 · den < (r_l + … + r_m) · num``        ``ints = (l, num, den)``
``ENTROPY``       ``−Σ p log p >= thr``                        ``reals = (thr,)``
``EMD_EQUAL``     ``½ Σ |p − q| <= thr``                       ``reals = (thr,)``; ``q``
``EMD_ORDERED``   ``Σ_i |Σ_{v<=i} (p − q)| / (m − 1) <= thr``  ``reals = (thr,)``; ``q``
``EMD_TREE``      hierarchical EMD ``<= thr``                  ``reals = (thr,)``; ``q``, ``tree``
================  ==========================================  =================================

The integer rules are exact. For the two real-valued rules the model puts its checker's own
threshold in ``thr``: ``log l − TOLERANCE`` for entropy, ``t + TOLERANCE`` for the EMD
(``TOLERANCE = 1e-10``, :mod:`ktype.models.ldiversity`); the algorithm side adds its guard
(``ktype.algorithms._rules.GUARD``) so that it never accepts a class the checker rejects.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

__all__ = [
    "RuleSpec",
    "MIN_SIZE",
    "DISTINCT",
    "FREQUENCY",
    "RECURSIVE",
    "ENTROPY",
    "EMD_EQUAL",
    "EMD_ORDERED",
    "EMD_TREE",
    "REAL_VALUED",
    "RULE_NAMES",
]

MIN_SIZE = 1
DISTINCT = 2
FREQUENCY = 3
RECURSIVE = 4
ENTROPY = 5
EMD_EQUAL = 6
EMD_ORDERED = 7
EMD_TREE = 8

RULE_NAMES = {
    MIN_SIZE: "min-size",
    DISTINCT: "distinct",
    FREQUENCY: "frequency",
    RECURSIVE: "recursive",
    ENTROPY: "entropy",
    EMD_EQUAL: "emd-equal",
    EMD_ORDERED: "emd-ordered",
    EMD_TREE: "emd-tree",
}
#: rules decided on a floating-point score (the others are exact integer tests)
REAL_VALUED = frozenset({ENTROPY, EMD_EQUAL, EMD_ORDERED, EMD_TREE})


@dataclass(frozen=True, eq=False)
class RuleSpec:
    """A model's per-class rule, as the compiled predicate reads it (table in the module
    docstring).

    Attributes
    ----------
    code : int
        One of the rule codes of this module.
    ints, reals : tuple
        The integer and real parameters of the rule (table).
    column : str or None
        The sensitive column whose histogram the rule reads (None: only the size).
    q : ndarray of float, optional
        The whole table's sensitive distribution (EMD rules).
    mask : ndarray of bool, optional
        The values whose counts the frequency rule bounds (None: every value).
    tree : tuple of ndarrays, optional
        ``(lo, hi, parent, weight)`` of the sensitive hierarchy's nodes (``EMD_TREE``): leaf-rank
        interval, parent (``parent[0]`` unused) and ``height(N)/H``.
    """

    code: int
    ints: tuple[int, ...] = ()
    reals: tuple[float, ...] = ()
    column: str | None = None
    q: np.ndarray | None = None
    mask: np.ndarray | None = None
    tree: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray] | None = None

    def __post_init__(self) -> None:
        from ..exceptions import InternalError

        if self.code not in RULE_NAMES:
            raise InternalError(f"RuleSpec: unknown rule code {self.code!r}; known: {RULE_NAMES}")
        if self.code in (EMD_EQUAL, EMD_ORDERED, EMD_TREE) and self.q is None:
            raise InternalError(f"RuleSpec {RULE_NAMES[self.code]!r} needs q (the table's distribution)")
        if self.code == EMD_TREE and self.tree is None:
            raise InternalError("RuleSpec 'emd-tree' needs tree=(lo, hi, parent, weight)")

    @property
    def name(self) -> str:
        return RULE_NAMES[self.code]

    def __repr__(self) -> str:
        return f"RuleSpec({self.name}, ints={self.ints}, reals={self.reals}, column={self.column!r})"
