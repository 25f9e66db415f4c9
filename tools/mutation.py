"""Run mutmut on one module group with its own narrow test selection (docs/mutation.md).

    .venv/bin/python tools/mutation.py models_checkers       # one group
    .venv/bin/python tools/mutation.py --list                # the groups
    .venv/bin/python tools/mutation.py --report              # tables from the stored results
    .venv/bin/python tools/mutation.py --all                 # every group, 40 mutants per module, + hand plants

A group is a few source files plus the test files that exercise them. Each group runs in its
own scratch directory (``$KTYPE_MUTMUT_DIR``, default ``/tmp/ktype-mutmut/<group>``) holding a
copy of ``src/`` and a ``pyproject.toml`` whose ``[tool.mutmut]`` names only that group, so
mutmut's stats step (one traced run of the selected tests) stays small, and runs under
``nice`` with ``--max-children`` 1 (``KTYPE_MUTMUT_CHILDREN`` to change it). The verdicts go
to ``benchmarks/results/mutation_<group>.json``; ``tools/mutation_equivalent.toml`` lists the
surviving mutants judged equivalent, each with its reason, and ``--report`` writes
``benchmarks/results/mutation.md`` (the per-module table) from both.

Mutant names (``module.function__mutmut_N``) are numbered per function, so they stay valid
while that function's text does not change; the JSON records the commit that was measured.
"""

from __future__ import annotations

import argparse
import ast
import json
import os
import random
import re
import shutil
import subprocess
import sys
import time
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "benchmarks" / "results"
EQUIVALENT = ROOT / "tools" / "mutation_equivalent.toml"
T = "tests/"
# every mutmut and pytest process runs at this niceness (the machine is shared with benchmarks)
NICE = os.environ.get("KTYPE_MUTMUT_NICE", "19")


def _mutmut() -> str:
    """The mutmut executable: ``$KTYPE_MUTMUT_BIN``, else the one next to this Python (a
    mutmut installed elsewhere, e.g. ``pip install --target DIR mutmut``, is used with
    ``KTYPE_MUTMUT_BIN=DIR/bin/mutmut PYTHONPATH=DIR``)."""
    return os.environ.get("KTYPE_MUTMUT_BIN") or str(Path(sys.executable).with_name("mutmut"))

