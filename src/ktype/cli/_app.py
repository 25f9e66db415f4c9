"""The ``ktype`` typer application, its exit-code table and its two consoles.

Every command module registers itself on :data:`app` (``@app.command()``); the package
``ktype.cli`` imports them all and runs the app through :func:`ktype.cli.run`, which maps
every outcome onto the table below (documented in docs/guide.md).
"""

from __future__ import annotations

from typing import Annotated

import typer
from rich.console import Console

app = typer.Typer(
    add_completion=False,
    no_args_is_help=True,
    help="ktype: publish microdata with k-type anonymity (k-anonymity, (k,k), k-concealment, ℓ-diversity, t-closeness).",
)

#: Exit codes of every command, enforced in :func:`ktype.cli.run` and documented in docs/guide.md.
EXIT_OK = 0  # done; for check/attack: every model satisfied, no violation found
EXIT_VIOLATION = 1  # a check failed or could not be verified, or an attack succeeded
EXIT_USAGE = 2  # the command line itself is wrong (unknown option, missing argument)
EXIT_DATA = 3  # the data, a parameter, a config or a file is wrong: the message says what to fix
EXIT_INTERNAL = 4  # a bug in ktype: the message says so (KTYPE_DEBUG=1 shows the traceback)
EXIT_INTERRUPTED = 130  # Ctrl-C (SIGINT)

err = Console(stderr=True, soft_wrap=True)  # messages hold paths: never break them
out = Console()


def _print_version(value: bool) -> None:
    if value:
        from .. import __version__

        print(f"ktype {__version__}")
        raise typer.Exit(0)


@app.callback()
def _root(
    version: Annotated[bool, typer.Option("--version", callback=_print_version, is_eager=True,
                                          help="Print ktype's version and exit.")] = False,
) -> None:
    """ktype: publish microdata with k-type anonymity (k-anonymity, (k,k), k-concealment, ℓ-diversity, t-closeness)."""
