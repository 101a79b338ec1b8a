#!/bin/sh
# Usage: same-under-mpi.sh "MPIRUN" DIR EXE "COUNTS" ARGS...
# Runs `neuron-run EXE ARGS` in one process into DIR/in, then under
# `MPIRUN -np N` for each N of COUNTS into DIR/npN, each with its profile
# and timing summary, and compares every file the runs write (inputs,
# results, summary, profile) byte for byte: a difference fails.
set -e
mpirun=$1
dir=$2
exe=$3
counts=$4
shift 4
mkdir -p "$dir/in"
neuron-run "$exe" "$@" --output-dir="$dir/in" \
  --profile="$dir/in/profile.json" > "$dir/in/summary"
for n in $counts; do
  mkdir -p "$dir/np$n"
  $mpirun -np "$n" neuron-run "$exe" "$@" --output-dir="$dir/np$n" \
    --profile="$dir/np$n/profile.json" > "$dir/np$n/summary"
  diff -r "$dir/in" "$dir/np$n"
done
