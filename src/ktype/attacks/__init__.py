"""Attacks and risk diagnostics on a release.

* :func:`match_posteriors` — the matching adversary of the k-concealment paper (Tassa,
  Mazza & Gionis 2012, §5.2): strongly connected components of the consistency graph and,
  for small components, the exact posterior that each released row belongs to each record
  (:class:`MatchPosteriors`).
* :func:`link` — the linking attack of the k-anonymity survey (Ciriani et al. 2007, §1,
  Figs. 1–2): join a release with an identified external table and report the records linked
  uniquely or to fewer than k rows (:class:`LinkReport`).
* :func:`release_risk`, :func:`dataset_risk` — prosecutor re-identification risk
  (:class:`RiskReport`), per record and summarized, as in ARX's risk view.
"""

from .linking import LinkReport, link, link_files
from .matching import MatchPosteriors, match_posteriors
from .risk import RiskReport, dataset_risk, release_risk

__all__ = ["LinkReport", "link", "link_files", "MatchPosteriors", "match_posteriors", "RiskReport", "dataset_risk", "release_risk"]
