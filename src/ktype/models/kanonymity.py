"""k-anonymity (Samarati & Sweeney; survey Def. 2)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from .._validation import Interval
from ..data.dataset import Dataset
from ._base import ClassModel
from ._rulespec import MIN_SIZE, RuleSpec

__all__ = ["KAnonymity"]


@dataclass(frozen=True)
class KAnonymity(ClassModel):
    """k-anonymity: every published combination of QI values occurs at least ``k`` times.

    Ciriani et al., survey §2, Definition 2. Suppressed records are removed from the
    release and do not count toward any class (tuple suppression of the AG_TS model: a
    generalized table may have fewer tuples than the original, survey §2.2 Definition 3
    and §3); they are not an all-``*`` class that would itself need ``k`` members.

    Parameters
    ----------
    k : int
        Minimum equivalence-class size, ``k >= 1``.
    """

    public_name: ClassVar[str | None] = "k-anonymity"

    k: int
    _parameter_constraints: ClassVar[dict] = {"k": [Interval(int, 1, None, closed="left")]}

    def class_verdicts(self, sizes: np.ndarray, hist: np.ndarray | None, dataset: Dataset) -> np.ndarray:
        return sizes >= self.k

    def rule_spec(self, dataset: Dataset) -> RuleSpec:
        """``size >= k``."""
        return RuleSpec(MIN_SIZE, (int(self.k),))
