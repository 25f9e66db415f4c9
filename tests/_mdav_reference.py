"""Plain-numpy MDAV and V-MDAV (quadratic scans, no k-d tree): the oracle of test_microaggregation.

Written from Domingo-Ferrer & Torra (2005, MDAV-generic) and Solanas & Martínez-Ballesté
(2006, V-MDAV); ties go to the lowest index, as in ktype's kernel. For small tables only.
"""

from __future__ import annotations

import numpy as np


def _far(P, alive, q):
    d = ((P - q) ** 2).sum(axis=1)
    d[~alive] = -1.0
    return int(np.flatnonzero(d == d.max())[0])


def _knn(P, alive, q, m):
    d = ((P - q) ** 2).sum(axis=1)
    idx = np.flatnonzero(alive)
    order = np.lexsort((idx, d[idx]))
    return idx[order[:m]]


def mdav_reference(P: np.ndarray, k: int) -> np.ndarray:
    n = len(P)
    alive = np.ones(n, dtype=bool)
    label = np.full(n, -1)
    g = 0
    while alive.sum() >= 3 * k:
        c = P[alive].mean(axis=0)
        xr = _far(P, alive, c)
        xs = _far(P, alive, P[xr])
        for x in (xr, xs):
            if not alive[x]:
                x = _far(P, alive, P[xr])
            grp = _knn(P, alive, P[x], k)
            label[grp] = g
            alive[grp] = False
            g += 1
    if alive.sum() >= 2 * k:
        xr = _far(P, alive, P[alive].mean(axis=0))
        grp = _knn(P, alive, P[xr], k)
        label[grp] = g
        alive[grp] = False
        g += 1
    if alive.any():
        label[alive] = g
    return label


def vmdav_reference(P: np.ndarray, k: int, gamma: float) -> np.ndarray:
    n = len(P)
    alive = np.ones(n, dtype=bool)
    label = np.full(n, -1)
    g = 0
    while alive.sum() >= k:
        xr = _far(P, alive, P[alive].mean(axis=0))
        grp = list(_knn(P, alive, P[xr], k))
        alive[grp] = False
        while len(grp) < 2 * k - 1 and alive.any():
            D = ((P[grp][:, None, :] - P[None, :, :]) ** 2).sum(axis=2).min(axis=0)
            D[~alive] = np.inf
            e = int(np.flatnonzero(D == D.min())[0])
            d_in = np.sqrt(D[e])
            others = alive.copy()
            others[e] = False
            d_out = np.sqrt(((P[others] - P[e]) ** 2).sum(axis=1).min()) if others.any() else np.inf
            if not d_in < gamma * d_out:
                break
            grp.append(e)
            alive[e] = False
        label[grp] = g
        g += 1
    if alive.any():
        cen = np.array([P[label == h].mean(axis=0) for h in range(g)])
        for i in np.flatnonzero(alive):
            label[i] = int(np.argmin(((cen - P[i]) ** 2).sum(axis=1)))
    return label
