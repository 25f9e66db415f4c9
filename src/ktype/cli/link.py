"""``ktype link``: the linking attack of the k-anonymity survey on any release and external
table (:func:`ktype.attacks.link_files`; Ciriani et al., "k-Anonymity", Springer 2007, §1)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from . import _options as opt
from ._app import EXIT_OK, EXIT_VIOLATION, app
from ._print import fail, print_json, stdout


@app.command()
def link(
    released: opt.Released,
    external: Annotated[Path | None, typer.Option("--external", help="The identified external table (CSV/Parquet), e.g. a voter list.")] = None,
    on: Annotated[list[str] | None, typer.Option("--on", help="Attributes both tables share (comma-separated or repeated), e.g. zip,dob,sex.")] = None,
    k: opt.K = None,
    hierarchy: opt.Hierarchy = None,
    as_json: opt.Json = None,
    config: opt.Config = None,
    sep: opt.Sep = None,
) -> None:
    """Join a release with an identified external table: which external records it links to
    one published row (re-identified), or to fewer than --k.

    Exit 1 when some record is linked uniquely (or, with --k, to fewer than k rows); 0 otherwise.
    """
    params = dict(locals())
    from .._config import parse_hierarchies, split_list
    from ..attacks import link_files
    from ..exceptions import KtypeError

    try:
        opts = opt.gather(link, params)
        ext = opt.require(opts, "external", "--external", "--external voters.csv")
        cols = split_list(opt.require(opts, "on", "--on", "--on zip,dob,sex"))
        rep = link_files(released, ext, cols, hierarchies=parse_hierarchies(opts.get("hierarchy")) or None,
                         sep=opts.get("sep"))
    except KtypeError as e:
        fail(e)
        return
    kk = opts.get("k")
    summary = rep.summary(kk)
    if opts.get("json"):
        print_json(summary)
    else:
        stdout().print(rep.render(kk), markup=False)
    bad = summary["unique"] or (kk is not None and summary[f"ambiguous_below_{kk}"])
    raise typer.Exit(EXIT_VIOLATION if bad else EXIT_OK)
