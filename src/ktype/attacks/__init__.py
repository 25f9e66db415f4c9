"""Attacks and risk diagnostics on a release.

* :func:`match_posteriors` — the matching adversary of the k-concealment paper (Tassa,
  Mazza & Gionis 2012, §5.2): strongly connected components of the consistency graph and,
  for small components, the exact posterior that each released row belongs to each record
  (:class:`MatchPosteriors`).
* :func:`release_risk`, :func:`dataset_risk` — prosecutor re-identification risk
  (:class:`RiskReport`), per record and summarized, as in ARX's risk view.
"""

from .matching import MatchPosteriors, match_posteriors
from .risk import RiskReport, dataset_risk, release_risk

__all__ = ["MatchPosteriors", "match_posteriors", "RiskReport", "dataset_risk", "release_risk"]
