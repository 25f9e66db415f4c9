"""Worker processes for ``test_jit_cache.py``: compile, race and check ktype's kernel cache.

Run as ``python tests/_cache_race_worker.py MODE ...`` with ``NUMBA_CACHE_DIR`` set:

- ``race ROLE SYNC_DIR [--unlocked]``: compile one specialization of the fulldomain kernel
  ``_merge_keys`` (role ``a``: a contiguous count array, role ``b``: a strided one) while the
  other role compiles the other, with the two processes held at barriers inside numba's cache
  saving so that, without a lock, both read the empty index and the writes land in the worst
  order (a's index, b's index, b's data, a's data: the index sends b's signature to a's code).
  With the lock the second process cannot enter until the first has finished, each barrier
  times out and the entries stay apart. ``--unlocked`` replaces the lock by a no-op: numba's
  own cache, which the tests use to make a corrupted cache on purpose.
- ``check``: in a fresh process, load both specializations from the cache, run them and
  compare with the pure-Python function; report whether they were cache hits and whether
  every index entry's data file holds the signature the index files it under.
- ``releases NAME ...``: run the named registered algorithms on a fixed small table and print
  a SHA-256 of each release (its published rows, sorted) as JSON.
"""

from __future__ import annotations

import hashlib
import json
import os
import pickle
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

BARRIER_TIMEOUT_S = 2.0


def _wait_for(path: Path, timeout: float = BARRIER_TIMEOUT_S) -> bool:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if path.exists():
            return True
        time.sleep(0.01)
    return False


def _inputs() -> dict[str, tuple[np.ndarray, np.ndarray, bool]]:
    keys = np.array([5, 3, 5, 9, 3, 5, 1, 9], dtype=np.int64)
    base = np.arange(1, 2 * keys.size + 1, dtype=np.int64) * 10
    return {"a": (keys, base[: keys.size].copy(), True), "b": (keys, base[::2], True)}


def _install_barriers(role: str, sync: Path) -> None:
    from numba.core.caching import IndexDataCacheFile

    save_index, save_data = IndexDataCacheFile._save_index, IndexDataCacheFile._save_data

    def touch(name: str) -> None:
        (sync / name).write_text("")

    def ours(self: Any) -> bool:
        return "_merge_keys" in self._index_path

    def held_save_index(self: Any, overloads: Any) -> None:
        if ours(self):
            touch(f"arrive-{role}")
            _wait_for(sync / ("arrive-b" if role == "a" else "arrive-a"))
            if role == "b":
                _wait_for(sync / "index-a")
            save_index(self, overloads)
            touch(f"index-{role}")
        else:
            save_index(self, overloads)

    def held_save_data(self: Any, name: str, data: Any) -> None:
        if ours(self) and role == "a":
            _wait_for(sync / "data-b")
        save_data(self, name, data)
        if ours(self):
            touch(f"data-{role}")

    IndexDataCacheFile._save_index = held_save_index  # type: ignore[method-assign]
    IndexDataCacheFile._save_data = held_save_data  # type: ignore[method-assign]


def race(role: str, sync: Path, unlocked: bool) -> None:
    from contextlib import nullcontext

    import ktype._jit as jit

    if unlocked:
        jit._flock = lambda path, *, exclusive: nullcontext()  # type: ignore[assignment]
    _install_barriers(role, sync)
    from ktype.algorithms.fulldomain._kernels import _merge_keys

    keys, cnt, want = _inputs()[role]
    touch_ready = sync / f"ready-{role}"
    touch_ready.write_text("")
    _wait_for(sync / ("ready-b" if role == "a" else "ready-a"), timeout=30)
    _merge_keys(keys, cnt, want)
    print(json.dumps({"role": role, "misses": sum(_merge_keys.stats.cache_misses.values())}))


def check() -> None:
    from numba.core.caching import IndexDataCacheFile

    from ktype.algorithms.fulldomain._kernels import _merge_keys

    cache_file = _merge_keys._cache._cache_file  # read the files as the race left them, before any call
    overloads = IndexDataCacheFile._load_index(cache_file)
    consistent = {}
    for key, name in overloads.items():
        payload = pickle.loads(Path(cache_file._data_path(name)).read_bytes())
        consistent[str(key[0])] = tuple(payload[3].args) == tuple(key[0])
    results = {}
    for role, (keys, cnt, want) in _inputs().items():
        got = _merge_keys(keys, cnt, want)
        expected = _merge_keys.py_func(keys, cnt, want)
        results[role] = all(np.array_equal(g, e) for g, e in zip(got, expected, strict=True))
    print(json.dumps({
        "correct": results,
        "hits": sum(_merge_keys.stats.cache_hits.values()),
        "entries": len(overloads),
        "consistent": consistent,
    }))


def releases(names: list[str]) -> None:
    from ktype.algorithms import get_algorithm
    from ktype.testing.algorithm_checks import _call, _published, default_model, fixture_dataset

    ds = fixture_dataset(n=60, seed=3)
    out = {}
    for name in names:
        info = get_algorithm(name)
        rel = _call(info, ds, default_model(info.models[0]), seed=0)
        out[name] = hashlib.sha256(_published(rel).to_csv(index=False).encode()).hexdigest()
    print(json.dumps(out))


if __name__ == "__main__":
    mode = sys.argv[1]
    if mode == "race":
        race(sys.argv[2], Path(sys.argv[3]), "--unlocked" in sys.argv[4:])
    elif mode == "check":
        check()
    elif mode == "releases":
        releases(sys.argv[2:])
    else:
        raise SystemExit(f"unknown mode {mode!r}")
    sys.stdout.flush()
    os._exit(0)
