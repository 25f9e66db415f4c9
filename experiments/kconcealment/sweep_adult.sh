#!/bin/sh
# The Adult part of the full k-concealment sweep, one process at a time (each step resumes
# from results/full/runs-full.csv and skips finished runs). Most informative first: the
# agglomerative baseline and one randomized seed per k (Figs. 6 and 9, LM), then the rest.
# Usage: nohup nice -n 10 sh experiments/kconcealment/sweep_adult.sh > sweep.log 2>&1 &
#   PYTHON=... picks the interpreter, OUT=... the result folder (default results/full),
#   STEPS="agglo" or STEPS="cheap" runs only one half (default: both, agglo first).
set -e
cd "$(dirname "$0")/../.."
PY="${PYTHON:-.venv/bin/python}"
OUT="${OUT:-experiments/kconcealment/results/full}"
RUN="$PY experiments/kconcealment/run.py --datasets adult --out $OUT"
MISSING="20 30 40 60 70 80 90"
ALL="10 20 30 40 50 60 70 80 90 100"
STEPS="${STEPS:-agglo cheap}"
case "$STEPS" in *agglo*)
$RUN --ks $MISSING --measures lm --skip exp3 --algorithms agglomerative
$RUN --ks $MISSING --measures lm --skip exp1 exp3 --seeds 1 --algorithms "randomized k-concealment"
$RUN --ks $MISSING --skip exp1 exp2 --algorithms "agglomerative + Alg 8"
$RUN --ks $MISSING --measures em --skip exp3 --algorithms agglomerative
;; esac
case "$STEPS" in *cheap*)
$RUN --ks $MISSING --measures em --skip exp2 exp3 --algorithms k-concealment
$RUN --ks $MISSING --skip exp1 exp2 --algorithms "k-concealment + l-diversity"
$RUN --ks $MISSING --skip exp2 exp3 --algorithms forest
$RUN --ks 50 100 10 $MISSING --measures lm --skip exp1 exp3 --algorithms "randomized k-concealment"
$RUN --ks 50 100 10 $MISSING --measures em --skip exp1 exp3 --algorithms "randomized k-concealment"
;; esac
