"""``ktype anonymize``: parse the flags and config into an :class:`~ktype.job.AnonymizationJob`,
run it with :func:`ktype.job.run_job` (what ``ktype.anonymize(job)`` runs), print the summary."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated, Any

import typer

from . import _options as opt
from ._app import app
from ._print import fail, print_json, stdout, warnings


@app.command()
def anonymize(
    input: opt.Input = None,
    dataset: opt.Dataset = None,
    rows: opt.Rows = None,
    qi: opt.Qi = None,
    sensitive: opt.Sensitive = None,
    identifier: opt.Identifier = None,
    insensitive: opt.Insensitive = None,
    hierarchy: opt.Hierarchy = None,
    k: opt.K = None,
    model: opt.Model = None,
    l: opt.L = None,  # noqa: E741
    protect: opt.Protect = None,
    diversity: opt.Diversity = None,
    c: opt.C = None,
    p: opt.P = None,
    t: opt.T = None,
    distance: opt.Distance = None,
    algorithm: opt.Algorithm = None,
    option: opt.Option = None,
    rng: opt.Rng = None,
    output: opt.Output = None,
    summary_path: opt.Summary = None,
    as_json: Annotated[bool | None, typer.Option("--json", help="Print the summary as JSON.")] = None,
    config: opt.Config = None,
    sep: opt.Sep = None,
    encoding: opt.Encoding = None,
    force: opt.Force = None,
    mkdirs: opt.Mkdirs = None,
    fmt: opt.Format = None,
    csv_escape: opt.CsvEscape = None,
    types: opt.Type = None,
    na_values: opt.NaValues = None,
    missing: opt.Missing = None,
    report: Annotated[Path | None, typer.Option("--report", help="Also write the HTML report of the release (.html): risk, "
                                                "information loss, marginals; opens offline.")] = None,
    scheduler: Annotated[str | None, typer.Option("--scheduler", help="Run on Dask (ktype[dask]): local (a cluster on "
                                                  "this machine), sync, or an address tcp://host:8786; the input is "
                                                  "a Parquet file, directory or glob and --output a Parquet "
                                                  "directory (docs/scale.md). flash or mondrian.")] = None,
    progress: Annotated[bool | None, typer.Option("--progress/--no-progress", help="Show the progress of long runs on "
                                                  "standard error (default: a bar on a terminal, nothing on a pipe; "
                                                  "--progress prints lines on a pipe too).")] = None,
) -> None:
    """Anonymize a table, verify the result with the model's independent checker, write the release."""
    params = dict(locals())  # the flags, before anything else is bound here
    from ..exceptions import KtypeError
    from ..job import CONFIG_KEYS, AnonymizationJob, run_job

    try:
        opts = opt.gather(anonymize, params)
        if opts.get("scheduler") is not None:
            _on_dask(opts)
            return
        job = AnonymizationJob.from_config({key: v for key, v in opts.items() if key in CONFIG_KEYS})
        report_path = opts.get("report")
        if report_path is not None:  # refused before any work, like the other outputs
            from ..report import check_report_path

            check_report_path(report_path, inputs=[opts.get("input"), config],
                              others={"release": opts.get("output"), "summary": opts.get("summary")},
                              force=bool(opts.get("force")), mkdirs=bool(opts.get("mkdirs")))
        shown = opts.get("progress")
        result = run_job(job, extra_inputs=[config] if config is not None else [],
                         progress="auto" if shown is None else bool(shown))
        summary = result.summary()
        if report_path is not None:
            from ..report import write_report

            written = write_report(result.release, report_path, input_label=summary["input"],
                                   inputs=[opts.get("input"), config], force=bool(opts.get("force")),
                                   mkdirs=bool(opts.get("mkdirs")))
            summary["report"] = str(written)
    except KtypeError as e:
        fail(e)
        return
    warnings(summary["warnings"])
    if opts.get("json"):
        print_json(summary)
        return
    _print_summary(result, summary)


