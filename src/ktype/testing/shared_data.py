"""Where the shared benchmark data live (tests, benchmarks and experiments use this).

Search order: ``shared/data`` beside the repository (CI checks out a clean clone with
``shared/`` next to it), then ``$KTYPE_SHARED_DATA``, then ``/work/shared/data``.
"""

from __future__ import annotations

import os
from pathlib import Path

__all__ = ["shared_data_dir", "candidates"]

_REPO = Path(__file__).resolve().parents[3]  # src/ktype/testing/shared_data.py -> repository root


def candidates() -> list[Path]:
    """The places searched, in order."""
    out = [_REPO.parent / "shared" / "data"]
    env = os.environ.get("KTYPE_SHARED_DATA")
    if env:
        out.append(Path(env))
    out.append(Path("/work/shared/data"))
    return out


def shared_data_dir() -> Path:
    """The first existing candidate (or the first candidate, so that a skip message names it).

    >>> shared_data_dir().name
    'data'
    """
    for p in candidates():
        if p.is_dir():
            return p
    return candidates()[0]
