"""Shared option declarations: one flag, one type and one config key per concept.

Every command declares its options with the aliases below, so ``--l`` is a number, ``--model``
a list of model names and ``-O`` the output file in every command that has them. The config
key of a parameter is its name (``_KEY`` lists the few Python names that differ), and the
kind of value it takes is :data:`ktype.job.OPTION_KINDS`, the one schema of configs and
flags; ``tests/test_cli_contract.py`` checks each command against it. :func:`gather` is the
one way a command reads its options: the config file's values (unknown keys and wrong types
are errors) overridden by the flags given.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

from ..exceptions import KtypeError

#: Python parameter name -> config key, where they differ
_KEY = {"summary_path": "summary", "as_json": "json", "fmt": "format", "types": "type", "suda_size": "suda"}


def config_key(param: str) -> str:
    """The config key (and kind-table entry) of a command's parameter."""
    return _KEY.get(param, param)


def command_kinds(command: Any) -> dict[str, str]:
    """Config key -> kind of value for every option of ``command`` (from the one schema)."""
    import inspect

    from .._config import OPTION_KINDS

    keys = {}
    for p in inspect.signature(command).parameters:
        if p == "config":
            continue
        key = config_key(p)
        if key not in OPTION_KINDS:  # a programming error, caught by the contract test
            raise KtypeError(f"option {p!r} has no entry in ktype.job.OPTION_KINDS")
        keys[key] = OPTION_KINDS[key]
    return keys


def _given(value: Any) -> bool:
    return value is not None and value != [] and value != ()


def gather(command: Any, params: dict[str, Any]) -> dict[str, Any]:
    """The options of one invocation as config keys: the ``--config`` file's values (checked
    against the command's keys and kinds), overridden by each flag given on the command line."""
    from .._config import read_config

    config = params.get("config")
    opts = read_config(config, command_kinds(command), what="config file") if config is not None else {}
    for name, value in params.items():
        if name != "config" and _given(value):
            opts[config_key(name)] = value
    return opts


def require(opts: dict[str, Any], key: str, flag: str, example: str) -> Any:
    """A required option (from the flags or the config); missing is a usage error (exit 2)."""
    value = opts.get(key)
    if value is None:
        from typer._click.exceptions import UsageError

        raise UsageError(f"Missing option '{flag}' (or '{key}:' in the config), e.g. {example}.")
    return value


def _sep_flag(value: str | None) -> str | None:
    if value is None:
        return None  # nothing to check: do not import the I/O stack (pandas) for the default
    from ..io._files import normalize_sep

    try:
        return normalize_sep(value)
    except KtypeError as e:
        raise typer.BadParameter(str(e)) from None


# ---------------------------------------------------------------------- input and roles
Input = Annotated[Path | None, typer.Argument(help="Input CSV or Parquet file.")]
Released = Annotated[Path, typer.Argument(help="The released (published) file; its metadata (Parquet) or "
                                                "NAME.ktype.json sidecar (CSV) is read.")]
Original = Annotated[Path | None, typer.Option("--original", help="The original table (CSV/Parquet) the release was made from.")]
Dataset = Annotated[str | None, typer.Option("--dataset", help="Use a bundled dataset instead of an input file (adult).")]
Qi = Annotated[list[str] | None, typer.Option("--qi", help="Quasi-identifier columns (comma-separated or repeated).")]
Sensitive = Annotated[list[str] | None, typer.Option("--sensitive", "-s", help="Sensitive columns.")]
Identifier = Annotated[list[str] | None, typer.Option("--identifier", help="Identifier columns (removed from the release).")]
Insensitive = Annotated[list[str] | None, typer.Option(
    "--insensitive", help="Columns released unchanged and unprotected (config: insensitive: or keep:); '*' = every "
    "column without another role. Every column needs a role.")]
Rows = Annotated[int | None, typer.Option("--rows", help="Use only the first N records of the input (e.g. a sample "
                                                           "of --dataset adult, as the web app offers).")]
Hierarchy = Annotated[list[str] | None, typer.Option(
    "--hierarchy", "-H", help="COLUMN=SPEC with SPEC a hierarchy CSV path, ordered, flat, intervals:5,10,20, "
    "masking:1,2,3 or dates[:month,quarter,year,decade].")]
Config = Annotated[Path | None, typer.Option("--config", help="YAML/TOML file holding any of these options (keys = "
                                                              "option names; flags win).")]

# ---------------------------------------------------------------------- reading
Sep = Annotated[str | None, typer.Option("--sep", callback=_sep_flag, help="CSV separator: one character, or \\t / tab "
                                                                          "for a tab (sniffed by default).")]
