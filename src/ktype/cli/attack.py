"""``ktype attack``: algorithm-aware attacks on a release file.

The command group is open: ``ktype attack`` runs the reverse-engineering attack on a
transparent algorithm's release; a new attack (e.g. ``ktype attack link``) is a new module
that registers its own command beside it, declaring its options from ``_options``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from . import _options as opt
from . import _reading
from ._app import EXIT_OK, EXIT_VIOLATION, app
from ._print import fail, print_json, stdout


@app.command()
def attack(
    released: Annotated[Path, typer.Argument(help="The released (published) table.")],
    algorithm: Annotated[str | None, typer.Option("--algorithm", "-a", help="Algorithm the adversary assumes: tailor, ace, hybrid, mask, opt_gen, vul_gen, mondrian_ldiv (required).")] = None,
    l: Annotated[float | None, typer.Option("--l", "-l", help="The ℓ the release was made with (required; an integer).")] = None,  # noqa: E741
    original: Annotated[Path | None, typer.Option("--original", help="The original table: its identifiers and QIs are the adversary's external source.")] = None,
    dataset: opt.Dataset = None,
    qi: opt.Qi = None,
    sensitive: opt.Sensitive = None,
    identifier: opt.Identifier = None,
    insensitive: opt.Insensitive = None,
    hierarchy: opt.Hierarchy = None,
    as_json: opt.Json = None,
    config: opt.Config = None,
    sep: opt.Sep = None,
    encoding: opt.Encoding = None,
    csv_escape: opt.ReadCsvEscape = None,
    types: opt.Type = None,
    na_values: opt.NaValues = None,
    missing: opt.Missing = None,
) -> None:
    """Reverse-engineering attack by an adversary who knows the algorithm (exact; tiny tables only).

    Prints every individual's posterior risk. Exits 1 when some risk exceeds 1/ℓ, and when no
    candidate instance yields the release under the assumed algorithm (that algorithm cannot
    have produced it, so the risks, all 0/0, prove nothing); 0 only when the release is a
    possible output and every risk is at most 1/ℓ.
    """
    params = dict(locals())
    from ..api import _integer
    from ..attacks.transparent import attack as run_attack
    from ..exceptions import KtypeError

    try:
        opts = opt.gather(attack, params)
        alg = opt.require(opts, "algorithm", "--algorithm", "--algorithm hybrid")
        ell = _integer("l", opt.require(opts, "l", "--l", "--l 2"), "The attack")
        _ds, rel = _reading.release_pair(opts, released)
        rep = run_attack(rel, alg, ell)
    except KtypeError as e:
        fail(e)
        return
    res = rep.to_dict()
    if opts.get("json"):
        print_json(res)
    else:
        from rich.table import Table

        out = stdout()
        tab = Table(title=f"algorithm-aware attack ({rep.algorithm}, ℓ = {rep.l}; bound {res['bound']})")
        tab.add_column("individual")
        tab.add_column("risk", justify="right")
        for o, r in rep.risk.items():
            mark = " [red]> 1/ℓ[/]" if r * rep.l > 1 else ""
            tab.add_row(str(o), f"{r} ({float(r):.3f}){mark}")
        out.print(tab)
        if not rep.consistent:
            verdict = (f"[red]{rep.algorithm} cannot have produced this release[/]: no candidate instance yields it, "
                       "so the risks (0/0) show nothing")
        elif rep.succeeded:
            verdict = "[red]attack succeeds[/]"
        else:
            verdict = "[green]attack fails: risk ≤ 1/ℓ for everyone[/]"
        out.print(f"{verdict}; {rep.positive_instances} of {rep.candidates} candidate instances can yield this release")
    raise typer.Exit(EXIT_VIOLATION if rep.succeeded or not rep.consistent else EXIT_OK)
