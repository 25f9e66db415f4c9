"""Freeform generalization (Doka, Xue, Tsoumakos, Karras, ASIA CCS 2015).

Each record gets its own box (ranges and value sets) such that the generalization graph is
k-regular; the published true assignment is one of k disjoint perfect matchings, chosen
uniformly with secret randomness. See docs/freeform.md.
"""

from . import baselines, heuristics, mip  # noqa: F401
