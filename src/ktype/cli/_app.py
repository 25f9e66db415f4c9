"""The ``ktype`` typer application, its exit-code table and its two consoles.

Every command module registers itself on :data:`app` (``@app.command()``); the package
``ktype.cli`` imports them all and runs the app through :func:`ktype.cli.run`, which maps
every outcome onto the table below (documented in docs/guide.md).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any

import typer

if TYPE_CHECKING:
    from rich.console import Console

app = typer.Typer(
    add_completion=False,
    no_args_is_help=True,
    # Plain (click) help and usage errors: typer's rich help formatter imports rich's markdown,
    # traceback and pretty-printing modules, about 0.1-0.2 s of the 0.3 s a ``ktype --help`` took.
    rich_markup_mode=None,
    help="ktype: publish microdata with k-type anonymity (k-anonymity, (k,k), k-concealment, ℓ-diversity, t-closeness).",
)

#: Exit codes of every command, enforced in :func:`ktype.cli.run` and documented in docs/guide.md.
EXIT_OK = 0  # done; for check/attack: every model satisfied, no violation found
EXIT_VIOLATION = 1  # a check failed or could not be verified, or an attack succeeded
EXIT_USAGE = 2  # the command line itself is wrong (unknown option, missing argument)
EXIT_DATA = 3  # the data, a parameter, a config or a file is wrong: the message says what to fix
EXIT_INTERNAL = 4  # a bug in ktype: the message says so (KTYPE_DEBUG=1 shows the traceback)
EXIT_INTERRUPTED = 130  # Ctrl-C (SIGINT)

#: The two consoles, ``err`` (standard error) and ``out`` (standard output), are created on first
#: use (module ``__getattr__``), so that a command that prints nothing through rich (``--help``,
#: ``--version``) does not import rich. A test or an embedding program may replace them here.
err: Console
out: Console


def __getattr__(name: str) -> Any:
    if name in ("err", "out"):
        from rich.console import Console

        console = Console(stderr=True, soft_wrap=True) if name == "err" else Console()  # err: messages hold paths
        globals()[name] = console
        return console
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


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
