"""Mondrian's two backends of one rule on Adult (30,162 rows, k = 10): the numpy partitioner
(k-anonymity alone, no compilation) against the compiled core, each in a fresh process.

``cold``: an empty numba cache per run (the first run of a fresh install); ``warm``: one cache
filled by an uncounted first run and kept across the runs. Prints the algorithm call's wall time (run(), verification included),
the release's digest (both backends must give the same) and the machine load.

    python benchmarks/bench_mondrian_backends.py --runs 3
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile

CODE = r"""
import hashlib, sys, time
import ktype
import ktype.algorithms.mondrian as M
from ktype.algorithms import run
from ktype.models.kanonymity import KAnonymity
if sys.argv[1] == "compiled":
    M._NUMPY_MAX_ROWS = -1
ds = ktype.load_adult()
t = time.perf_counter()
rel = run("mondrian", ds, KAnonymity(10))
t = time.perf_counter() - t
print(t, hashlib.sha256(rel.to_pandas().to_csv(index=False).encode()).hexdigest()[:16])
"""


def _once(backend: str, cache: str) -> tuple[float, str]:
    env = {**os.environ, "NUMBA_CACHE_DIR": cache}
    out = subprocess.run([sys.executable, "-c", CODE, backend], env=env, capture_output=True, text=True, check=True)
    t, digest = out.stdout.split()
    return float(t), digest


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=3)
    args = ap.parse_args()
    times: dict[str, list[float]] = {}
    with tempfile.TemporaryDirectory() as warm:
        _once("compiled", warm)  # fills the warm cache (not counted)
        for _ in range(args.runs):
            for backend in ("numpy", "compiled"):
                with tempfile.TemporaryDirectory() as cold:
                    t, digest = _once(backend, cold)
                times.setdefault(f"{backend} cold", []).append(t)
                print(f"{backend} cold {t:.2f} s digest {digest} load {os.getloadavg()[0]:.1f}", flush=True)
                t, digest = _once(backend, warm)
                times.setdefault(f"{backend} warm", []).append(t)
                print(f"{backend} warm {t:.2f} s digest {digest} load {os.getloadavg()[0]:.1f}", flush=True)
    for key, ts in times.items():
        print(f"{key}: median {statistics.median(ts):.2f} s of {len(ts)}")


if __name__ == "__main__":
    main()