# group -> (files to mutate, pytest arguments selecting its tests)
GROUPS: dict[str, tuple[list[str], list[str]]] = {
    "models_classes": (
        ["src/ktype/models/_base.py", "src/ktype/models/kanonymity.py", "src/ktype/models/_table.py",
         "src/ktype/models/ldiversity.py", "src/ktype/models/tcloseness.py"],
        [T + "test_diversity.py", T + "test_tcloseness.py", T + "test_ktype_models.py", T + "test_models_oracle.py"],
    ),
    "models_ktype": (
        ["src/ktype/models/ktype_models.py", "src/ktype/models/_graph.py", "src/ktype/models/_maxflow.py"],
        [T + "test_ktype_models.py", T + "test_models_oracle.py", T + "test_ktype_models_properties.py",
         T + "test_consistency_graph_edges.py", T + "test_maxflow.py", T + "test_graph_factor_support.py",
         T + "test_freeform_kfactor.py"],
    ),
    "models_freeform": (
        ["src/ktype/models/freeform.py"],
        [T + "test_freeform.py", T + "test_edge_cases.py", T + "test_models_oracle.py::test_freeform_checker_fails_broken_witnesses"],
    ),
    "models_transparent": (
        ["src/ktype/models/transparent.py"],
        [T + "test_transparent.py", T + "test_edge_cases.py", T + "test_transparent_oracle.py", T + "test_models_oracle.py::test_protected_l_diversity_against_recount"],
    ),
    "measures": (
        ["src/ktype/measures/_base.py", "src/ktype/measures/classes.py", "src/ktype/measures/entropy.py",
         "src/ktype/measures/kl.py", "src/ktype/measures/loss_metric.py", "src/ktype/measures/ncp.py",
         "src/ktype/measures/tree.py", "src/ktype/measures/__init__.py"],
        [T + "test_measures.py", T + "test_measures_edges.py", T + "test_measures_oracle.py",
         T + "test_edge_cases.py::test_class_sizes_marks_suppressed_rows_minus_one",
         T + "test_edge_cases.py::test_average_class_size_k_validation",
         T + "test_edge_cases.py::test_classification_metric_label_errors_and_missing_labels"],
    ),
    # the brute-force comparisons that run hybrid/mondrian first cost minutes per mutant
    "measures_range_query": (
        ["src/ktype/measures/range_query.py"],
        [T + "test_range_query.py", T + "test_measures_oracle.py::test_range_query_workload_defaults_and_refusals",
         "-k", "not (brute_force_evaluation and (hybrid or mondrian))"],
    ),
    "mondrian": (
        ["src/ktype/algorithms/mondrian.py"],
        [T + "test_mondrian.py", T + "test_mondrian_properties.py", T + "test_mondrian_parallel.py",
         T + "test_edge_cases.py::test_mondrian_splits_the_widest_normalized_column"],
    ),
    # the numpy partitioner Mondrian uses for k-anonymity alone (no numba): compared release
    # for release with the frozen sequential reference, and run by every small k-anonymity job
    "mondrian_numpy": (
        ["src/ktype/algorithms/_mondrian_numpy.py"],
        [T + "test_mondrian_parallel.py", T + "test_mondrian.py", T + "test_mondrian_properties.py",
         T + "test_mondrian_numpy.py"],
    ),
    # the full-domain package in three groups (each with its own, shorter test map): the
    # entry points and the search algorithms; the lattice engine (flash / exhaustive);
    # the best-effort searches for many QIs. Numba kernels (_kernels.py) are not mutated.
    "fulldomain_search": (
        ["src/ktype/algorithms/fulldomain/_api.py", "src/ktype/algorithms/fulldomain/__init__.py",
         "src/ktype/algorithms/fulldomain/_incognito.py", "src/ktype/algorithms/fulldomain/_datafly.py",
         "src/ktype/algorithms/fulldomain/_samarati.py", "src/ktype/algorithms/fulldomain/_koptimize.py"],
        [T + "test_fulldomain.py", T + "test_fulldomain_props.py", T + "test_edge_cases.py", T + "test_fulldomain_oracle.py",
         "-k", "not (mondrian or class_sizes or average_class_size or classification_metric "
         "or preference_criteria_on_solutions or docs_example_runs)"],
    ),
    "fulldomain_engine": (
        ["src/ktype/algorithms/fulldomain/_engine.py", "src/ktype/algorithms/fulldomain/_lattice.py",
         "src/ktype/algorithms/fulldomain/_hashed.py"],
        [T + "test_fulldomain.py", T + "test_fulldomain_props.py", T + "test_flash_bounds.py", T + "test_flash_zero.py",
         T + "test_flash_floors.py", T + "test_edge_cases.py", T + "test_fulldomain_oracle.py", T + "test_lattice_engine_oracle.py",
         # the hashed roll-up (_hashed.py) and the packing base are only reached through these
         T + "test_fulldomain_many.py::test_hashed_rollup_matches_exact_rollup",
         T + "test_fulldomain_many.py::test_packing_base_matches_table_rows",
         "-k", "not (mondrian or class_sizes or average_class_size or classification_metric "
         "or preference_criteria_on_solutions or docs_example_runs)"],
    ),
    "fulldomain_best_effort": (
        ["src/ktype/algorithms/fulldomain/_lightning.py", "src/ktype/algorithms/fulldomain/_genetic.py",
         "src/ktype/algorithms/fulldomain/_sparse.py"],
        [T + "test_fulldomain_many.py", T + "test_genetic.py", T + "test_fulldomain_oracle.py",
         T + "test_fulldomain.py", T + "test_fulldomain_best_effort.py"],
    ),
    # certify: the exact branch-and-bound that proves a best-effort result optimal (or finds better)
    "fulldomain_certify": (
        ["src/ktype/algorithms/fulldomain/_certify.py"],
        [T + "test_certify.py"],
    ),
    # --- issue #32: the modules never measured before, most harmful first: what is published
    # (release, io, audit), what is called verified (registry, checking), what risk is reported
    "release_io": (
        ["src/ktype/release.py", "src/ktype/io/_files.py", "src/ktype/io/_csvtext.py", "src/ktype/io/_readback.py", "src/ktype/io/csv.py"],
        [T + "test_release.py", T + "test_file_verified.py", T + "test_output_safety.py", T + "test_trust_audit.py",
         T + "test_release_io_oracle.py"],
    ),
    "audit": (
        ["src/ktype/audit.py"],
        [T + "test_trust_audit.py", T + "test_audit_untrusted.py", T + "test_forgeries.py", T + "test_file_verified.py",
         T + "test_audit_hall.py", T + "test_audit_oracle.py",
         T + "test_progress.py::test_freeform_and_its_audit_report_their_stages"],
    ),
    "registry": (
        ["src/ktype/algorithms/_registry.py", "src/ktype/checking.py"],
        [T + "test_registry.py", T + "test_verify_cells.py", T + "test_checks_can_fail.py", T + "test_check_report.py", T + "test_registry_oracle.py",
         T + "test_registry_paths.py", T + "test_registry_timings.py", T + "test_check_report_fields.py",
         # the provenance's randomness statement is written by the registry (_run_body)
         T + "test_safe_defaults.py::test_provenance_randomness_is_true_for_every_algorithm",
         T + "test_safe_defaults.py::test_deterministic_variant_warns_and_provenance_says_no_randomness",
         T + "test_safe_defaults.py::test_mask_without_a_random_choice_says_so"],
    ),
    "risk": (
        ["src/ktype/risk/_common.py", "src/ktype/risk/drivers.py", "src/ktype/risk/hipaa.py",
         "src/ktype/risk/individual.py", "src/ktype/risk/reidentification.py", "src/ktype/risk/report.py",
         "src/ktype/risk/suda.py", "src/ktype/risk/uniqueness.py"],
        [T + "test_risk.py", T + "test_risk_individual.py", T + "test_risk_reid.py", T + "test_risk_suda.py",
         T + "test_risk_uniqueness.py", T + "test_risk_drivers_hints.py", T + "test_risk_oracle.py"],
    ),
    "launchers": (  # `ktype app` / `python -m ktype(.app)`: the app's local-only default address, its warning
        ["src/ktype/app/__init__.py", "src/ktype/app/__main__.py", "src/ktype/cli/webapp.py"],
        [T + "test_app_launchers.py", T + "test_app_page.py::test_main_warns_off_this_computer_and_never_shows_a_traceback"],
    ),
    "risk_numerics": (  # scipy-free numerics of the risk estimators (Levenberg-Marquardt, special functions)
        ["src/ktype/risk/_lm.py", "src/ktype/risk/_special.py"],
        [T + "test_risk_special.py", T + "test_risk_uniqueness.py", T + "test_risk_individual.py"],
    ),
    "attacks": (
        ["src/ktype/attacks/linking.py", "src/ktype/attacks/matching.py", "src/ktype/attacks/transparent.py",
         "src/ktype/_matching.py"],
        # match_posteriors is exercised by test_ktype_models, the transparent attacks by test_transparent(_baselines)
        [T + "test_linking.py", T + "test_matching.py", T + "test_anatomy_audit.py", T + "test_transparent_oracle.py",
         T + "test_transparent.py", T + "test_transparent_baselines.py", T + "test_ktype_models.py"],
    ),
    "data_csv_reader": (
        ["src/ktype/data/_arrowcsv.py"],
        [T + "test_arrow_csv.py", T + "test_reading.py"],
    ),
    "data": (
        ["src/ktype/data/dataset.py", "src/ktype/data/hierarchy.py", "src/ktype/data/types.py",
         "src/ktype/data/_shapes.py", "src/ktype/data/_values.py", "src/ktype/data/builders.py",
         "src/ktype/data/bundled.py", "src/ktype/_validation.py"],
        [T + "test_dataset.py", T + "test_hierarchy.py", T + "test_hierarchy_validation.py", T + "test_reading.py",
         T + "test_hierarchy_range_labels.py", T + "test_hierarchy_oracle.py", T + "test_hierarchy_builders_oracle.py",
         T + "test_parameter_validation.py", T + "test_dataset_reading_oracle.py"],
    ),
    "freeform": (
        ["src/ktype/algorithms/freeform/_prep.py", "src/ktype/algorithms/freeform/baselines.py",
         "src/ktype/algorithms/freeform/heuristics.py", "src/ktype/algorithms/freeform/mip.py",
         "src/ktype/freeform_release.py"],
        [T + "test_freeform.py", T + "test_freeform_kfactor.py", T + "test_freeform_marginal.py", T + "test_freeform_oracle.py"],
    ),
    "transparent": (
        ["src/ktype/algorithms/transparent/__init__.py", "src/ktype/algorithms/transparent/_common.py",
         "src/ktype/algorithms/transparent/anatomy.py", "src/ktype/algorithms/transparent/mask.py",
         "src/ktype/algorithms/transparent/mondrian_ldiv.py"],
        [T + "test_transparent.py", T + "test_transparent_oracle.py", T + "test_transparent_baselines.py",
         T + "test_anatomy_audit.py", T + "test_transparent_input_order.py", T + "test_transparent_parts_oracle.py"],
    ),
    "local": (
        ["src/ktype/algorithms/local/_core.py", "src/ktype/algorithms/local/_matching.py",
         "src/ktype/algorithms/local/clustering.py", "src/ktype/algorithms/local/gionis_tassa.py",
         "src/ktype/algorithms/local/iterative.py", "src/ktype/algorithms/local/kconcealment.py",
         "src/ktype/algorithms/local/pipelines.py", "src/ktype/algorithms/local/refine.py"],
        [T + "test_local.py", T + "test_local_props.py", T + "test_local_alg2.py", T + "test_local_agglo.py",
         T + "test_local_cluster_boxes.py", T + "test_iterative_local.py", T + "test_local_closures_oracle.py",
         T + "test_local_forest_measure.py", T + "test_local_provenance.py", T + "test_local_ldiverse_refusal.py",
         T + "test_progress.py"],
    ),
    "other_algorithms": (
        ["src/ktype/algorithms/_rules.py", "src/ktype/algorithms/cell_suppression.py",
         "src/ktype/algorithms/microaggregation/__init__.py", "src/ktype/algorithms/tds.py"],
        [T + "test_rules.py", T + "test_cell_suppression.py", T + "test_microaggregation.py", T + "test_tds.py"],
    ),
    "search_algorithms": (
        ["src/ktype/algorithms/bottom_up.py", "src/ktype/algorithms/cut_search.py"],
        [T + "test_bottom_up.py", T + "test_cut_search.py"],
    ),
    "models_rules": (
        ["src/ktype/models/_rulespec.py", "src/ktype/models/views.py", "src/ktype/models/_names.py",
         "src/ktype/models/microaggregation.py"],
        [T + "test_rules.py", T + "test_views.py", T + "test_microaggregation.py", T + "test_vocabulary.py",
         T + "test_models_oracle.py", T + "test_views_oracle.py", T + "test_microaggregation_checker.py",
         T + "test_model_name_errors.py"],
    ),
    "io_formats": (
        ["src/ktype/io/formats.py", "src/ktype/io/metadata.py", "src/ktype/io/parquet.py",
         "src/ktype/io/partitioned.py", "src/ktype/io/anatomy.py"],
        # test_trust_roundtrip, test_release and test_file_verified left out: their traced and clean runs
        # took over 20 minutes on the loaded machine; test_io_formats_oracle covers each format's reader and writer
        [T + "test_io_formats.py", T + "test_release_io_oracle.py", T + "test_io_formats_oracle.py"],
    ),
    "plan_grouping": (
        ["src/ktype/plan.py", "src/ktype/_grouping.py", "src/ktype/algorithms/_hashtab.py",
         "src/ktype/algorithms/_order.py", "src/ktype/algorithms/_catalog.py"],
        # content_order (_order.py) and the catalog are exercised by test_grouping_oracle
        [T + "test_plan.py", T + "test_grouping_runs.py", T + "test_hashtab.py", T + "test_grouping_oracle.py"],
    ),
    "datasets": (
        ["src/ktype/datasets/synthetic.py", "src/ktype/datasets/occsal.py", "src/ktype/testing/repo_data.py"],
        [T + "test_dataset_synthetic.py", T + "test_occsal.py", T + "test_repo_data.py", T + "test_synthetic_data_oracle.py"],
    ),
    "infrastructure": (
        ["src/ktype/_progress.py", "src/ktype/_jit.py", "src/ktype/_compile.py", "src/ktype/_lazy.py",
         "src/ktype/exceptions.py", "src/ktype/measures/suppression.py"],
        # without the concurrent-compilation stress tests of test_jit_cache.py (subprocesses compiling every kernel)
        [T + "test_progress.py", T + "test_progress_oracle.py", T + "test_progress_risk.py", T + "test_compile.py",
         T + "test_jit_cache.py",
         T + "test_imports.py", T + "test_vocabulary.py", T + "test_cell_suppression.py",
         "-k", "not (stress or forced_race or concurrent_first or editing_a_called)"],
    ),
    "dask": (
        ["src/ktype/dask/_engine.py", "src/ktype/dask/_table.py", "src/ktype/dask/_algorithms.py",
         "src/ktype/dask/_local.py", "src/ktype/dask/_keys.py", "src/ktype/dask/_meta.py", "src/ktype/dask/_risk.py",
         "src/ktype/dask/_write.py", "src/ktype/dask/__init__.py"],
        # the synchronous scheduler only: test_dask.py's comparisons run again in test_dask_sync.py without
        # the LocalCluster (seconds to start, paid per mutant); the process cluster of its numba-cache test is left out
        [T + "test_dask_sync.py", T + "test_dask_keys.py", T + "test_dask_local_write.py", T + "test_dask_scale.py",
         T + "test_dask.py::test_anonymize_entry_point_for_the_command_line"],
    ),
    "app": (
        ["src/ktype/app/_state.py", "src/ktype/app/_ui.py", "src/ktype/app/_worker.py"],
        [T + "test_app_state.py", T + "test_app_state_oracle.py", T + "test_app_page.py"],
    ),
    "cli": (
        ["src/ktype/cli/_app.py", "src/ktype/cli/_options.py", "src/ktype/cli/_print.py", "src/ktype/cli/_reading.py",
         "src/ktype/cli/anatomy.py", "src/ktype/cli/anonymize.py", "src/ktype/cli/attack.py", "src/ktype/cli/check.py",
         "src/ktype/cli/link.py", "src/ktype/cli/listing.py", "src/ktype/cli/report.py", "src/ktype/cli/risk.py",
         "src/ktype/cli/__init__.py", "src/ktype/dask/_cli.py"],
        # in-process runs (CliRunner / run(argv)) on small inputs only: the hypothesis fuzz of every option, the
        # full anonymizations of the bundled tables and the subprocess run take minutes per traced run
        [T + "test_cli_contract.py", T + "test_cli_usability.py", T + "test_risk_cli.py", T + "test_transparent_cli.py",
         T + "test_cli_api.py", T + "test_cli_report_link.py", T + "test_cli_oracle.py",
         "-k", "not (fuzz_every_option or kk_anonymity or flash or anatomy_with_a_seed or tampered_one "
         "or mask_and_tailor or python_m_ktype or wide_table)"],
    ),
    "job_config": (
        ["src/ktype/job.py", "src/ktype/_config.py", "src/ktype/api.py"],
        [T + "test_job.py", T + "test_safe_defaults.py", T + "test_trust_params.py", T + "test_trust_roles.py",
         T + "test_cli_api.py", T + "test_job_entry_points.py", T + "test_config_parsing.py"],
    ),
    "explain_report": (
        ["src/ktype/explain.py", "src/ktype/report.py"],
        # the light tests only: test_report.py's module fixture (a report of every algorithm family), its docs
        # examples and the CLI-file comparisons cost minutes per traced run on the shared machine
        [T + "test_explain.py", T + "test_explain_oracle.py", T + "test_report_oracle.py",
         T + "test_report.py::test_suppressed_records_are_reported", T + "test_report.py::test_render_escapes_data_values",
         T + "test_report.py::test_full_domain_without_a_kept_lattice_says_so",
         T + "test_report.py::test_a_lattice_summary_without_levels_is_listed_not_drawn",
         T + "test_report.py::test_bad_paths_are_refused_and_leave_nothing",
         T + "test_report.py::test_a_failure_keeps_the_old_report_and_no_partial_file"],
    ),
}

