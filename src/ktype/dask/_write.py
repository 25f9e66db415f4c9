"""``kd.write_release``: one entry point that writes any release made at scale as a verified
partitioned Parquet directory — class-model releases (flash, Mondrian) re-checked class by
class as written (:func:`ktype.dask._algorithms.write_release`), local-recoding releases
compared with their verified rows (:func:`ktype.dask._local.write_local_release`)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from ..exceptions import InvalidParameterError
from ..models._base import PrivacyModel
from ._algorithms import write_release as write_class_release
from ._local import write_local_release
from ._table import DaskRelease, ModelSummary

__all__ = ["write_release"]


def write_release(release: DaskRelease, path: str | Path, *,
                  models: PrivacyModel | Sequence[PrivacyModel] | None = None) -> list[ModelSummary]:
    """Write ``release`` at ``path`` (a new directory), atomically, verified as written.

    Class-model releases are checked by the distributed checker on the written files against
    ``models`` (default: the release's); a local-recoding release of
    :func:`ktype.dask.local_recoding` is checked against its own models per region and its
    files against the verified rows (``models`` is not taken). See docs/scale.md.
    """
    if release.recoding in ("local", "freeform"):
        if models is not None:
            raise InvalidParameterError(
                "models= re-checks a class-model release as written; a local-recoding release is verified against "
                "its own models region by region (leave models out).")
        return write_local_release(release, Path(path))
    return write_class_release(release, path, models=models)
