"""``ktype risk``: re-identification risk of an input table, or of a release next to its input."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

from . import _options as opt
from . import _reading
from ._app import app
from ._print import fail, fmt_num, print_json, stdout


@app.command()
def risk(
    data: Annotated[Path | None, typer.Argument(help="The input table (input mode) or, with --original/--dataset, the released table.")] = None,
    original: Annotated[Path | None, typer.Option("--original", help="Release mode: the original table (CSV/Parquet) the release was made from.")] = None,
    dataset: opt.Dataset = None,
    rows: opt.Rows = None,
    qi: opt.Qi = None,
    sensitive: opt.Sensitive = None,
    identifier: opt.Identifier = None,
    insensitive: opt.Insensitive = None,
    hierarchy: opt.Hierarchy = None,
    threshold: Annotated[float | None, typer.Option("--threshold", help="Records with risk strictly above it are 'at risk' (default 0.2).")] = None,
    population: Annotated[Path | None, typer.Option("--population", help="Population table (CSV/Parquet) the data was sampled from: exact journalist/marketer risk.")] = None,
    sampling_fraction: Annotated[float | None, typer.Option("--sampling-fraction", help="Share of the population in the data: estimated journalist/marketer risk, population uniqueness, individual risk.")] = None,
    population_size: Annotated[int | None, typer.Option("--population-size", help="Population size N (instead of --sampling-fraction).")] = None,
    weights: Annotated[str | None, typer.Option("--weights", help="Column of sampling weights for the individual risk.")] = None,
    suda_size: Annotated[int | None, typer.Option("--suda", help="Find minimal sample uniques up to this size (SUDA; at most 6; 0 = off).")] = None,
    posterior: Annotated[str | None, typer.Option("--posterior", help="Local recodings: uniform (1/#matches) or exact matching posterior.")] = None,
    local: Annotated[bool | None, typer.Option("--local", help="Treat the release as a k-type local recoding (risk from matches).")] = None,
    as_json: opt.Json = None,
    config: opt.Config = None,
    sep: opt.Sep = None,
    encoding: opt.Encoding = None,
    csv_escape: opt.ReadCsvEscape = None,
    types: opt.Type = None,
    na_values: opt.NaValues = None,
    missing: opt.Missing = None,
    progress: opt.Progress = None,
) -> None:
    """Re-identification risk (prosecutor, journalist, marketer), population uniqueness, individual
    risk, special uniques, risk drivers and identifier hints - of an input table, or of a release
    (with --original or --dataset) next to its input. For a release also, per quasi-identifier,
    how much was generalized and which published values are exact; the hints then look at the
    published values."""
    params = dict(locals())
    from .._progress import reporting
    from ..exceptions import KtypeError
    from ..risk.report import risk_report

    try:
        opts = opt.gather(risk, params)
        if _on_dask(opts):
            return
        shown = opts.get("progress")
        with reporting("auto" if shown is None else bool(shown)):
            subject = _subject(opts)
            pop = opts.get("population")
            rep = risk_report(
                subject,
                population=Path(pop) if pop else None,
                sampling_fraction=opts.get("sampling_fraction"),
                population_size=opts.get("population_size"),
                threshold=float(_or(opts.get("threshold"), 0.2)),
                posterior=_or(opts.get("posterior"), "uniform"),
                suda_max_size=int(_or(opts.get("suda"), 0)),
                weights=opts.get("weights"),
            )
            if rep["mode"] == "release":
                rep["published"] = published(subject)
    except KtypeError as e:
        fail(e)
        return
    if opts.get("json"):
        print_json(rep)
        return
    _print_risk(rep)


def _on_dask(opts: dict[str, Any]) -> bool:
    """Input mode on a partitioned Parquet dataset (a directory, glob or URL): the risk from
    distributed class counts (:mod:`ktype.dask`); printed here. False for anything else."""
    data_path = opts.get("data")
    release_mode = data_path is not None and (opts.get("original") is not None or opts.get("dataset") is not None)
    if release_mode or data_path is None:
        return False
    from ..dask._cli import is_partitioned

    if not is_partitioned(data_path):
        return False
    from ..dask._cli import risk_report as dask_risk_report

    rd = _reading.reading(opts)
    rep = dask_risk_report(str(data_path), roles=_reading.roles(opts), threshold=float(_or(opts.get("threshold"), 0.2)),
                           sampling_fraction=opts.get("sampling_fraction"), types=rd.types, missing=rd.missing,
                           given=opts)
    print_json(rep) if opts.get("json") else _print_risk(rep)
    return True


def _subject(opts: dict[str, Any]) -> Any:
    """What ``risk`` measures: the release next to its input (release mode) or the input table,
    read in a progress stage ``read``."""
    from .._progress import stage
    from ..exceptions import KtypeError

    data_path = opts.get("data")
    with stage("read"):
        if data_path is not None and (opts.get("original") is not None or opts.get("dataset") is not None):
            return _reading.release_pair(opts, Path(data_path), local=bool(opts.get("local")))[1]
        in_path = Path(data_path) if data_path is not None else None
        if in_path is not None and not _reading.roles(opts)["quasi_identifiers"]:
            from ..data.dataset import read_table
            from ..risk import identifier_hints

            rd = _reading.reading(opts)
            hints = identifier_hints(read_table(in_path, sep=rd.sep, types=rd.types, na_values=rd.na_values,
                                                encoding=rd.encoding))
            advice = "".join(f"\n  hint: {h}" for h in hints)
            raise KtypeError(f"Name the quasi-identifiers with --qi col1,col2,... to measure the risk of {in_path}.{advice}")
        return _reading.load(opts, in_path)


#: exact published values listed per quasi-identifier (the most frequent first)
EXACT_EXAMPLES = 3


def published(release: Any) -> list[dict[str, Any]]:
    """Per quasi-identifier of ``release``: its cells, how many are exact, generalized and hidden
    (suppressed or ``*``), the number of distinct exact values published and the most frequent
    of them (their labels; they are in the release), and the warnings of
    :func:`ktype.explain.qi_exactness` (exact dates, five-digit ZIP codes, tight ranges)."""
    import numpy as np

    from ..explain import qi_exactness

    ds = release.dataset
    lo, hi = np.asarray(release.lo), np.asarray(release.hi)
    shown = ~np.asarray(release.suppressed, dtype=bool)
    out = []
    for j, q in enumerate(qi_exactness(release)):
        h = ds.hierarchies[j]
        exact = shown & (lo[:, j] == hi[:, j])
        counts = np.bincount(lo[exact, j], minlength=h.size) if exact.any() else np.zeros(h.size, dtype=np.int64)
        present = np.flatnonzero(counts)
        top = present[np.argsort(-counts[present], kind="stable")][:EXACT_EXAMPLES]
        labels = [str(v) for v in h.labels(top, top)] if len(top) else []
        out.append({"column": q.column, "cells": q.cells, "exact": q.exact, "generalized": q.generalized,
                    "hidden": q.hidden, "exact_distinct": int(len(present)), "exact_examples": labels,
                    "warnings": list(q.warnings)})
    return out


def _or(value: Any, default: Any) -> Any:
    return default if value is None else value


def _print_risk(rep: dict[str, Any]) -> None:
    from rich.table import Table

    out = stdout()
    cols = (["release"] if "release" in rep else []) + ["input"]
    head = {"release": "release", "input": "input QIs unchanged" if "release" in rep else "input"}
    tab = Table(title=f"re-identification risk (threshold {rep['threshold']:g}; population: {rep['input']['population']})")
    tab.add_column("attacker model")
    tab.add_column("measure")
    for c in cols:
        tab.add_column(head[c], justify="right")
    for model in ("prosecutor", "journalist"):
        for key, label in (("highest", "highest risk"), ("average", "average risk"),
                           ("share_above_threshold", "share of records above threshold")):
            tab.add_row(model, label, *[fmt_num(rep[c][model][key]) for c in cols])
    tab.add_row("marketer", "expected share re-identified", *[fmt_num(rep[c]["marketer"]) for c in cols])
    tab.add_row("", "sample uniques", *[fmt_num(rep[c]["sample_uniques"]) for c in cols])
    tab.add_row("", "records violating 2/3/5/10-anonymity",
                *["/".join(f"{v:,}" for v in rep[c]["records_violating_k_anonymity"].values()) for c in cols])
    tab.add_row("", "records (suppressed)", *[f"{rep[c]['records']:,} ({rep[c]['suppressed']:,})" for c in cols])
    out.print(tab)
    if "release" in rep:
        out.print(f"release basis: {rep['release']['basis']}")
    pu = rep.get("population_uniqueness")
    if pu:
        t2 = Table(title=f"population uniqueness (N = {pu['population_size']:,}, sampling fraction {pu['sampling_fraction']:.4g})")
        t2.add_column("model")
        t2.add_column("population uniques", justify="right")
        t2.add_column("share of population", justify="right")
        for m, v in pu["population_uniques"].items():
            label = f"{m} (uses {pu['dankar_model']})" if m == "dankar" else m
            t2.add_row(label, fmt_num(v), fmt_num(pu["population_uniqueness"][m]))
        if "population_uniques_exact" in pu:
            t2.add_row("exact (population table)", fmt_num(pu["population_uniques_exact"]), "")
        out.print(t2)
        for m, why in pu.get("unavailable", {}).items():
            out.print(f"[yellow]{m}: n/a[/] ({why})")
    ir = rep.get("individual_risk")
    if ir:
        out.print(f"individual risk ({ir['of']}, Benedetti-Franconi): highest {fmt_num(ir['highest'])}, "
                  f"average {fmt_num(ir['average'])}, expected re-identifications {fmt_num(ir['expected_reidentifications'])}")
    sd = rep.get("suda")
    if sd:
        contrib = ", ".join(f"{a} {v:.0f}%" for a, v in sorted(sd["contribution_percent"].items(), key=lambda kv: -kv[1]))
        out.print(f"SUDA (MSUs up to {sd['max_size']} attributes): {sd['records_with_msu']:,} records with an MSU, "
                  f"{sd['msus']:,} MSUs {sd['msus_by_size']}; highest score {sd['highest_score']:g}; contribution: {contrib}")
    dr = rep.get("drivers")
    if dr:
        t3 = Table(title=f"risk drivers (baseline: {dr['baseline']['uniques']:,} sample uniques)")
        for c in ("attribute", "distinct values", "uniques if removed", "uniques if generalized one level", "generalized by"):
            t3.add_column(c, justify="left" if c in ("attribute", "generalized by") else "right")
        for row in dr["attributes"]:
            t3.add_row(row["attribute"], fmt_num(row["distinct_values"]), fmt_num(row["uniques_removed"]),
                       fmt_num(row["uniques_generalized"]), row["generalized_by"])
        out.print(t3)
    _print_published(rep.get("published") or [])
    for h in rep.get("identifier_hints", []):
        out.print(f"[yellow]hint:[/] {h['column']!r} looks like {h['category']} ({h['reason']}); "
                  "declare it an identifier (--identifier) or generalize it (HIPAA Safe Harbor)")


def _print_published(rows: list[dict[str, Any]]) -> None:
    """Per quasi-identifier of a release: how much was generalized, which values are exact."""
    from rich.markup import escape

    out = stdout()
    if rows:
        out.print("published per quasi-identifier (cells of released rows):")
    for q in rows:
        cells = q["cells"] or 1
        parts = [f"{q['exact'] / cells:.0%} exact", f"{q['generalized'] / cells:.0%} generalized"]
        if q["hidden"]:
            parts.append(f"{q['hidden'] / cells:.0%} hidden (suppressed or *)")
        line = f"  {escape(q['column'])}: " + ", ".join(parts)
        if q["exact"]:
            more = ", ..." if q["exact_distinct"] > len(q["exact_examples"]) else ""
            line += (f"; exact values published: {q['exact_distinct']:,} distinct (e.g. "
                     + ", ".join(escape(v) for v in q["exact_examples"]) + more + ")")
        out.print(line)
        for w in q["warnings"]:
            out.print(f"  [yellow]warning:[/] {escape(w)}")