# pytest-timeout off: on the loaded machine one slow test (the forgeries) can pass 300 s at nice 19, which
# would count a mutant as killed; mutmut's own timeout (KTYPE_MUTMUT_TIMEOUT) still stops a looping mutant
PYTEST_ARGS = ["-p", "no:xdist", "-p", "no:cacheprovider", "-p", "no:timeout", "-o", "addopts=", "-q", "-m", "not slow"]
# "crash": the tests died of SIGSEGV / SIGABRT / SIGBUS (a mutated index read by a compiled
# kernel without bounds checks): the suite noticed the mutant, so it counts as killed
KILLED = ("killed", "timeout", "type check", "crash")
CRASH = (-11, -6, -7)
# functions that only run while the module is imported (registry decorators): mutmut switches a
# mutant on inside the forked test process, after the import, so their mutants never run
IMPORT_TIME = ("ktype.measures._base.x_measure__mutmut_", "ktype.measures._base.x__reorder__mutmut_",
               "ktype.algorithms._registry.x_register__mutmut_",  # the decorator's arguments: read at import
               "ktype.datasets.synthetic.x__age_probs__mutmut_")  # builds CENSUS_SCHEMA at import
DESUGAR = frozenset({"measure", "register"})
STATUS = {1: "killed", 3: "killed", 0: "survived", 5: "no tests", 33: "no tests", 34: "skipped",
          36: "timeout", 37: "type check", -24: "timeout", 24: "timeout", 152: "timeout", 255: "timeout",
          **{c: "crash" for c in CRASH}}


