"""Full-domain (attribute-level) generalization with tuple suppression: the lattice algorithms.

Survey model AG_TS (Ciriani et al. 2007, §2–§4). Every algorithm here publishes each
quasi-identifier at one level of its hierarchy (a *level vector*, ``release.levels``) and
suppresses the records of classes that fail the privacy models, within ``max_suppression``.

Public (also registered by name in :mod:`ktype.algorithms`):

``flash``        optimal lattice search (exact for every measure; Flash-style pruning)
``exhaustive``   evaluates every node (test oracle; Sweeney's MinGen)
``samarati``     binary search on height with the tuple distance-vector matrix
``incognito``    a-priori search over QI subsets with roll-up (all k-anonymous nodes)
``datafly``      Sweeney's greedy heuristic with final suppression
``k_optimize``   Bayardo–Agrawal set enumeration over ordered interval splits (DM)
``lightning``    best-effort anytime search for many QIs (time / node budget; Prasser et al. 2016)
``genetic``      best-effort genetic search for many QIs (time / node budget, rng; Wirth et al., ARX)
``lattice_search``  the optimal / exhaustive search returning a :class:`LatticeResult`
``Lattice``, ``LatticeResult``, ``preference``, ``MEASURES``

See ``docs/fulldomain.md``.
"""

from ._api import exhaustive, flash, lattice_search
from ._datafly import datafly
from ._engine import MEASURES
from ._genetic import genetic
from ._incognito import incognito
from ._koptimize import k_optimize
from ._lattice import Lattice, LatticeResult, preference
from ._lightning import lightning
from ._samarati import samarati

__all__ = [
    "MEASURES",
    "Lattice",
    "LatticeResult",
    "datafly",
    "exhaustive",
    "flash",
    "genetic",
    "incognito",
    "k_optimize",
    "lightning",
    "lattice_search",
    "preference",
    "samarati",
]
