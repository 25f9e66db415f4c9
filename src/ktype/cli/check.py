"""``ktype check`` (audit a release file, then check its models) and ``ktype metrics``
(information loss of a release file against its original)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

from . import _options as opt
from . import _reading
from ._app import EXIT_OK, EXIT_VIOLATION, app
from ._print import fail, print_json, stdout


def _models(opts: dict[str, Any]) -> Any:
    """The models named by --model (with their parameters) or implied by --k/--l/--p/--t; None
    when none is given (the release's metadata says)."""
    from .._config import split_list
    from ..api import make_models, models_from_names
    from ..exceptions import KtypeError

    names = list(split_list(opts.get("model")))
    params = {key: opts.get(key) for key in ("k", "l", "c", "p", "t", "distance")}
    div = opts.get("diversity")
    if names:
        if div is not None:
            raise KtypeError("--diversity only applies without --model; name the variant as the model, "
                             "e.g. --model recursive-cl-diversity.")
        return models_from_names(names, **params)
    if any(v is not None for v in params.values()):
        return make_models(diversity=div, **params)
    return None


def audit_inputs(opts: dict[str, Any]) -> tuple[Any, Any, dict[str, Any]]:
    """What ``check`` and ``report`` audit a release file against: the original (a Dataset when
    the roles are given, else the table with the roles of the release's metadata), the models
    (None: the metadata's claim) and the audit's keywords."""
    from ..data.dataset import read_table
    from ..exceptions import KtypeError
    from ..release import RECODINGS

    models = _models(opts)
    rec = "local" if opts.get("local") else opts.get("recoding")
    if rec is not None and rec not in RECODINGS:
        from .._validation import unknown_name

        raise unknown_name("recoding", str(rec), RECODINGS)
    roles = _reading.roles(opts)
    rd = _reading.reading(opts)
    orig_path = opts.get("original")
    if opts.get("dataset") or (orig_path is not None and roles["quasi_identifiers"]):
        orig: Any = _reading.load(opts, orig_path)
        roles["insensitive"] = tuple(orig.insensitive)  # '*' resolved against the table
    elif orig_path is None:
        raise KtypeError("Give the original table with --original FILE (or --dataset adult): a release is audited "
                         "against it.")
    else:  # roles from the release's metadata
        if "*" in roles["insensitive"]:
            raise KtypeError("--insensitive '*' needs the roles (--qi ...): without them they come from the "
                             "release's metadata, which says which columns are insensitive.")
        orig = read_table(Path(orig_path), sep=rd.sep, types=rd.types, na_values=rd.na_values, encoding=rd.encoding)
    kw = {"quasi_identifiers": list(roles["quasi_identifiers"]) or None, "sensitive": list(roles["sensitive"]),
          "identifiers": list(roles["identifiers"]), "insensitive": list(roles["insensitive"]),
          "hierarchies": roles["hierarchies"], "recoding": rec, "sep": rd.sep, "csv_escape": opts.get("csv_escape"),
          "missing": rd.missing}
    return orig, models, kw


@app.command()
def check(
    released: opt.Released,
    original: opt.Original = None,
    dataset: opt.Dataset = None,
    rows: opt.Rows = None,
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
    as_json: Annotated[bool | None, typer.Option("--json", help="Print the audit and verdicts as JSON.")] = None,
    config: opt.Config = None,
    sep: opt.Sep = None,
    encoding: opt.Encoding = None,
    csv_escape: opt.ReadCsvEscape = None,
    types: opt.Type = None,
    na_values: opt.NaValues = None,
    missing: opt.Missing = None,
    progress: opt.Progress = None,
) -> None:
    """Audit a released file against its original, then check its models.

    The release file and its metadata are untrusted; the original and the roles, models and
    hierarchies given here are trusted. The audit: no identifier or undeclared column; every
    published row (all-* rows too) assigned to a distinct original record it generalizes;
    counts agree with the metadata.
    Exit 1 when any of it or any model fails, or a claim cannot be verified (metadata stale,
    missing or listing no model, a claimed algorithm that cannot have produced the release);
    exit 2 on a usage error.
    """
    params = dict(locals())
    from ..audit import audit
    from ..exceptions import KtypeError
    from ..io.formats import FORMATS

    if FORMATS["anatomy"].detect(Path(released)):  # two tables, no one published table: the anatomy check
        from .anatomy import check_anatomy_release

        check_anatomy_release(check, params, Path(released))
        return
    try:
        opts = opt.gather(check, params)
        orig, models, audit_kw = audit_inputs(opts)
        shown = opts.get("progress")
        report = audit(orig, released, models, progress="auto" if shown is None else bool(shown), **audit_kw)
        if models is None and not report.results and not report.findings:
            raise KtypeError("Say what to check: --model NAME with its parameters (e.g. --model k-anonymity --k 5), "
                             "or just --k 5 / --l 2 / --t 0.2.")
    except KtypeError as e:
        fail(e)
        return
    if opts.get("json"):
        print_json(report.to_dict())
    else:
        _print_report(report)
    raise typer.Exit(EXIT_OK if report.passed else EXIT_VIOLATION)


def _print_report(report: Any) -> None:
    from rich.markup import escape

    out = stdout()
    f = report.facts
    if "published_rows" in f:
        out.print(f"release: {f.get('published_rows')} rows published of {f.get('input_records')} records "
                  f"({f.get('suppressed')} suppressed); metadata: {'yes' if f.get('metadata') else 'no'}; "
                  f"recoding: {f.get('recoding', '?')}")
    untrusted = f.get("untrusted_roles") or {}
    if untrusted:
        out.print("roles from the release metadata (untrusted; audited): "
                  + ", ".join(f"{c}={r}" for c, r in untrusted.items()))
    for finding in report.findings:
        out.print(f"[red]FAIL[/] {escape(str(finding))}")
    for r in report.results:
        mark = "[green]PASS[/]" if r.satisfied else "[red]FAIL[/]"
        out.print(f"{mark} {escape(r.model)}: {escape(str(r.summary))}")
    if report.findings and any(r.satisfied for r in report.results):
        out.print(f"[red]FAIL[/] the release fails its audit ({len(report.findings)} finding(s) above): a model "
                  "verdict on it proves nothing.")


@app.command()
def metrics(
    released: opt.Released,
    original: opt.Original = None,
    dataset: opt.Dataset = None,
    rows: opt.Rows = None,
    qi: opt.Qi = None,
    sensitive: opt.Sensitive = None,
    identifier: opt.Identifier = None,
    insensitive: opt.Insensitive = None,
    hierarchy: opt.Hierarchy = None,
    k: Annotated[int | None, typer.Option("--k", "-k", help="k, for measures that need it (average class size).")] = None,
    local: opt.Local = None,
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
    """Information-loss measures of a released table against its original."""
    params = dict(locals())
    from .._progress import reporting, stage
    from ..exceptions import KtypeError
    from ..measures import compute

    try:
        opts = opt.gather(metrics, params)
        shown = opts.get("progress")
        with reporting("auto" if shown is None else bool(shown)):
            with stage("read"):
                _ds, rel = _reading.release_pair(opts, released, local=bool(opts.get("local")))
            vals = compute(rel, **({"k": opts["k"]} if opts.get("k") is not None else {}))
    except KtypeError as e:
        fail(e)
        return
    if opts.get("json"):
        print_json(vals)
        return
    from rich.table import Table

    tab = Table(title="information loss")
    tab.add_column("measure")
    tab.add_column("value", justify="right")
    for kx, v in vals.items():
        tab.add_row(kx, f"{v:.6g}")
    stdout().print(tab)
