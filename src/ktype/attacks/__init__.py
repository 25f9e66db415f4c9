"""Attacks on a release.

* :func:`match_posteriors` — the matching adversary of the k-concealment paper (Tassa,
  Mazza & Gionis 2012, §5.2): strongly connected components of the consistency graph and,
  for small components, the exact posterior that each released row belongs to each record
  (:class:`MatchPosteriors`).
* :func:`link` — the linking attack of the k-anonymity survey (Ciriani et al. 2007, §1,
  Figs. 1–2): join a release with an identified external table and report the records linked
  uniquely or to fewer than k rows (:class:`LinkReport`).

Re-identification risk (prosecutor, journalist, marketer; population uniqueness; SUDA) is
:mod:`ktype.risk`.
"""

from .linking import LinkReport, link, link_files
from .matching import MatchPosteriors, match_posteriors

__all__ = ["LinkReport", "link", "link_files", "MatchPosteriors", "match_posteriors"]