Encoding = Annotated[str | None, typer.Option("--encoding", help="Text encoding of the input CSV (default utf-8; e.g. "
                                                                 "latin-1, cp1252).")]
Type = Annotated[list[str] | None, typer.Option(
    "--type", help="Column types COLUMN=TYPE (text, int, float, date, date:FORMAT such as date:%m/%d/%Y), "
    "comma-separated or repeated. Undeclared CSV columns are text unless unambiguously numeric.")]
NaValues = Annotated[list[str] | None, typer.Option("--na-values", help="Strings that mean 'missing' (e.g. NA,?,null). "
                                                                        "Default: only empty cells.")]
Missing = Annotated[list[str] | None, typer.Option("--missing", help="Missing-value policy: error (default), category "
                                                                     "or suppress; for all columns or COLUMN=POLICY.")]

# ---------------------------------------------------------------------- privacy requirement
Model = Annotated[list[str] | None, typer.Option(
    "--model", "-m", help="Model name(s): k-anonymity, kk-anonymity, k-concealment, distinct-l-diversity, "
    "t-closeness, ... With one k-type model and --k: which model k means (default: the algorithm's own).")]
K = Annotated[int | None, typer.Option("--k", "-k", help="k of the k-type model.")]
L = Annotated[float | None, typer.Option("--l", "-l", help="ℓ of ℓ-diversity.")]
Diversity = Annotated[str | None, typer.Option("--diversity", help="ℓ-diversity variant for --l: distinct, entropy, "
                                                                   "recursive, frequency, transparent.")]
C = Annotated[float | None, typer.Option("--c", help="c of recursive (c,ℓ)-diversity.")]
P = Annotated[int | None, typer.Option("--p", help="p of p-sensitivity.")]
T = Annotated[float | None, typer.Option("--t", help="t of t-closeness.")]
Protect = Annotated[str | None, typer.Option("--protect", help="With several sensitive columns: the one ℓ-diversity, "
                                                             "p-sensitivity and t-closeness protect.")]
Distance = Annotated[str | None, typer.Option("--distance", help="t-closeness ground distance: equal, ordered, "
                                                                 "hierarchical.")]

# ---------------------------------------------------------------------- algorithm
Algorithm = Annotated[str | None, typer.Option("--algorithm", "-a", help="Algorithm (see `ktype algorithms`).")]
Option = Annotated[list[str] | None, typer.Option("--option", "-o", help="Algorithm option NAME=VALUE (repeatable).")]
Rng = Annotated[int | None, typer.Option(
    "--rng", help="Seed for randomized algorithms, for tests and audits. Default: secret OS entropy, never recorded. "
    "With a seed, anyone holding it and the input can reproduce the release.")]

# ---------------------------------------------------------------------- outputs
Output = Annotated[Path | None, typer.Option("--output", "-O", help="Release file (.csv or .parquet).")]
Summary = Annotated[Path | None, typer.Option("--summary", help="Write the JSON summary to this file too.")]
Json = Annotated[bool | None, typer.Option("--json", help="Print the result as JSON.")]
Force = Annotated[bool | None, typer.Option("--force", help="Replace an existing output file (never the input, a link "
                                                            "or a device).")]
Mkdirs = Annotated[bool | None, typer.Option("--mkdirs", help="Create the output's missing parent directories.")]
Format = Annotated[str | None, typer.Option("--format", help="Output format csv or parquet (default: from the extension).")]
CsvEscape = Annotated[bool | None, typer.Option(
    "--csv-escape/--no-csv-escape", help="Neutralize spreadsheet formulas (=, +, -, @) in CSV text cells with a "
    "leading ' (default on).")]
Progress = Annotated[bool | None, typer.Option(
    "--progress/--no-progress", help="Show the progress of long runs on standard error (default: a bar on a terminal, "
    "nothing on a pipe; --progress prints lines on a pipe too).")]
ReadCsvEscape = Annotated[bool | None, typer.Option(
    "--csv-escape/--no-csv-escape", help="The CSV release was written with formula escaping (default on); "
    "--no-csv-escape reads cells verbatim.")]
Recoding = Annotated[str | None, typer.Option("--recoding", help="How the release was recoded (full-domain, "
                                              "multidimensional, local, freeform) when it has no metadata; decides "
                                              "the scope of ℓ-diversity / t-closeness.")]
Local = Annotated[bool | None, typer.Option("--local", help="Same as --recoding local: the release is a k-type "
                                                            "local recoding.")]
