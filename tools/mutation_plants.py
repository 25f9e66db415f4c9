"""Plant bugs by hand where mutmut cannot, and re-plant the bugs issue #32 names (docs/mutation.md).

    .venv/bin/python tools/mutation_plants.py                     # every plant
    .venv/bin/python tools/mutation_plants.py rules_emd_ordered   # some of them, by name

mutmut's trampoline cannot switch a mutant on inside an ``@njit`` kernel (the kernel is
compiled once), so ``KERNELS`` are one-line textual changes of kernels; ``ISSUE`` are the bugs
once planted by hand that survived the suite of their day. Each plant is applied to a
scratch copy of ``src/`` (``/tmp/ktype-plant/<name>``, never the working tree), followed by a
run of the named tests against that copy under ``nice -n 19``. A plant is *caught* when the
tests fail. The verdicts go to ``benchmarks/results/mutation_kernels.json``.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SCRATCH = Path(os.environ.get("KTYPE_PLANT_DIR", "/tmp/ktype-plant"))
T = "tests/"
ALG = "src/ktype/algorithms/"

# name -> (file, original text (must occur once), planted text, tests that must fail, what it breaks)
KERNELS: dict[str, tuple[str, str, str, list[str], str]] = {
    "rules_emd_ordered": (
        ALG + "_rules.py", "    return e / (V - 1)\n", "    return e / V\n",
        [T + "test_rules.py"],
        "ordered EMD normalized by V instead of V - 1 (too small a distance: t-closeness passes too much)",
    ),
    "rules_recursive_tie": (
        ALG + "_rules.py", "    return top[0] * den < (total - head) * num\n",
        "    return top[0] * den <= (total - head) * num\n",
        [T + "test_rules.py"],
        "recursive (c,l)-diversity accepts r1 = c (r_l + ... + r_m), the strict inequality made loose",
    ),
    "matching_greedy_start": (
        "src/ktype/_matching.py", "            if match_c[v] < 0:\n", "            if match_c[v] <= 0:\n",
        [T + "test_matching.py"],
        "the greedy start may take column 0 from the row that holds it (a matching with a shared column)",
    ),
    "local_closure_upper_end": (
        ALG + "local/_kernels.py", "                if v > hi:\n                    hi = v\n            l2, h2 = _close(",
        "                if v > hi + 1:\n                    hi = v\n            l2, h2 = _close(",
        [T + "test_local_closures_oracle.py"],
        "the closure box of a record set ignores a member one step above the current upper end",
    ),
    # kept for the record: counting a record on a box's upper edge as outside it was *not* caught, and
    # is near-equivalent: _trie_search scores it 0 as an outside record and picks it first anyway
    "local_inside_box": (
        ALG + "local/_kernels.py", "        v = X[y, a]\n        if v < lo[a] or v > hi[a]:\n",
        "        v = X[y, a]\n        if v < lo[a] or v >= hi[a]:\n",
        [T + "test_local.py", "-k", "alg4 or alg2 or alg3 or registered_pipelines"],
        "a record on the upper edge of a box counts as outside it",
    ),
    "freeform_weight": (
        ALG + "freeform/_kernels.py", "            w += x - hi[j, a]\n", "            w += hi[j, a] - x\n",
        [T + "test_freeform.py", "-k", "table1 or never_beat_the_mip or pruning_is_exact"],
        "the cost of widening a box upwards is negative",
    ),
    # the registry's compiled verification pass (from 10^6 rows): what is called verified
    "verify_uncovered_upper_edge": (
        ALG + "_verify_kernels.py", "            if x < lo[i, j] or x > hi[i, j]:\n",
        "            if x < lo[i, j] or x > hi[i, j] + 1:\n",
        [T + "test_verify_cells.py"],
        "a cell ending one step below its record's value counts as covering it (compiled verification)",
    ),
    "verify_marks_nothing": (
        ALG + "_verify_kernels.py", "                        seen[at] = 1\n", "                        seen[at] = 0\n",
        [T + "test_verify_cells.py"],
        "no published interval is asked of its hierarchy: a cell that is no value of it passes (compiled verification)",
    ),
    "verify_uncovered_lower_edge": (
        ALG + "_verify_kernels.py", "            if x < lo[i, j] or x > hi[i, j]:\n",
        "            if x < lo[i, j] - 1 or x > hi[i, j]:\n",
        [T + "test_verify_cells.py"],
        "a cell starting one step above its record's value counts as covering it (compiled verification)",
    ),
    # kept for the record, not caught and equivalent in verdict (mark_intervals' domain test is a second
    # line): an interval reversed by one step covers no value, so count_uncovered refuses the release
    # first; a cell ending one past the domain is marked as the reversed interval (a + 1, 0), which its
    # hierarchy refuses
    "verify_past_the_domain": (
        ALG + "_verify_kernels.py", "                if a < 0 or b >= size or a > b:\n",
        "                if a < 0 or b > size or a > b:\n",
        [T + "test_verify_cells.py"],
        "a cell ending one past its column's domain counts as inside it (equivalent: refused as (a + 1, 0))",
    ),
    "verify_reversed_interval": (
        ALG + "_verify_kernels.py", "                if a < 0 or b >= size or a > b:\n",
        "                if a < 0 or b >= size or a > b + 1:\n",
        [T + "test_verify_cells.py"],
        "an interval whose ends are reversed by one step counts as a value of its column (equivalent: never covers)",
    ),
    "transparent_tailor_stop": (
        ALG + "transparent/_kernels.py", "        if c * two_l_stop * l > m:\n", "        if c * two_l_stop * l >= m:\n",
        [T + "test_transparent.py", "-k", "paper_tables or tailor_equals or oracle_fixture"],
        "Tailor stops splitting a group that is exactly 2l-diverse",
    ),
    # issue #32 (attacks, plan_grouping): the posterior kernel of the matching attack and the shared hash table
    "matching_posterior_ignores_adjacency": (
        "src/ktype/attacks/matching.py", "                if d[k] > 0 and adj[row + k]:\n", "                if d[k] > 0:\n",
        [T + "test_ktype_models.py", "-k", "table1_c or figure or brute_force"],
        "the count of perfect matchings lets a record take a box type that does not cover it",
    ),
    "hashtab_found_as_new": (
        ALG + "_hashtab.py", "            return s, False\n", "            return s, True\n",
        [T + "test_hashtab.py"],
        "a key already in the table is reported as newly inserted (each row opens a group of its own)",
    ),
    # issue #32: the lattice kernels (what flash / exhaustive call k-anonymous and optimal)
    "fulldomain_k_threshold": (
        ALG + "fulldomain/_kernels.py", "    ok = out_cnt >= k\n", "    ok = out_cnt > k\n",
        [T + "test_fulldomain_oracle.py::test_flash_and_exhaustive_defaults_and_every_measure_against_brute_force",
         T + "test_fulldomain_k_boundary.py"],
        "a class of exactly k records counts as too small (suppressed or generalized further: not the optimum)",
    ),
    "fulldomain_suppressed_classes_not_records": (
        ALG + "fulldomain/_kernels.py", "            sup += c\n", "            sup += 1\n",
        [T + "test_fulldomain_oracle.py::test_flash_and_exhaustive_defaults_and_every_measure_against_brute_force",
         T + "test_fulldomain_k_boundary.py"],
        "the suppression count adds one per failing class, not its records (max_suppression exceeded, called feasible)",
    ),
    "fulldomain_pair_stair_threshold": (
        ALG + "fulldomain/_kernels.py", "        if 0 < c < thresh:\n", "        if 0 < c <= thresh:\n",
        [T + "test_flash_floors.py", "-k", "brute_force"],
        "a pair group of exactly k records counts as too small: flash's pair stairs prune feasible nodes",
    ),
    # the MDAV / V-MDAV kernel (the groups published, and their sizes)
    "mdav_second_group_k_minus_one": (
        ALG + "microaggregation/_kernels.py", "nearest(P, P[xs], k, alive,", "nearest(P, P[xs], k - 1, alive,",
        [T + "test_microaggregation.py"],
        "MDAV's group around xs has k - 1 records (not k-anonymous)",
    ),
    "mdav_last_two_groups_merged": (
        ALG + "microaggregation/_kernels.py", "    if remaining >= 2 * k:\n", "    if remaining > 2 * k:\n",
        [T + "test_microaggregation.py"],
        "with exactly 2k records left MDAV publishes one group of 2k instead of two of k (more loss than MDAV's)",
    ),
    "mdav_nearest_prunes_ties": (
        ALG + "microaggregation/_kernels.py", "_mindist2(q, blo, bhi, v) > out_d[m - 1]",
        "_mindist2(q, blo, bhi, v) >= out_d[m - 1]",
        [T + "test_microaggregation.py"],
        "the k-d tree skips a node that may hold a record as near as the k-th (ties no longer to the lowest index)",
    ),
    # the consistency graph (the matches behind k-concealment, (k,k)-anonymity and the local risk)
    "graph_set_membership_dropped": (
        "src/ktype/models/_graph_kernels.py", "w >= 0 and not (words", "w >= 0 and False and not (words",
        [T + "test_freeform_kfactor.py", T + "test_graph_factor_support.py", T + "test_freeform_oracle.py"],
        "a freeform value set is read as its range [min, max]: records outside the set count as matches",
    ),
    "graph_in_box_upper_edge": (
        "src/ktype/models/_graph_kernels.py", "if v < blo[b, col] or v > bhi[b, col] or (",
        "if v < blo[b, col] or v >= bhi[b, col] or (",
        [T + "test_freeform_kfactor.py", T + "test_graph_factor_support.py", T + "test_freeform_oracle.py"],
        "a record on the upper edge of a freeform box is not consistent with it",
    ),
    "graph_skip_past_run": (
        "src/ktype/models/_graph_kernels.py", "a = ends[a, col]  # the rest", "a = ends[a, col] + 1  # the rest",
        [T + "test_consistency_graph_edges.py"],
        "the freeform skip scan jumps one type past the run that fails (an edge to the next type is lost)",
    ),
    "graph_run_end_one_column_late": (
        "src/ktype/models/_graph_kernels.py", "ends[a, c] = a + 1 if c >= first_diff", "ends[a, c] = a + 1 if c > first_diff",
        [T + "test_consistency_graph_edges.py"],
        "a run is taken to go on past a row that differs in the failing column (types inside the box skipped)",
    ),
    "graph_box_types_ignore_sets": (
        "src/ktype/models/_graph_kernels.py", "            if words[i, w] != words[j, w]:\n",
        "            if words[i, w] != words[j, w] and False:\n",
        [T + "test_consistency_graph_edges.py"],
        "freeform rows with equal ranges but different value sets are taken for one box type when their hashes collide",
    ),
    "graph_set_word_offset_dropped": (
        "src/ktype/models/_graph_kernels.py", "words[b, w + (v >> 6)]", "words[b, w]",
        [T + "test_consistency_graph_edges.py"],
        "a value above 63 is looked up in its set's first bit word",
    ),
    # the population count inside the boxes of a local recoding (journalist risk)
    "risk_boxes_upper_edge": (
        "src/ktype/risk/_kernels.py", "elif v < lo[b, j] or v > hi[b, j]:", "elif v < lo[b, j] or v >= hi[b, j]:",
        [T + "test_risk_reid.py::test_release_journalist_counts_population_inside_boxes",
         T + "test_risk_reid.py::test_local_release_journalist_with_population_and_fraction"],
        "a population record on the upper edge of a box is not counted (journalist risk overstated)",
    ),
    "risk_boxes_distinct_points": (
        "src/ktype/risk/_kernels.py", "s += mult[t]", "s += 1",
        [T + "test_risk_reid.py::test_release_journalist_counts_population_inside_boxes",
         T + "test_risk_reid.py::test_local_release_journalist_with_population_and_fraction"],
        "population records with equal values counted once (too small F, risk overstated)",
    ),
    "risk_boxes_unknown_value_anywhere": (
        "src/ktype/risk/_kernels.py", "if not full[b, j]:", "if full[b, j]:",
        [T + "test_risk_reid.py::test_release_journalist_counts_population_inside_boxes",
         T + "test_risk_reid.py::test_local_release_journalist_with_population_and_fraction",
         T + "test_risk_population_boxes.py"],
        "a population value unknown to the hierarchy counted in boxes that do not cover the whole domain "
        "(F too large: risk understated)",
    ),
    # the k-factor flow's forced edges (models/_graph_kernels.forced_flow, issue #25)
    "kfactor_cap_without_pairs": (
        "src/ktype/models/_graph_kernels.py", "        out[e] = min(a * b, k * min(a, b))\n",
        "        out[e] = k * min(a, b)\n",
        [T + "test_freeform_kfactor.py", T + "test_graph_factor_support.py"],
        "a type edge may carry more than ma*mb units: one record paired with one row more than once",
    ),
    "forced_demand_not_reduced": (
        "src/ktype/models/_graph_kernels.py", "                        lb[v] -= c[e]\n",
        "                        lb[v] -= 0\n",
        [T + "test_maxflow.py", "-k", "forced"],
        "an original type's forced edges are filled without taking their flow from the box types' demands",
    ),
    "forced_fill_with_slack": (
        "src/ktype/models/_graph_kernels.py", "                    if side == 0 and sa[u] == la[u]:\n",
        "                    if side == 0 and sa[u] <= la[u] + 1:\n",
        [T + "test_maxflow.py", "-k", "forced"],
        "a node with one unit of slack counts as forced: its edges are all filled",
    ),
    "forced_cut_one_side": (
        "src/ktype/models/_graph_kernels.py", "                    m = min(c[e], la[ea[e]], lb[eb[e]])\n",
        "                    m = min(c[e], la[ea[e]])\n",
        [T + "test_maxflow.py", "-k", "forced"],
        "an edge's capacity is not cut to what its box type still needs",
    ),
}

ISSUE: dict[str, tuple[str, str, str, list[str], str]] = {
    "io_formula_prefix_number": (
        "src/ktype/io/_csvtext.py", '_NUMBER = re.compile(r"^[+-]?(\\d+(\\.\\d*)?|\\.\\d+)([eE][+-]?\\d+)?$")\n',
        '_NUMBER = re.compile(r"^[+-]?(\\d+(\\.\\d*)?|\\.\\d+)([eE][+-]?\\d+)?")\n',
        [T + "test_output_safety.py", T + "test_release_io_oracle.py"],
        "a text cell that only starts like a number (-1+1+cmd|' /C calc'!A0) is not escaped (CSV injection)",
    ),
    "release_sidecar_without_checksum": (
        "src/ktype/release.py", "            if want != have:\n", "            if want is not None and want != have:\n",
        [T + "test_file_verified.py", T + "test_audit_untrusted.py", T + "test_trust_audit.py",
         T + "test_release_io_oracle.py"],
        "a CSV sidecar with no recorded SHA-256 is accepted for any file",
    ),
    "audit_insensitive_identifier": (
        "src/ktype/audit.py", 'if untrusted.get(str(c)) in ("sensitive", "insensitive")]\n',
        'if untrusted.get(str(c)) in ("sensitive",)]\n',
        [T + "test_forgeries.py", T + "test_audit_untrusted.py", T + "test_trust_audit.py"],
        "an identifier column the release metadata calls insensitive is published without a finding",
    ),
    "audit_local_as_homogeneous": (
        "src/ktype/audit.py", "homogeneous = bool((np.bincount(eo, minlength=g.n_orig_types) <= 1).all())\n",
        "homogeneous = bool((np.bincount(eo, minlength=g.n_orig_types) <= 2).all())\n",
        [T + "test_forgeries.py", T + "test_trust_audit.py", T + "test_audit_hall.py"],
        "a local recoding is audited with the per-class count (Hall's condition split per published type)",
    ),
    "hierarchy_range_not_a_node": (
        "src/ktype/data/hierarchy.py", "and a <= b and (any_range or not self.is_tree\n",
        "and a <= b and (True or not self.is_tree\n",
        [T + "test_hierarchy.py", T + "test_hierarchy_validation.py", T + "test_forgeries.py",
         T + "test_hierarchy_range_labels.py"],
        "a label [x-y] that is no node of a tree hierarchy is read as a generalized value",
    ),
    "transparent_input_order_ties": (
        ALG + "transparent/__init__.py", "        canon = _canonical_order(dataset, self.s)\n",
        "        canon = np.arange(n)\n",
        [T + "test_transparent.py", "-k", "paper_tables or transparency_property or order",
         T + "test_transparent_input_order.py"],
        "the secret tie-break permutation is laid over the input order, not over a canonical content order",
    ),
    "registry_suppression_limit_plus_one": (
        ALG + "_registry.py", "        if release.n_suppressed > limit:\n", "        if release.n_suppressed > limit + 1:\n",
        [T + "test_registry.py", T + "test_checks_can_fail.py", T + "test_registry_oracle.py"],
        "a release suppressing one record more than max_suppression allows is called verified",
    ),
    "ldiversity_match_blocks_skip_one": (
        "src/ktype/models/ldiversity.py", "            rows = idx[a : a + step]\n", "            rows = idx[a : a + step - 1]\n",
        [T + "test_models_oracle.py", T + "test_ktype_models.py", T + "test_match_scope_blocks.py"],
        "the match-scope diversity check skips the last group of every block",
    ),
    # always the first of the k matchings is *not* a bug: the decomposition is random, so its first
    # matching is as uniform as a random one (the plant passed every test, rightly)
    "freeform_publish_identity": (
        ALG + "freeform/_prep.py", "    alpha = M[int(rng.integers(k))]", "    alpha = np.arange(n) + 0 * M[int(rng.integers(k))]",
        [T + "test_freeform.py", "-k", "marginal", T + "test_freeform_marginal.py"],
        "each box carries its own record (the identity edge of the graph), not a uniform pre-image",
    ),
}
PLANTS = {**KERNELS, **ISSUE}


def plant(name: str) -> dict:
    path, old, new, tests, what = PLANTS[name]
    work = SCRATCH / name
    if work.exists():
        shutil.rmtree(work)
    shutil.copytree(ROOT / "src", work / "src", ignore=shutil.ignore_patterns("__pycache__", "*.pyc", "*.nbi", "*.nbc"))
    (work / "data").symlink_to(ROOT / "data")  # the bundled data sets are read from beside src/
    target = work / path
    text = target.read_text()
    if text.count(old) != 1:
        raise SystemExit(f"{name}: the original text occurs {text.count(old)} times in {path}; update the plant")
    target.write_text(text.replace(old, new))
    env = dict(os.environ, PYTHONPATH=str(work / "src"))
    t0 = time.time()
    proc = subprocess.run(["nice", "-n", "19", sys.executable, "-m", "pytest", "-q", "-x", "-p", "no:cacheprovider",
                           "-p", "no:xdist", "-o", "addopts=", "-p", "no:timeout", "-m", "not slow", *tests],
                          cwd=ROOT, env=env, capture_output=True, text=True)
    last = (proc.stdout.strip().splitlines() or [""])[-1]
    failed = [ln.split(" ")[1] for ln in proc.stdout.splitlines() if ln.startswith("FAILED ")]
    # caught: a test failed (an assertion or an error the bug causes); exit 1 without a FAILED line is no verdict
    verdict = ("caught" if proc.returncode == 1 and failed else "not caught" if proc.returncode == 0
               else f"error {proc.returncode}")
    return {"plant": name, "file": path, "original": old.strip(), "planted": new.strip(), "breaks": what,
            "tests": tests, "verdict": verdict, "failed": failed[:3], "summary": last,
            "wall_s": round(time.time() - t0, 1), "load": [round(x, 1) for x in os.getloadavg()]}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("plants", nargs="*", help="plant names (default: all)")
    a = ap.parse_args()
    names = a.plants or list(PLANTS)
    out_path = ROOT / "benchmarks" / "results" / "mutation_plants.json"
    stored = json.loads(out_path.read_text()) if out_path.exists() else {}
    commit = subprocess.run(["git", "rev-parse", "HEAD"], cwd=ROOT, capture_output=True, text=True).stdout.strip()
    results = stored.get("plants", {})
    for name in names:
        r = plant(name)
        results[name] = r
        print(name, r["verdict"], r["failed"], r["summary"], f"{r['wall_s']} s load {r['load']}", flush=True)
        out_path.write_text(json.dumps({"commit": commit, "plants": dict(sorted(results.items()))}, indent=1) + "\n")


if __name__ == "__main__":
    main()
