"""``ktype report``: the self-contained HTML report of a release file (:mod:`ktype.report`),
after the same audit as ``ktype check`` (the audit is the report's verification section)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from . import _options as opt
from ._app import EXIT_OK, EXIT_VIOLATION, app
from ._print import fail, stdout
from .check import audit_inputs


@app.command()
def report(
    released: opt.Released,
    output: Annotated[Path | None, typer.Option("--output", "-O", help="The report file (.html).")] = None,
    original: opt.Original = None,
    dataset: opt.Dataset = None,
    qi: opt.Qi = None,
    sensitive: opt.Sensitive = None,
    identifier: opt.Identifier = None,
    insensitive: opt.Insensitive = None,
    hierarchy: opt.Hierarchy = None,
    model: opt.Model = None,
    k: opt.K = None,
    l: opt.L = None,  # noqa: E741
    c: opt.C = None,
    p: opt.P = None,
    t: opt.T = None,
    distance: opt.Distance = None,
    diversity: opt.Diversity = None,
    recoding: opt.Recoding = None,
    local: opt.Local = None,
    config: opt.Config = None,
    sep: opt.Sep = None,
    encoding: opt.Encoding = None,
    csv_escape: opt.ReadCsvEscape = None,
    types: opt.Type = None,
    na_values: opt.NaValues = None,
    missing: opt.Missing = None,
    force: opt.Force = None,
    mkdirs: opt.Mkdirs = None,
) -> None:
    """Write the HTML report of a release file: job, verification (the audit of ``ktype check``),
    risk before and after, information loss per attribute, marginals, lattice.

    Opens offline (no network, inline plots). Exit 1 when the audit or a model fails (the
    report is still written, and says so); 3 for unusable input or output paths.
    """
    params = dict(locals())
    from ..exceptions import KtypeError
    from ..report import report_file

    try:
        opts = opt.gather(report, params)
        out = opt.require(opts, "output", "--output", "--output report.html")
        orig, models, audit_kw = audit_inputs(opts)
        path, audit = report_file(orig, released, out, models, input_label=str(opts.get("original") or opts.get("dataset")),
                                  force=bool(opts.get("force")), mkdirs=bool(opts.get("mkdirs")), **audit_kw)
    except KtypeError as e:
        fail(e)
        return
    stdout().print(f"report written to {path} ({'PASS' if audit.passed else 'FAIL'}: the audit and the models)")
    raise typer.Exit(EXIT_OK if audit.passed else EXIT_VIOLATION)
