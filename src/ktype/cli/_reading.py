"""One reading path for every command: the same roles, reading options and config keys.

Every command that reads a table builds its :class:`~ktype.Dataset` here, through
:func:`ktype.job.load_input` (the library's reader, which ``ktype.anonymize`` uses too):
``--qi/--sensitive/--identifier/--insensitive/-H``, ``--sep``, ``--encoding``, ``--type``
(with ``date:FORMAT``), ``--na-values`` and ``--missing`` mean the same in each.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any


def roles(opts: dict[str, Any]) -> dict[str, Any]:
    """The column roles and hierarchies of config-keyed options, as ``load_input`` keywords."""
    from .._config import parse_hierarchies, split_list

    return {"quasi_identifiers": split_list(opts.get("qi")), "sensitive": split_list(opts.get("sensitive")),
            "identifiers": split_list(opts.get("identifier")), "insensitive": split_list(opts.get("insensitive")),
            "hierarchies": parse_hierarchies(opts.get("hierarchy"))}


def reading(opts: dict[str, Any]) -> Any:
    """The :class:`ktype.job.Reading` of config-keyed options."""
    from ..job import Reading

    return Reading.from_options(opts)


def load(opts: dict[str, Any], source: Any, **override: Any) -> Any:
    """A Dataset from a file (``source``) or ``--dataset``, read the one way."""
    from ..job import load_input

    r = {**roles(opts), **override}
    return load_input(Path(source) if source is not None else None, dataset=opts.get("dataset"), reading=reading(opts),
                      rows=opts.get("rows"), **r)


def hierarchy_files(hier: dict[str, Any]) -> list[Path]:
    return [Path(v) for v in hier.values()
            if isinstance(v, (str, Path)) and str(v) not in ("ordered", "flat", "dates") and ":" not in str(v)]


def release_pair(opts: dict[str, Any], released: Path, *, local: bool = False) -> tuple[Any, Any]:
    """The original Dataset and a release file parsed back against it (with its metadata's
    recoding, or ``local``): what ``metrics``, ``risk`` and ``attack`` read."""
    from ..audit import parse_release
    from ..release import read_release

    ds = load(opts, opts.get("original"))
    pub, meta = read_release(released, sep=opts.get("sep"), csv_escape=opts.get("csv_escape"))
    recoding = "local" if local else (meta or {}).get("recoding", "multidimensional")
    return ds, parse_release(ds, pub, recoding=recoding, metadata=meta)
