#!/bin/sh
# The Adult part of the full k-concealment sweep, most informative runs first, one process
# at a time (each step resumes from results/full/runs-full.csv and skips finished runs).
# Usage: nohup nice sh experiments/kconcealment/sweep_adult.sh > sweep.log 2>&1 &
set -e
cd "$(dirname "$0")/../.."
PY="${PYTHON:-.venv/bin/python}"
RUN="$PY experiments/kconcealment/run.py --datasets adult --out experiments/kconcealment/results/full"
MISSING="20 30 40 60 70 80 90"
$RUN --ks $MISSING --measures lm --skip exp2 exp3 --algorithms k-concealment
$RUN --ks 50 100 10 --measures lm --skip exp1 exp3 --algorithms "randomized k-concealment"
$RUN --ks $MISSING --measures em --skip exp2 exp3 --algorithms k-concealment
$RUN --ks 50 100 10 --measures em --skip exp1 exp3 --algorithms "randomized k-concealment"
$RUN --ks $MISSING --skip exp1 exp2 --algorithms "k-concealment + l-diversity"
$RUN --ks $MISSING --skip exp1 exp3 --algorithms "randomized k-concealment"
$RUN --ks $MISSING --skip exp2 exp3 --algorithms forest
$RUN --ks $MISSING --skip exp3 --algorithms agglomerative
$RUN --ks $MISSING --skip exp1 exp2 --algorithms "agglomerative + Alg 8"
