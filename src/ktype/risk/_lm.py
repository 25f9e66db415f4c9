"""A small Levenberg-Marquardt for SNB's two moment equations (:mod:`ktype.risk.uniqueness`).

Kept out of scipy on purpose: ``import scipy.optimize`` costs about a quarter of a second, a
quarter of a cold ``ktype risk`` command (``docs/dependencies.md``).
"""

from __future__ import annotations

from typing import Any

import numpy as np

__all__ = ["levenberg_marquardt"]


def levenberg_marquardt(f: Any, x0: np.ndarray, *, max_iter: int = 200) -> tuple[np.ndarray, float]:
    """Minimize ``0.5 |f(x)|^2`` for the two SNB moment equations from ``x0``: Levenberg-
    Marquardt steps (Marquardt's diagonal scaling, central-difference Jacobian), stopped when a
    step changes ``x`` or the cost by less than a relative 1e-12. Returns ``(x, cost)``.

    Written here rather than taken from ``scipy.optimize.least_squares`` (which gives the same
    roots, tests/test_risk_uniqueness.py): importing ``scipy.optimize`` costs about a quarter
    of a second, a quarter of a cold ``ktype risk`` command, for a 2 x 2 system."""
    x = np.asarray(x0, dtype=np.float64).copy()
    r = f(x)
    cost = 0.5 * float(r @ r)
    lam = 1e-3
    jac = np.empty((len(r), len(x)))
    for _ in range(max_iter):
        for j in range(len(x)):
            h = 1e-7 * max(1.0, abs(float(x[j])))
            e = np.zeros_like(x)
            e[j] = h
            jac[:, j] = (f(x + e) - f(x - e)) / (2 * h)
        A = jac.T @ jac
        g = jac.T @ r
        while True:
            M = A + lam * np.diag(np.maximum(np.diag(A), 1e-300))
            try:
                step = np.linalg.solve(M, -g)
            except np.linalg.LinAlgError:
                step = np.full_like(x, np.nan)
            x_new = x + step
            r_new = f(x_new)
            cost_new = 0.5 * float(r_new @ r_new)
            if np.isfinite(cost_new) and cost_new <= cost:
                lam = max(lam / 10, 1e-15)
                break
            lam *= 10
            if lam > 1e16:  # no step lowers the cost: a (local) minimum
                return x, cost
        done = (abs(cost - cost_new) <= 1e-12 * max(cost, 1e-300)
                or float(np.abs(step).max()) <= 1e-12 * (float(np.abs(x).max()) + 1e-12))
        x, r, cost = x_new, r_new, cost_new
        if done or cost == 0.0:
            break
    return x, cost