def _section(files: list[str], tests: list[str]) -> str:
    def arr(xs: list[str]) -> str:
        return "[" + ", ".join(json.dumps(x) for x in xs) + "]"
    return ("[tool.mutmut]\n"
            'source_paths = ["src/"]\n'
            f"only_mutate = {arr(files)}\n"
            'also_copy = ["data/", "experiments/"]\n'
            f"pytest_add_cli_args = {arr(PYTEST_ARGS)}\n"
            f"pytest_add_cli_args_test_selection = {arr(tests)}\n"
            # a mutant that loops forever (e.g. a binary search whose bound never moves) runs
            # (estimate + 1) x 2 x this many CPU seconds before it counts as a timeout (mutmut: 15)
            + (f"timeout_multiplier = {float(os.environ['KTYPE_MUTMUT_TIMEOUT'])}\n"
               if os.environ.get("KTYPE_MUTMUT_TIMEOUT") else ""))


def _pyproject(section: str) -> str:
    text = (ROOT / "pyproject.toml").read_text()
    return re.sub(r"\[tool\.mutmut\]\n(?:(?!\n\[).)*", section.rstrip("\n"), text, flags=re.S)


def desugar(text: str, names: frozenset[str] = DESUGAR) -> str:
    """Rewrite ``@deco(...)\\ndef f`` as ``def f`` + ``f = deco(...)(f)`` for the named decorators.

    mutmut 3 does not mutate decorated functions; the registry decorators (``@measure``,
    ``@register``) only record the function, so applying them after the definition is the same
    program and lets mutmut mutate the entry points. Only module-level functions whose
    decorators all are in ``names`` are rewritten (numba's ``@njit`` never is).
    """
    tree = ast.parse(text)
    lines = text.splitlines(keepends=True)
    edits = []
    for node in tree.body:
        if not isinstance(node, ast.FunctionDef) or not node.decorator_list:
            continue
        decos = node.decorator_list
        if not all(isinstance(d.func if isinstance(d, ast.Call) else d, ast.Name)
                   and (d.func if isinstance(d, ast.Call) else d).id in names for d in decos):
            continue
        start, def_line = decos[0].lineno - 1, min(d.end_lineno for d in decos)
        srcs = [ast.get_source_segment(text, d) for d in decos]
        after = "".join(f"{node.name} = ({src})({node.name})\n" for src in reversed(srcs))
        edits.append((start, def_line, node.end_lineno, after))
    for start, def_line, end, after in reversed(edits):
        lines[end:end] = [after]
        del lines[start:def_line]
    return "".join(lines)


def _git(*args: str) -> str:
    return subprocess.run(["git", *args], cwd=ROOT, capture_output=True, text=True).stdout.strip()


def _metas(work: Path) -> dict[str, int | None]:
    codes: dict[str, int | None] = {}
    for meta in (work / "mutants").rglob("*.meta"):
        codes.update(json.loads(meta.read_text())["exit_code_by_key"])
    return codes


def _sample(codes: dict[str, int | None], size: int, seed: int) -> tuple[list[str], dict[str, list[int]]]:
    """Up to ``size`` mutants per module, uniformly at random (seeded)."""
    by_mod: dict[str, list[str]] = {}
    for m in sorted(codes):
        by_mod.setdefault(_module(m), []).append(m)
    rng = random.Random(seed)
    picked: list[str] = []
    info: dict[str, list[int]] = {}
    for mod, ms in by_mod.items():
        take = ms if len(ms) <= size else sorted(rng.sample(ms, size))
        picked += take
        info[mod] = [len(ms), len(take)]
    return picked, info


