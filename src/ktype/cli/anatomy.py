"""``ktype anatomy`` (publish a transparent algorithm's partition as anatomy) and
``ktype check-anatomy`` (check an anatomy release, whose two tables are untrusted)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Any

import typer

from . import _options as opt
from . import _reading
from ._app import EXIT_OK, EXIT_VIOLATION, app
from ._print import fail, print_json, stderr, stdout, warnings


@app.command()
def anatomy(
    input: opt.Input = None,
    output: Annotated[Path | None, typer.Option("--output", "-O", help="Prefix P of the two tables: P.qi.csv and P.sensitive.csv.")] = None,
    algorithm: Annotated[str | None, typer.Option("--algorithm", "-a", help="Transparent algorithm whose partition is published: tailor, ace, hybrid (default hybrid).")] = None,
    l: Annotated[float | None, typer.Option("--l", "-l", help="ℓ of transparent ℓ-diversity (an integer).")] = None,  # noqa: E741
    dataset: opt.Dataset = None,
    qi: opt.Qi = None,
    sensitive: opt.Sensitive = None,
    identifier: opt.Identifier = None,
    insensitive: opt.Insensitive = None,
    hierarchy: opt.Hierarchy = None,
    rng: opt.Rng = None,
    as_json: Annotated[bool | None, typer.Option("--json", help="Print the summary as JSON.")] = None,
    config: opt.Config = None,
    sep: opt.Sep = None,
    encoding: opt.Encoding = None,
    types: opt.Type = None,
    na_values: opt.NaValues = None,
    missing: opt.Missing = None,
    force: opt.Force = None,
    mkdirs: opt.Mkdirs = None,
) -> None:
    """Publish a transparent algorithm's partition as anatomy: a QI table and a sensitive table
    joined by a group ID (Xiao, Tao & Koudas, TODS 2010, §2.1). Checked before it is written.

    Insensitive columns (--insensitive, keep:) are accepted so that every column has a role;
    anatomy publishes neither them nor the identifiers."""
    params = dict(locals())
    from ..algorithms.transparent.anatomy import anatomize, anatomy_paths, write_anatomy
    from ..api import _integer
    from ..exceptions import KtypeError
    from ..io._files import check_output_path

    try:
        opts = opt.gather(anatomy, params)
        prefix = opts.get("output")
        if prefix is None:
            raise KtypeError("Give the output prefix with --output P (writes P.qi.csv and P.sensitive.csv).")
        prefix = Path(prefix)
        if not prefix.name or prefix.name in (".", ".."):
            raise KtypeError(f"--output needs a file name prefix P (writes P.qi.csv and P.sensitive.csv); got {str(prefix)!r}.")
        if opts.get("l") is None:
            raise KtypeError("Give ℓ with --l (e.g. --l 4).")
        ell = _integer("l", opts["l"], "Anatomy")
        alg = opts.get("algorithm") or "hybrid"
        paths = anatomy_paths(prefix)
        in_path = opts.get("input")
        inputs = [in_path, config, *_reading.hierarchy_files(_reading.roles(opts)["hierarchies"])]
        for what, path, other in (("QI table", paths[0], paths[1]), ("sensitive table", paths[1], paths[0])):
            check_output_path(path, what=what, inputs=inputs, others={"other table": other},
                              force=bool(opts.get("force")), mkdirs=bool(opts.get("mkdirs")))
        ds = _reading.load(opts, in_path)
        with stderr().status(f"[bold]{alg}[/] anatomy on {ds.n:,} rows ..."):
            an = anatomize(ds, alg, ell, rng=opts.get("rng"))
        try:
            write_anatomy(an, prefix)
        except OSError as e:
            raise KtypeError(f"Cannot write {e.filename or prefix}: {e.strerror or e}.") from None
    except (KtypeError, NotImplementedError) as e:
        fail(e)
        return
    notes = an.warnings()
    if ds.insensitive:
        notes = [*notes, f"anatomy publishes the QI and sensitive tables only: {', '.join(ds.insensitive)} "
                         "(insensitive) are not in the output."]
    summary = {**an.provenance, "rows": ds.n, "removed_identifiers": ds.identifiers, "verified": True,
               "qi_table": str(paths[0]), "sensitive_table": str(paths[1]), "warnings": notes}
    warnings(summary["warnings"])
    if opts.get("json"):
        print(json.dumps(summary, indent=2, default=str))
        return
    from rich.table import Table

    tab = Table(title=f"ktype anatomy — {an.provenance['algorithm']}", show_header=False)
    for key, val in summary.items():
        if key != "warnings":  # printed above, on stderr
            tab.add_row(str(key), ", ".join(val) if isinstance(val, list) else str(val))
    stdout().print(tab)


@app.command("check-anatomy")
def check_anatomy_cmd(
    prefix: Annotated[Path, typer.Argument(help="Prefix P of P.qi.csv and P.sensitive.csv.")],
    l: Annotated[float | None, typer.Option("--l", "-l", help="ℓ to check (frequency ℓ-diversity of every group; required).")] = None,  # noqa: E741
    original: Annotated[Path | None, typer.Option("--original", help="The original table: the groups must be a split of its records.")] = None,
    dataset: opt.Dataset = None,
    qi: Annotated[list[str] | None, typer.Option("--qi", help="The quasi-identifier columns of the QI table; any other column fails the check.")] = None,
    sensitive: opt.Sensitive = None,
    identifier: opt.Identifier = None,
    insensitive: opt.Insensitive = None,
    hierarchy: opt.Hierarchy = None,
    as_json: opt.Json = None,
    config: opt.Config = None,
    sep: opt.Sep = None,
    encoding: opt.Encoding = None,
    types: opt.Type = None,
    na_values: opt.NaValues = None,
    missing: opt.Missing = None,
) -> None:
    """Check an anatomy release, whose two tables are untrusted: the QI table holds only the
    declared quasi-identifiers (--qi, or the original's) beside the group ID, the tables join,
    every group is ℓ-diverse, and (with --original) some split of the original's records into
    the groups yields exactly both tables. Exit 1 if any of it fails or cannot be shown."""
    check_anatomy_release(check_anatomy_cmd, dict(locals()), prefix)


def check_anatomy_release(command: Any, params: dict[str, Any], prefix: Path) -> None:
    """Check the anatomy release at ``prefix`` with the options of ``command`` (``--l``, ``--original``
    and the roles), print the verdict and exit (1 when it fails): ``ktype check-anatomy``, and
    ``ktype check`` given an anatomy prefix (the anatomy format of :mod:`ktype.io`)."""
    from .._config import split_list
    from ..algorithms.transparent.anatomy import check_anatomy, read_anatomy
    from ..exceptions import KtypeError

    try:
        opts = opt.gather(command, params)
        ell = opt.require(opts, "l", "--l", "--l 2")
        an = read_anatomy(prefix)
        ds = None
        if opts.get("original") is not None or opts.get("dataset"):
            sens = split_list(opts.get("sensitive")) or (an.sensitive_column,)
            ds = _reading.load(opts, opts.get("original"), sensitive=sens)
        res = check_anatomy(an, ell, ds, quasi_identifiers=list(split_list(opts.get("qi"))) or None)
    except KtypeError as e:
        fail(e)
        return
    if opts.get("json"):
        print_json({"model": res.model, "satisfied": res.satisfied, **res.summary})
    else:
        mark = "[green]PASS[/]" if res.satisfied else "[red]FAIL[/]"
        stdout().print(f"{mark} {res.model}: {res.summary}")
        for why in res.summary.get("reasons", []):
            stdout().print(f"[red]FAIL[/] {why}")
    raise typer.Exit(EXIT_OK if res.satisfied else EXIT_VIOLATION)
