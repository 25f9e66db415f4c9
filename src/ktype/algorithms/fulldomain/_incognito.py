"""Incognito (LeFevre, DeWitt & Ramakrishnan 2005; survey §4.3)."""

from __future__ import annotations

import itertools
import time

import numpy as np

from ...data.dataset import Dataset
from ...exceptions import InfeasibleError, UnsupportedModelError
from ...models._base import PrivacyModel
from ...release import Release
from .._registry import register
from ._api import CLASS_MODELS, MEASURE_OPTION, SUPPRESSION_OPTION
from ._engine import Encoded, FrequencySet, require_levels
from ._kernels import _sum_rows, fast_rollup
from ._lattice import LatticeResult, LatticeSearch, build_release, check_dense

__all__ = ["incognito"]


def _rollup_cols(enc: Encoded, src: FrequencySet, cols: tuple[int, ...], a, b) -> FrequencySet:
    maps = [enc.up(j, int(x), int(y)) for j, x, y in zip(cols, a, b)]
    offs = np.zeros(len(maps), dtype=np.int64)
    if len(maps) > 1:
        offs[1:] = np.cumsum([len(m) for m in maps])[:-1]
    tab, cnt, inv = fast_rollup(src.tab, src.cnt, maps, offs, [enc.ngroups[j][int(y)] for j, y in zip(cols, b)])
    return FrequencySet(tab, cnt, {c: _sum_rows(inv, h, len(cnt)) for c, h in src.hists.items()})


def incognito_search(enc: Encoded) -> LatticeResult:
    """A-priori bottom-up search over QI subsets; returns every feasible full-lattice node.

    Iteration ``i`` examines, for each ``i``-subset of the QIs, the candidate level
    vectors whose every ``(i-1)``-sub-vector survived iteration ``i-1`` (*subset
    property*), bottom-up by height: a node already marked (a generalization of a
    feasible node — *generalization property*) is not checked; a checked node's
    frequency set is rolled up from a checked direct specialization when there is one
    (*roll-up property*), else from the subset's projected distinct tuples.
    """
    t0 = time.perf_counter()
    check_dense("incognito", enc.heights)
    r = enc.r
    H = enc.heights
    names = enc.dataset.quasi_identifiers
    prev: dict[tuple[int, ...], set[tuple[int, ...]]] = {(): {()}}
    trace = []
    n_checks = 0
    for i in range(1, r + 1):
        cur: dict[tuple[int, ...], set[tuple[int, ...]]] = {}
        it = {"iteration": i, "checked": [], "surviving": 0}
        for cols in itertools.combinations(range(r), i):
            grids = np.stack(np.meshgrid(*[np.arange(H[j] + 1) for j in cols], indexing="ij"), axis=-1).reshape(-1, i)
            keep = np.ones(len(grids), dtype=bool)
            for p in range(i):
                sub = cols[:p] + cols[p + 1 :]
                ok_sub = prev.get(sub, set())
                proj = np.delete(grids, p, axis=1)
                keep &= np.array([tuple(int(x) for x in row) in ok_sub for row in proj], dtype=bool)
            cand = grids[keep]
            if not len(cand):
                cur[cols] = set()
                continue
            order = np.lexsort((*(cand[:, q] for q in range(i - 1, -1, -1)), cand.sum(axis=1)))
            cand = cand[order]
            marked = np.zeros(len(cand), dtype=bool)
            feasible: set[tuple[int, ...]] = set()
            fsets: dict[tuple[int, ...], FrequencySet] = {}
            base = None
            for idx in range(len(cand)):
                lv = cand[idx]
                key = tuple(int(x) for x in lv)
                if marked[idx]:
                    feasible.add(key)
                    continue
                src_key = None
                for q in range(i):
                    if lv[q] > 0:
                        pk = key[:q] + (key[q] - 1,) + key[q + 1 :]
                        if pk in fsets and (src_key is None or fsets[pk].n_rows < fsets[src_key].n_rows):
                            src_key = pk
                if src_key is not None:
                    fs = _rollup_cols(enc, fsets[src_key], cols, src_key, key)
                else:
                    if base is None:
                        proj = FrequencySet(np.ascontiguousarray(enc.bottom.tab[:, list(cols)]), enc.bottom.cnt, enc.bottom.hists)
                        base = _rollup_cols(enc, proj, cols, (0,) * i, (0,) * i)
                    fs = _rollup_cols(enc, base, cols, (0,) * i, key)
                fsets[key] = fs
                n_checks += 1
                okc = enc.verdicts(fs)
                ok = int(fs.cnt[~okc].sum()) <= enc.limit
                it["checked"].append({"attributes": [names[j] for j in cols], "levels": list(key), "feasible": ok})
                if ok:
                    feasible.add(key)
                    marked |= (cand >= lv).all(axis=1)
            cur[cols] = feasible
            it["surviving"] += len(feasible)
        trace.append(it)
        prev = cur
    full = prev[tuple(range(r))]
    search = LatticeSearch(enc)
    lat = search.lat
    if not full:
        search.check(lat.top, tag=False)
        raise InfeasibleError(
            f"incognito: no full-domain generalization satisfies the model within max_suppression="
            f"{enc.max_suppression:g}; the top node needs {int(search.sup[lat.top])} suppressed records (limit {enc.limit})."
        )
    ids = np.array([lat.node_id(v) for v in full], dtype=np.int64)
    search.state[:] = -1
    search.state[ids] = 1
    monotone_measure = enc.measure_monotone()
    best = search.optimum_monotone() if monotone_measure else search.optimum_exact()
    mins = lat.minimal(search.state == 1)
    for m in mins:
        search.value_of(int(m))
    return search.result(
        "incognito",
        best,
        mins,
        t0,
        monotone_feasibility=True,
        monotone_measure=monotone_measure,
        extra={"checks": n_checks, "iterations": trace if n_checks <= 2000 else [{"iteration": t["iteration"], "checked": len(t["checked"]), "surviving": t["surviving"]} for t in trace]},
    )


@register(
    "incognito",
    models=CLASS_MODELS,
    recoding="full-domain",
    optimal=True,
    constraints={"measure": MEASURE_OPTION, "max_suppression": SUPPRESSION_OPTION},
    description="Incognito: a-priori search over QI subsets with roll-up; all k-anonymous full-domain nodes",
    reference="Ciriani et al., k-Anonymity (2007), §4.3 (LeFevre, DeWitt & Ramakrishnan 2005)",
)
def incognito(dataset: Dataset, models: tuple[PrivacyModel, ...], *, measure: str = "non_uniform_entropy", max_suppression: float = 0.0) -> Release:
    """Incognito: every feasible full-domain node, then the best one for ``measure``.

    Needs feasibility to be monotone (generalization and subset properties): k-anonymity
    with or without suppression, monotone per-class models without suppression. The
    k-minimal nodes and the per-iteration trace are in ``provenance["lattice"]``.
    Worst case exponential in the number of QIs (survey §4.3).
    """
    require_levels(dataset, "incognito")
    check_dense("incognito", [h.height for h in dataset.hierarchies])
    enc = Encoded(dataset, models, max_suppression, measure)
    if not enc.monotone_feasibility:
        raise UnsupportedModelError(
            "incognito needs models whose satisfaction is monotone under generalization (and under suppression when "
            f"max_suppression > 0); {', '.join(str(m) for m in models)} is not. Use 'flash' or 'exhaustive'."
        )
    return build_release(enc, incognito_search(enc), "incognito")