def _order(codes: dict[str, int | None], seed: int) -> dict[str, list[str]]:
    """Each module's mutants in a random order of their own (seeded by the module's name).

    The first N of this order are a uniform random sample of size N, and the samples are
    nested: raising N, or stopping a run between rounds, keeps every verdict already taken."""
    by_mod: dict[str, list[str]] = {}
    for m in sorted(codes):
        by_mod.setdefault(_module(m), []).append(m)
    for mod, ms in by_mod.items():
        random.Random(f"{seed}:{mod}").shuffle(ms)
    return by_mod


def run_rounds(name: str, size: int, batch: int, reuse: bool = False) -> dict:
    """``--sample N --batch B``: run the first N mutants of each module's random order, B per
    module per mutmut invocation, storing the verdicts after every round.

    mutmut runs the mutants of one invocation fastest-first, so a run stopped in the middle of
    one big invocation keeps a sample biased towards mutants with few tests. In rounds, the
    stored sample of a module is always the longest prefix of its random order whose mutants
    all have a verdict (the rest are stored as "not checked"), an unbiased uniform sample that
    a later run with ``--reuse`` extends."""
    files, tests = GROUPS[name]
    work = Path(os.environ.get("KTYPE_MUTMUT_DIR", "/tmp/ktype-mutmut")) / name
    if not (reuse and (work / "mutants").exists()):
        run_group(name, sample=1, collect=True)  # fresh scratch copy, mutants and test map only
    children = os.environ.get("KTYPE_MUTMUT_CHILDREN", "1")
    mutmut = _mutmut()
    env = dict(os.environ, NUMBA_THREADING_LAYER="workqueue")
    path = RESULTS / f"mutation_{name}.json"
    t0 = time.time()
    prev = json.loads(path.read_text()) if path.exists() else {}
    wall0, cpu0 = (prev.get("wall_s", 0.0), prev.get("cpu_s", 0.0)) if reuse else (0.0, 0.0)
    loads = prev.get("loads", []) if reuse else []
    # the commit whose source the scratch copy holds: taken when it was made (a resumed run
    # keeps the stored one), not when the results are written
    commit, dirty = ((prev["commit"], prev["dirty"]) if reuse and "batch" in prev else
                     (_git("rev-parse", "HEAD"), bool(_git("status", "--porcelain", "--untracked-files=no", "src"))))
    while True:
        c0 = os.times()
        codes = _metas(work)
        order = {mod: ms[:size] for mod, ms in _order(codes, seed=0).items()}
        todo = [m for ms in order.values() for m in [x for x in ms if codes[x] is None][:batch]]
        verdicts: dict[str, str] = {}
        for ms in order.values():
            known = True
            for m in ms:
                known = known and codes[m] is not None
                verdicts[m] = STATUS.get(codes[m], "suspicious") if known else "not checked"
        out = {
            "group": name, "files": files, "tests": tests,
            "commit": commit, "dirty": dirty,
            "wall_s": round(wall0 + time.time() - t0, 1), "cpu_s": cpu0, "load": os.getloadavg(),
            "loads": loads, "mutmut_exit": 0, "batch": batch,
            "sample": {mod: [len([m for m in codes if _module(m) == mod]), len(ms)] for mod, ms in order.items()},
            "verdicts": dict(sorted(verdicts.items())),
        }
        path.write_text(json.dumps(out, indent=1) + "\n")
        if not todo:
            return out
        if name in FORKLESS or os.environ.get("KTYPE_MUTMUT_FORKLESS") == "1":
            rc = run_forkless(work, todo, env)
        else:
            with open(work / "mutmut.log", "a") as log:
                rc = subprocess.run(["nice", "-n", NICE, mutmut, "run", "--max-children", children, *todo], cwd=work,
                                    stdout=log, stderr=subprocess.STDOUT, env=env).returncode
        if all(_metas(work)[m] is None for m in todo):  # e.g. the clean test run failed: see mutmut.log
            print(name, f"no verdict in a round of {len(todo)} mutants (exit {rc}); see {work / 'mutmut.log'}")
            return out
        c1 = os.times()
        cpu0 = round(cpu0 + c1.children_user + c1.children_system - c0.children_user - c0.children_system, 1)
        loads.append([round(x, 1) for x in os.getloadavg()])
        print(name, f"round of {len(todo)} mutants, exit {rc}, cpu {cpu0} s, load {loads[-1]}", flush=True)
        if rc not in (0, 1):  # interrupted or broken: keep what is stored
            return out


#: groups whose mutants run one fresh pytest process each (:func:`run_forkless`), not in mutmut's
#: forked children: their tests start thread pools (dask's, pyarrow's) and compile kernels, and a
#: child forked from a parent that ran them either blocks on a lock a parent thread held at the
#: fork (it sleeps until mutmut's wall-clock limit) or spends its CPU limit recompiling
FORKLESS = frozenset({"dask"})
FORKLESS_TIMEOUT = 10  # a mutant's run may take this many times its tests' own time (at least 300 s)


def run_forkless(work: Path, todo: list[str], env: dict[str, str]) -> int:
    """Run each mutant in ``todo`` as its own ``pytest`` process (mutmut's switch
    ``MUTANT_UNDER_TEST``) on the tests mutmut's map says reach its function, fastest first
    and stopping at the first failure, and store the exit code in mutmut's ``.meta`` files
    as mutmut would (1: killed, 0: survived, 33: no tests, 36: a wall-clock timeout,
    a signal: crash). Returns 0."""
    stats = json.loads((work / "mutants" / "mutmut-stats.json").read_text())
    tests_of, duration = stats["tests_by_mangled_function_name"], stats["duration_by_test"]
    limit_floor = float(os.environ.get("KTYPE_MUTMUT_VERIFY_TIMEOUT", "300"))
    env = dict(env, PYTHONPATH=os.pathsep.join(
        x for x in (str(work / "mutants" / "src"), os.environ.get("PYTHONPATH")) if x))
    metas = {m: p for p in (work / "mutants").rglob("*.meta")
             for m in json.loads(p.read_text())["exit_code_by_key"]}
    for m in todo:
        tests = sorted(tests_of.get(m.partition("__mutmut_")[0], []), key=lambda t: duration.get(t, 0.0))
        code: int
        if not tests:
            code = 33
        else:
            limit = max(limit_floor, FORKLESS_TIMEOUT * sum(duration.get(t, 1.0) for t in tests))
            try:
                rc = subprocess.run(["nice", "-n", NICE, sys.executable, "-m", "pytest", *PYTEST_ARGS, "-x", *tests],
                                    cwd=work / "mutants", env=dict(env, MUTANT_UNDER_TEST=m), capture_output=True,
                                    timeout=limit).returncode
            except subprocess.TimeoutExpired:
                code = 36
            else:
                code = rc  # pytest's: 1 failed, 0 passed, 5 collected nothing; a signal: negative
        meta = json.loads(metas[m].read_text())
        meta["exit_code_by_key"][m] = code
        metas[m].write_text(json.dumps(meta))
        print(m, STATUS.get(code, f"exit {code}"), flush=True)
    return 0


