#!/bin/sh
# Usage: mpi-victim.sh P COMMAND ARGS... as each process of an MPI run.
# Runs COMMAND ARGS on every process but P, where it is killed (SIGKILL)
# right after it starts, as when a machine of the run fails; that process
# then ends with status 137.
victim=$1
shift
if [ "${OMPI_COMM_WORLD_RANK:-}" = "$victim" ]; then
  "$@" &
  pid=$!
  kill -9 "$pid"
  wait "$pid"
  exit $?
fi
exec "$@"
