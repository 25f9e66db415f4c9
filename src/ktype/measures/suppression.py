"""Suppressed cells: the cost of the _CS model (survey §3 and §5, Aggarwal et al., ICDT 2005)."""

from __future__ import annotations

import numpy as np

from ..release import Release
from ._base import measure

__all__ = ["suppressed_cells"]


@measure(
    "suppressed_cells",
    summary="Number of suppressed QI cells (published as *; a suppressed record counts all its QI cells)",
    reference="Aggarwal et al., Anonymizing tables, ICDT 2005; Ciriani et al., k-Anonymity (survey), 2007, §3 and §5",
    bounds="[0, n·r]",
)
def suppressed_cells(release: Release) -> float:
    """The number of quasi-identifier cells published as the whole domain ``*``.

    A cell counts when it covers every value of a column that has at least two values (a
    one-value column publishes its value, not a suppression); every QI cell of a suppressed
    record counts. This is the cost the cell-suppression model (_CS) minimizes.
    """
    sizes = release.dataset.domain_sizes.astype(np.int64)
    whole = (release.lo == 0) & (release.hi == (sizes - 1)[None, :]) & (sizes > 1)[None, :]
    whole[release.suppressed] = True
    return float(whole.sum())
