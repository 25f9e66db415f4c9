"""Helpers that forge release files the way an adversary who can edit them would.

The CSV sidecar's SHA-256 is unkeyed: whoever rewrites the CSV can recompute it, so a
forged CSV with a "valid" sidecar is a few lines of code. ``ktype check`` must refuse such
files on their content, never on the sidecar's say-so.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import pandas as pd

from ktype.release import sidecar_path


def forge_csv(path: Path, table: pd.DataFrame | None = None, *, columns: dict[str, str] | None = None,
              drop_roles: tuple[str, ...] = (), **meta: Any) -> Path:
    """Rewrite the CSV release ``path`` (and its sidecar) as a forger would.

    ``table`` replaces the published rows; ``columns`` sets (or adds) column roles in the
    sidecar; ``drop_roles`` removes columns from it; any other keyword replaces a top-level
    metadata key (``models=[]``, ``algorithm="tailor"``, ...). The sidecar's SHA-256 is
    recomputed, so the pair is consistent.
    """
    side = sidecar_path(path)
    m = json.loads(side.read_text(encoding="utf-8"))
    if table is not None:
        data = table.to_csv(index=False).encode("utf-8")
        path.write_bytes(data)
    data = path.read_bytes()
    if columns or drop_roles:
        cols = [c for c in m["columns"] if c["name"] not in drop_roles]
        known = {c["name"]: c for c in cols}
        for name, role in (columns or {}).items():
            if name in known:
                known[name]["role"] = role
            else:
                cols.append({"name": name, "role": role, "type": "string"})
        if table is not None:  # file order
            order = {c: i for i, c in enumerate(table.columns)}
            cols.sort(key=lambda c: order.get(c["name"], len(order)))
        m["columns"] = cols
        if "hierarchies" in m:
            m["hierarchies"] = {c: h for c, h in m["hierarchies"].items()
                                if any(x["name"] == c and x["role"] == "quasi_identifier" for x in cols)}
    m.update(meta)
    m["file"]["sha256"] = hashlib.sha256(data).hexdigest()
    side.write_text(json.dumps(m, indent=2), encoding="utf-8")
    return path
