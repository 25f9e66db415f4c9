"""The datasets of the tests, benchmarks and experiments, inside the repository.

They live in ``data/<name>/`` at the repository root (index, licences and checksums in
``data/README.md``; not shipped in the wheel), except Adult in ARX's preparation, which is the
package's bundled copy (``ktype/data/_bundled/adult``, read by :func:`ktype.load_adult`) and is
not duplicated. Tables are stored gzip-compressed as ``<file>.gz``; small hierarchy CSVs as
they are. Callers name the original file; :func:`data_file` finds it or its ``.gz``.

Nothing outside the repository is searched: a missing file is an error, not a skip.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any

import pandas as pd

from ..data.bundled import bundled_path
from ..data.hierarchy import Hierarchy

__all__ = ["DATA_DIR", "dataset_dir", "data_file", "read_csv", "hierarchy_file", "arx_hierarchies"]

#: ``data/`` of the source checkout (src/ktype/testing/repo_data.py -> repository root)
DATA_DIR = Path(__file__).resolve().parents[3] / "data"

#: datasets that are the package's bundled copies rather than folders of ``data/``
_BUNDLED = ("adult",)


def dataset_dir(name: str) -> Path:
    """Folder of dataset ``name`` (``adult``: the bundled folder; otherwise ``data/<name>``).

    >>> dataset_dir("fars").relative_to(DATA_DIR).as_posix()
    'fars'
    >>> dataset_dir("adult").name
    'adult'
    """
    if name in _BUNDLED:
        return bundled_path(name)
    folder = DATA_DIR / name
    if not folder.is_dir():
        raise FileNotFoundError(
            f"dataset folder {folder} not found: the repository's data/ folder (data/README.md) "
            "exists only in a source checkout, not in an installed wheel"
        )
    return folder


def data_file(name: str, file: str) -> Path:
    """Path of ``file`` of dataset ``name``: ``file`` itself, else its compressed copy ``file.gz``.

    >>> data_file("fars", "fars_int.csv").name
    'fars_int.csv.gz'
    """
    folder = dataset_dir(name)
    for path in (folder / file, folder / f"{file}.gz"):
        if path.is_file():
            return path
    raise FileNotFoundError(f"{file} (or {file}.gz) not found in {folder}")


def read_csv(name: str, file: str, **kwargs: Any) -> pd.DataFrame:
    """``pandas.read_csv`` of ``file`` of dataset ``name``, decompressing a ``.gz`` copy.

    >>> read_csv("cmc", "cmc.data", header=None).shape
    (1473, 10)
    """
    path = data_file(name, file)
    kwargs.setdefault("compression", "gzip" if path.suffix == ".gz" else None)
    return pd.read_csv(path, **kwargs)


def hierarchy_file(name: str, table: str, column: str) -> Path:
    """The ARX hierarchy CSV of ``column``: ``<table>_hierarchy_<column>.csv`` (or its ``.gz``).

    >>> hierarchy_file("fars", "fars_int", "iage").name
    'fars_int_hierarchy_iage.csv'
    """
    return data_file(name, f"{table}_hierarchy_{column}.csv")


def arx_hierarchies(name: str, table: str, columns: Iterable[str]) -> dict[str, Hierarchy]:
    """The ARX hierarchies of ``columns``, by column name.

    >>> arx_hierarchies("adult", "adult", ["sex"])["sex"].height
    1
    """
    return {c: Hierarchy.from_arx_csv(hierarchy_file(name, table, c), name=c) for c in columns}