def _on_dask(opts: dict[str, Any]) -> None:
    """``--scheduler``: the same job on a partitioned table with :func:`ktype.dask.anonymize`."""
    from .._config import parse_hierarchies, split_list
    from ..exceptions import KtypeError
    from ..models._names import make_models
    from ._app import EXIT_OK, EXIT_VIOLATION

    source, output = opts.get("input"), opts.get("output")
    if source is None or output is None:
        raise KtypeError("--scheduler runs on a partitioned Parquet input: give INPUT (a file, directory or glob) "
                         "and --output DIR.")
    try:
        import ktype.dask as kd
    except ImportError as e:
        raise KtypeError(f"--scheduler needs the 'dask' extra ({e.name or e}): pip install 'ktype[dask]'.") from None
    from .._config import parse_options
    from ._reading import reading

    rd = reading(opts)
    models = make_models(k=opts.get("k"), l=opts.get("l"), diversity=opts.get("diversity"), c=opts.get("c"),
                         p=opts.get("p"), t=opts.get("t"), distance=opts.get("distance"),
                         sensitive=(split_list(opts.get("sensitive")) or [None])[0])
    summary = kd.anonymize(str(source), output, algorithm=opts.get("algorithm") or "mondrian", models=models,
                           scheduler=opts.get("scheduler"), options=parse_options(opts.get("option")) or None,
                           quasi_identifiers=split_list(opts.get("qi")), sensitive=split_list(opts.get("sensitive")),
                           identifiers=split_list(opts.get("identifier")),
                           insensitive=split_list(opts.get("insensitive")),
                           hierarchies=parse_hierarchies(opts.get("hierarchy")),
                           types=rd.types, missing=rd.missing,
                           progress=sys.stderr.isatty() if opts.get("progress") is None else bool(opts["progress"]))
    print_json(summary)
    ok = all(v["satisfied"] for v in summary["verdicts"])
    raise typer.Exit(EXIT_OK if ok else EXIT_VIOLATION)


def _print_summary(result: Any, summary: dict[str, Any]) -> None:
    from rich.table import Table

    ds, rel = result.dataset, result.release
    out_path = result.written.get("output")
    tab = Table(title=f"ktype release — {result.algorithm}", show_header=False)
    tab.add_row("input", summary["input"])
    tab.add_row("rows / QIs", f"{ds.n:,} / {ds.r}")
    mark = ("✓ verified by the independent checker; the written file read back identical" if out_path
            else "✓ verified by the independent checker")
    tab.add_row("models", ", ".join(summary["models"]) + f"  [green]{mark}[/]")
    tab.add_row("suppressed", str(rel.n_suppressed))
    tab.add_row("published unchanged", ", ".join(summary["published_unchanged"]) or "(none)")
    tab.add_row("removed identifiers", ", ".join(summary["removed_identifiers"]) or "(none)")
    tm = rel.provenance["timings"]
    tab.add_row(
        "time",
        f"{tm['algorithm_s']:.3f} s (+ {tm['verification_s']:.3f} s verification"
        + (f", + {tm['compile_s']:.2f} s one-time numba compilation)" if tm.get("compile_s", 0) >= 0.005 else ")"),
    )
    for name, v in summary["measures"].items():
        tab.add_row(name, f"{v:.6g}")
    rk = summary["risk"]
    if isinstance(rk["input"], dict) and isinstance(rk["release"], dict):
        tab.add_row("prosecutor risk", f"highest {rk['input']['highest']:.4g} → {rk['release']['highest']:.4g}, "
                    f"average {rk['input']['average']:.4g} → {rk['release']['average']:.4g} (input → release; "
                    "ktype risk for more)")
    tab.add_row("output", str(out_path) if out_path else "(none; use --output FILE)")
    if summary.get("report"):
        tab.add_row("report", summary["report"])
    stdout().print(tab)
    _print_published(rel)


def _print_published(rel: Any) -> None:
    """Per quasi-identifier: what was published exactly, and the warnings a steward must read."""
    from rich.markup import escape

    from ..explain import qi_exactness, recoding_note

    rows = qi_exactness(rel)
    stdout().print("published: " + "; ".join(escape(str(q)) for q in rows))
    for q in rows:
        for w in q.warnings:
            stdout().print(f"[yellow]warning:[/] {escape(w)}")
    note = recoding_note(rel)
    if note:
        stdout().print(f"[bold]note:[/] {escape(note)}")