def run_group(name: str, names: list[str] | None = None, sample: int = 0, reuse: bool = False,
              collect: bool = False) -> dict:
    files, tests = GROUPS[name]
    names = names or []
    work = Path(os.environ.get("KTYPE_MUTMUT_DIR", "/tmp/ktype-mutmut")) / name
    children = os.environ.get("KTYPE_MUTMUT_CHILDREN", "1")
    mutmut = _mutmut()
    env = dict(os.environ, NUMBA_THREADING_LAYER="workqueue")
    t0, c0 = time.time(), os.times()
    if not (reuse and (work / "mutants").exists()):
        if work.exists():
            shutil.rmtree(work)
        work.mkdir(parents=True)
        # mutmut copies tests/ (and also_copy: data/, experiments/, which some tests read) into mutants/
        for part in ("src", "tests", "data", "experiments"):
            shutil.copytree(ROOT / part, work / part, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
        for pattern in files:
            for path in work.glob(pattern):
                path.write_text(desugar(path.read_text()))
        (work / "pyproject.toml").write_text(_pyproject(_section(files, tests)))
        if sample:  # generate the mutants and the test map only (no mutant matches the name)
            with open(work / "mutmut-generate.log", "w") as log:
                subprocess.run(["nice", "-n", NICE, mutmut, "run", "--max-children", children, "__generate_only__"],
                               cwd=work, stdout=log, stderr=subprocess.STDOUT, env=env)
    sample_info = None
    if sample:
        codes = _metas(work)
        picked, sample_info = _sample(codes, sample, seed=0)
        names = [m for m in picked if codes[m] is None]
    # mutmut forks one child per mutant from a parent that already ran the tests; numba's
    # default OpenMP layer kills such a child with SIGTERM as soon as it runs a parallel
    # kernel ("fork() called from a process already using GNU OpenMP"), which mutmut reports
    # as "suspicious". The workqueue layer survives the fork and computes the same results.
    rc = 0
    if (names or not sample) and not collect:
        with open(work / "mutmut.log", "a" if reuse else "w") as log:
            rc = subprocess.run(["nice", "-n", NICE, mutmut, "run", "--max-children", children, *names], cwd=work,
                                stdout=log, stderr=subprocess.STDOUT, env=env).returncode
    c1 = os.times()
    codes = _metas(work)
    if sample:
        codes = {m: codes[m] for m in picked}
    verdicts = {k: STATUS.get(c, "not checked" if c is None else "suspicious") for k, c in codes.items()}
    out = {
        "group": name, "files": files, "tests": tests,
        "commit": _git("rev-parse", "HEAD"), "dirty": bool(_git("status", "--porcelain", "src")),
        "wall_s": round(time.time() - t0, 1),
        "cpu_s": round(c1.children_user + c1.children_system - c0.children_user - c0.children_system, 1),
        "load": os.getloadavg(), "mutmut_exit": rc, "sample": sample_info,
        "verdicts": dict(sorted(verdicts.items())),
    }
    RESULTS.mkdir(parents=True, exist_ok=True)
    path = RESULTS / f"mutation_{name}.json"
    if names and path.exists() and (reuse or not sample):  # a re-run of the open mutants: earlier kills stand
        prev = json.loads(path.read_text())
        merged = dict(prev["verdicts"])
        merged.update({k: v for k, v in verdicts.items() if k in names})
        out["verdicts"] = dict(sorted(merged.items()))
        out["reruns"] = prev.get("reruns", []) + [
            {"commit": out["commit"], "dirty": out["dirty"], "mutants": len(names), "wall_s": out["wall_s"],
             "cpu_s": out["cpu_s"], "load": out["load"], "tests": tests}]
        for key in ("wall_s", "cpu_s", "load", "commit", "dirty", "tests"):
            out[key] = prev[key]
        for key, value in prev.items():  # a sampled run's sample sizes, loads, notes, verifications
            if out.get(key) is None:
                out[key] = value
    path.write_text(json.dumps(out, indent=1) + "\n")
    return out


def verify(name: str, tests: list[str]) -> dict[str, str]:
    """Run the given test files against each open mutant of a group's scratch copy, one pytest
    process per mutant (mutmut's own switch: ``MUTANT_UNDER_TEST``), without regenerating
    the mutants or the test map; the test files are copied in first. A failing run (exit 1)
    is a kill, merged into the stored verdicts; a passing one leaves the mutant open; a run
    longer than ``$KTYPE_MUTMUT_VERIFY_TIMEOUT`` seconds (900) is stopped and counts as a
    timeout (killed, as mutmut counts a looping mutant). With
    ``KTYPE_MUTMUT_RECHECK_TIMEOUTS=1`` mutmut's timeouts are re-taken the same way (a passing
    run makes the mutant a survivor); ``=only`` re-takes them and nothing else."""
    work = Path(os.environ.get("KTYPE_MUTMUT_DIR", "/tmp/ktype-mutmut")) / name
    for t in tests:
        f = t.split("::")[0]
        shutil.copy2(ROOT / f, work / "mutants" / f)
    path = RESULTS / f"mutation_{name}.json"
    data = json.loads(path.read_text())
    # the mutated source first; then whatever PYTHONPATH holds mutmut itself (its trampoline imports it)
    env = dict(os.environ, NUMBA_THREADING_LAYER="workqueue",
               PYTHONPATH=os.pathsep.join(x for x in (str(work / "mutants" / "src"), os.environ.get("PYTHONPATH")) if x))
    found: dict[str, str] = {}
    only = [x for x in os.environ.get("KTYPE_MUTMUT_ONLY", "").split(",") if x]
    limit = float(os.environ.get("KTYPE_MUTMUT_VERIFY_TIMEOUT", "900"))  # seconds per mutant
    todo = open_mutants(name)
    # a mutmut "timeout" is a CPU limit of a few times the selected tests' own time; a forked
    # child that must first compile numba kernels (their disk cache misses in the scratch copy)
    # can pass it without looping, so these verdicts are re-taken one pytest per mutant
    recheck = os.environ.get("KTYPE_MUTMUT_RECHECK_TIMEOUTS") in ("1", "only")
    if recheck:
        todo = [] if os.environ["KTYPE_MUTMUT_RECHECK_TIMEOUTS"] == "only" else todo
        todo += [m for m, v in data["verdicts"].items() if v == "timeout"]
    for m in todo:
        if only and not any(x in m for x in only):
            continue
        env["MUTANT_UNDER_TEST"] = m
        try:
            rc = subprocess.run(["nice", "-n", NICE, sys.executable, "-m", "pytest", *PYTEST_ARGS, "-x", *tests],
                                cwd=work / "mutants", env=env, capture_output=True, timeout=limit).returncode
        except subprocess.TimeoutExpired:  # the mutant loops (pytest-timeout is off here, as in mutmut's runs)
            found[m] = "timeout"
        else:
            found[m] = "killed" if rc == 1 else "crash" if rc in CRASH else "survived" if rc == 0 else f"error {rc}"
        print(m, found[m], flush=True)
        if found[m] in KILLED or (recheck and data["verdicts"][m] == "timeout" and found[m] == "survived"):
            data["verdicts"][m] = found[m]
    data.setdefault("verified", []).append({"tests": tests, "commit": _git("rev-parse", "HEAD"),
                                            "load": os.getloadavg(), "results": found})
    path.write_text(json.dumps(data, indent=1) + "\n")
    return found


def open_mutants(name: str) -> list[str]:
    """Mutants of a group's stored results that are neither killed nor judged equivalent."""
    eq = tomllib.loads(EQUIVALENT.read_text()) if EQUIVALENT.exists() else {}
    equivalent = {m for section in eq.values() for m in section}
    data = json.loads((RESULTS / f"mutation_{name}.json").read_text())
    return [m for m, v in data["verdicts"].items()
            if v not in KILLED and v != "not checked" and m not in equivalent and not m.startswith(IMPORT_TIME)]


def _module(mutant: str) -> str:
    return mutant.split(".x_")[0].split(".xǁ")[0] if ".x" in mutant else mutant.rsplit(".", 1)[0]


def interval(killed: int, n: int, population: float, z: float = 1.96) -> tuple[float, float]:
    """95 % Wilson interval (in %) of a module's score from ``killed`` of ``n`` sampled
    non-equivalent mutants, with the finite-population correction for a module of
    ``population`` non-equivalent mutants (a module run to the end has no sampling error)."""
    if n == 0:
        return 0.0, 100.0
    if n >= population:
        return 100.0 * killed / n, 100.0 * killed / n
    n_eff = n * (population - 1) / (population - n) if population > 1 else float(n)
    p = killed / n
    centre = (p + z * z / (2 * n_eff)) / (1 + z * z / n_eff)
    half = z / (1 + z * z / n_eff) * (p * (1 - p) / n_eff + z * z / (4 * n_eff * n_eff)) ** 0.5
    return 100.0 * max(0.0, centre - half), 100.0 * min(1.0, centre + half)


def _load(data: dict) -> str:
    loads = [x[0] for x in data.get("loads", [])] or [data["load"][0]]
    lo, hi = min(loads), max(loads)
    return f"{lo:.0f}" if round(lo) == round(hi) else f"{lo:.0f}–{hi:.0f}"


def _result_files() -> list[Path]:
    return sorted(p for p in RESULTS.glob("mutation_*.json") if p.name != "mutation_plants.json")


def _plants_table() -> str:
    """The hand-planted bugs of ``tools/mutation_plants.py`` and their verdicts."""
    path = RESULTS / "mutation_plants.json"
    if not path.exists():
        return ""
    data = json.loads(path.read_text())
    def cell(text: str) -> str:
        return text.replace("|", "\\|")

    rows = [f"| `{name}` | `{r['file']}` | {cell(r['breaks'])} | {r['verdict']} | "
            f"{cell(', '.join('`' + f.split('::')[-1] + '`' for f in r['failed'])) or '-'} | {r['load'][0]:.0f} |"
            for name, r in data["plants"].items()]
    return (f"\nHand-planted bugs (`tools/mutation_plants.py`, commit `{data['commit'][:9]}`; each applied to a "
            "scratch copy of `src/`, the named tests run):\n\n"
            "| plant | file | the bug | verdict | first failing test | load |\n|---|---|---|---|---|---|\n"
            + "\n".join(rows) + "\n")


def run_all(size: int, batch: int, reuse: bool, groups: list[str]) -> None:
    """``--all``: every group (or the named ones) sampled in rounds, then the hand plants, then the report."""
    for g in groups or list(GROUPS):
        out = run_rounds(g, size, batch, reuse=reuse)
        print(g, {v: list(out["verdicts"].values()).count(v) for v in set(out["verdicts"].values())}, flush=True)
    subprocess.run(["nice", "-n", NICE, sys.executable, str(ROOT / "tools" / "mutation_plants.py")], cwd=ROOT)


def report() -> str:
    eq = tomllib.loads(EQUIVALENT.read_text()) if EQUIVALENT.exists() else {}
    equivalent = {m: r for section in eq.values() for m, r in section.items()}
    rows, open_, groups = [], [], []
    for path in _result_files():
        for m in json.loads(path.read_text())["verdicts"]:
            if m.startswith(IMPORT_TIME):
                equivalent.setdefault(m, "import: runs only at import, before mutmut activates a mutant")
    for path in _result_files():
        data = json.loads(path.read_text())
        by_mod: dict[str, dict[str, int]] = {}
        for m, v in data["verdicts"].items():
            c = by_mod.setdefault(_module(m), {"mutants": 0, "killed": 0, "equivalent": 0, "survived": 0,
                                                "no tests": 0, "other": 0, "not run": 0})
            if v == "not checked":  # drawn but not run before the run was stopped
                c["not run"] += 1
                continue
            c["mutants"] += 1
            if v in KILLED:
                c["killed"] += 1
            elif m in equivalent:
                c["equivalent"] += 1
            elif v == "survived":
                c["survived"] += 1
                open_.append(m)
            elif v == "no tests":
                c["no tests"] += 1
                open_.append(m)
            else:
                c["other"] += 1
                open_.append(m)
        g = {"mutants": 0, "killed": 0, "equivalent": 0, "open": 0, "population": 0.0}
        for mod, c in sorted(by_mod.items()):
            denom = c["mutants"] - c["equivalent"]
            if not c["mutants"]:
                rows.append(f"| `{mod}` | 0 of {c['not run']} | not run before the deadline | | | | | | | | |")
                continue
            score = 100.0 * c["killed"] / denom if denom else 100.0
            smp = (data.get("sample") or {}).get(mod)
            ran = c["mutants"]
            size = f"{ran} of {smp[0]}" if smp and ran < smp[0] else "all"
            total = smp[0] if smp else ran
            lo, hi = interval(c["killed"], denom, total * denom / ran)
            g["mutants"] += ran
            g["killed"] += c["killed"]
            g["equivalent"] += c["equivalent"]
            g["open"] += c["survived"] + c["no tests"] + c["other"]
            g["population"] += total * denom / ran
            rows.append(f"| `{mod}` | {size} | {c['mutants']} | {c['killed']} | {c['equivalent']} | "
                        f"{c['survived']} | {c['no tests'] + c['other']} | **{score:.1f} %** | "
                        f"{lo:.0f}–{hi:.0f} % | `{data['commit'][:9]}`{'+' if data['dirty'] else ''} | "
                        f"{_load(data)} |")
        if g["mutants"]:
            denom = g["mutants"] - g["equivalent"]
            lo, hi = interval(g["killed"], denom, g["population"])
            score = 100.0 * g["killed"] / denom if denom else 100.0
            groups.append(f"| `{path.stem.removeprefix('mutation_')}` | {g['mutants']} | {g['killed']} | "
                          f"{g['equivalent']} | {g['open']} | **{score:.1f} %** | {lo:.0f}–{hi:.0f} % |")
    head = ("| module | mutants run | mutants | killed | equivalent | survived | no tests / other | "
            "score (killed / non-equivalent) | 95 % interval | commit | load |\n"
            "|---|---|---|---|---|---|---|---|---|---|---|\n")
    text = ("Per group (the modules' samples pooled; the interval is Wilson's with the finite-population "
            "correction):\n\n| group | mutants sampled | killed | equivalent | open | score | 95 % interval |\n"
            "|---|---|---|---|---|---|---|\n" + "\n".join(groups) + "\n\nPer module:\n\n")
    text += head + "\n".join(rows) + "\n"
    measured = {p.stem.removeprefix("mutation_") for p in _result_files()}
    missing = [g for g in GROUPS if g not in measured]
    if missing:
        text += ("\nGroups not measured yet (defined in `tools/mutation.py`, no stored verdicts): "
                 + ", ".join(f"`{g}`" for g in missing) + ".\n")
    if open_:
        text += "\nOpen (not killed, not judged equivalent):\n\n" + "\n".join(f"* `{m}`" for m in open_) + "\n"
    text += _plants_table()
    (RESULTS / "mutation.md").write_text(text)
    return text


def show(names: list[str]) -> str:
    """The diff of each named mutant against its original function, regenerated from the
    working tree with mutmut's own mutator (no scratch directory needed: a name stays valid
    while its function's text is unchanged)."""
    import difflib
    import re

    from mutmut.mutation.file_mutation import mutate_file_contents  # the optional extra

    out = []
    for name in names:
        mod = _module(name)
        path = ROOT / "src" / (mod.replace(".", "/") + ".py")
        if not path.exists():
            path = ROOT / "src" / mod.replace(".", "/") / "__init__.py"
        if not path.exists():
            out.append(f"{name}: no module {mod} in src/\n")
            continue
        code = mutate_file_contents(str(path), desugar(path.read_text())).code
        fn = name[len(mod) + 1:]
        base = re.sub(r"__mutmut_\d+$", "__mutmut_orig", fn)

        def grab(n: str, code: str = code) -> list[str]:
            m = re.search(r"(?ms)^( *)def " + re.escape(n) + r"\(.*?(?=^\1def |^(?!\))\S|\Z)", code)
            return m.group(0).splitlines(keepends=True) if m else []

        a, b = grab(base), grab(fn)
        if not b:
            out.append(f"{name}: not found (its function changed since it was measured?)\n")
            continue
        diff = [ln for ln in difflib.unified_diff(a, b, n=1) if not ln.startswith(("---", "+++"))][2:]
        out.append(f"== {name} ({path.relative_to(ROOT)})\n" + "".join(diff))
    return "\n".join(out)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("groups", nargs="*")
    ap.add_argument("--list", action="store_true")
    ap.add_argument("--report", action="store_true")
    ap.add_argument("--sample", type=int, default=0,
                    help="run only N mutants per module, drawn uniformly at random (seed 0)")
    ap.add_argument("--verify", nargs="+", metavar="TEST_FILE",
                    help="run these test files against each open mutant of the groups' scratch copies")
    ap.add_argument("--batch", type=int, default=0,
                    help="with --sample: run in rounds of B mutants per module, each module's sample being a "
                         "prefix of its own random order (stoppable, resumable with --reuse)")
    ap.add_argument("--collect", action="store_true",
                    help="store the verdicts a scratch directory holds so far, without running mutmut")
    ap.add_argument("--reuse", action="store_true", help="keep the scratch directory's mutants and verdicts")
    ap.add_argument("--show", nargs="+", metavar="MUTANT", help="print the diff of these mutants (from the working tree)")
    ap.add_argument("--rerun", action="store_true",
                    help="run only the stored open mutants again (after adding tests) and merge")
    ap.add_argument("--all", action="store_true",
                    help="the whole measurement: every group (or the named ones) with --sample (default 40) "
                         "--batch (default 20), then tools/mutation_plants.py, then --report")
    a = ap.parse_args()
    if a.show:
        print(show(a.show))
        return
    if a.all:
        run_all(a.sample or 40, a.batch or 20, a.reuse, a.groups)
        print(report())
        return
    if a.list:
        for g, (files, tests) in GROUPS.items():
            print(g, " ".join(files), "<-", " ".join(tests))
    if a.verify:
        for g in a.groups:
            verify(g, a.verify)
        print(report())
        return
    for g in a.groups:
        names = open_mutants(g) if a.rerun else None
        if a.rerun and not names:
            print(g, "no open mutants")
            continue
        if a.batch and a.sample and not a.rerun:
            out = run_rounds(g, a.sample, a.batch, reuse=a.reuse)
        else:
            out = run_group(g, names, sample=a.sample, reuse=a.reuse or a.collect, collect=a.collect)
        counts: dict[str, int] = {}
        for v in out["verdicts"].values():
            counts[v] = counts.get(v, 0) + 1
        print(g, counts, f"wall {out['wall_s']} s cpu {out['cpu_s']} s load {out['load']}", flush=True)
    if a.report or a.groups:
        print(report())


if __name__ == "__main__":
    main()
