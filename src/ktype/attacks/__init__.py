"""Attacks and risk diagnostics on a release.

* :func:`match_posteriors` — the matching adversary of the k-concealment paper (Tassa,
  Mazza & Gionis 2012, §5.2): strongly connected components of the consistency graph and,
  for small components, the exact posterior that each released row belongs to each record
  (:class:`MatchPosteriors`).

Re-identification risk (prosecutor, journalist, marketer; population uniqueness; SUDA) is
:mod:`ktype.risk`.
"""

from .matching import MatchPosteriors, match_posteriors

__all__ = ["MatchPosteriors", "match_posteriors"]
