"""Small releases of every algorithm family, shared by the report tests."""

from __future__ import annotations

import functools

import ktype

#: family -> (algorithm, parameters, dataset keyword arguments); randomized ones get rng=1
FAMILIES: dict[str, tuple[str, dict, dict]] = {
    "full-domain": ("flash", {"k": 3, "l": 2}, {}),
    "mondrian": ("mondrian", {"k": 5, "t": 0.3}, {}),
    "local": ("agglomerative", {"k": 4}, {}),
    "k_concealment": ("k_concealment", {"k": 3, "rng": 1}, {}),
    "freeform": ("freeform_greedy", {"k": 3, "rng": 1}, {}),
    "transparent": ("hybrid", {"l": 3, "rng": 1}, {"quasi_identifiers": ["sex", "age", "race", "education"],
                                         "sensitive": ("occupation",)}),
}

N = 160


@functools.cache
def release(family: str) -> ktype.Release:
    """The release of ``family`` on the first ``N`` Adult rows (seeded where randomized; the
    provenance's clock and timings fixed, so that a report's pixels do not change between runs)."""
    alg, params, kw = FAMILIES[family]
    ds = ktype.load_adult(n=N, **kw)
    rel = ktype.anonymize(ds, algorithm=alg, **params)
    return rel.replace(provenance={**rel.provenance, "created": "2026-01-01T00:00:00Z",
                                   "timings": {k: 0.0 for k in rel.provenance.get("timings", {})}})
