"""``ktype app``: the local web app for data stewards (:mod:`ktype.app`, extra ``ktype[app]``)."""

from __future__ import annotations

from typing import Annotated

import typer

from ._app import app


@app.command("app")
def webapp(
    host: Annotated[str | None, typer.Option("--host", help="Address to listen on (default 127.0.0.1: this computer "
                                             "only; another address prints a warning: the app shows personal data).")] = None,
    port: Annotated[int | None, typer.Option("--port", help="Port to listen on (default 8080).")] = None,
) -> None:
    """Start the local web app: load a table, set roles, choose a model and an algorithm, run with
    progress and cancel, inspect the verdict, risk and report, download the release and a config."""
    from ..app import main

    raise typer.Exit(main(host or "127.0.0.1", 8080 if port is None else port))
