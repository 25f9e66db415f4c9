"""``ktype datasets`` and ``ktype algorithms``: what is bundled and what is registered."""

from __future__ import annotations

from typing import Annotated, Any

import typer

from ._app import app
from ._print import stdout


@app.command()
def datasets() -> None:
    """List the bundled datasets."""
    from rich.table import Table

    from ..data.bundled import bundled_datasets

    tab = Table(title="bundled datasets")
    tab.add_column("name")
    tab.add_column("description")
    for kx, v in bundled_datasets().items():
        tab.add_row(kx, v)
    stdout().print(tab)


def _algorithm_entry(a: Any) -> dict[str, Any]:
    """One registered algorithm as plain data (``ktype algorithms --json`` / ``--verbose``)."""
    return {"name": a.name, "recoding": a.recoding, "models": [m.__name__ for m in a.models],
            "optimal": bool(a.optimal), "randomized": bool(a.randomized),
            "options": {kx: v for kx, v in a.options.items()}, "description": a.description,
            "reference": a.reference}


@app.command()
def algorithms(
    as_json: Annotated[bool | None, typer.Option("--json", help="Print every algorithm's capabilities, options and description as JSON.")] = None,
    verbose: Annotated[bool | None, typer.Option("--verbose", "-v", help="Also print each algorithm's options, description and reference.")] = None,
) -> None:
    """List the registered algorithms and their capabilities.

    The table (name, recoding, models, randomized) fits 80 columns without cutting a name;
    --verbose adds each algorithm's options, description and reference, --json all of it."""
    from rich.markup import escape
    from rich.table import Table

    from ..algorithms import all_algorithms

    out = stdout()
    entries = [_algorithm_entry(a) for a in all_algorithms()]
    if as_json:
        import json

        print(json.dumps(entries, indent=2, default=repr))
        return
    if verbose:
        for e in entries:
            out.print(f"[bold]{escape(e['name'])}[/] ({e['recoding']}; {'optimal, ' if e['optimal'] else ''}"
                      f"{'randomized' if e['randomized'] else 'deterministic'})")
            out.print(f"  models: {', '.join(e['models'])}")
            if e["options"]:
                out.print("  options: " + escape(", ".join(f"{kx}={v!r}" for kx, v in e["options"].items())))
            if e["description"]:
                out.print(f"  {escape(e['description'])}")
            if e["reference"]:
                out.print(f"  reference: {escape(e['reference'])}")
        return
    name_w = max(len(e["name"]) for e in entries)
    tab = Table(title="algorithms (--verbose: options and descriptions; --json: everything)")
    tab.add_column("name", no_wrap=True, min_width=name_w)
    tab.add_column("recoding", no_wrap=True)
    tab.add_column("models", overflow="fold")
    tab.add_column("randomized", no_wrap=True)
    for e in entries:
        tab.add_row(e["name"], e["recoding"], ", ".join(e["models"]), "yes" if e["randomized"] else "no")
    out.print(tab)
