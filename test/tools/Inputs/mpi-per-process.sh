#!/bin/sh
# Usage: mpi-per-process.sh P MINE OTHERS COMMAND ARGS... as each process of
# an MPI run: runs COMMAND ARGS MINE on process P, COMMAND ARGS OTHERS on
# the others.
process=$1
mine=$2
others=$3
shift 3
if [ "${OMPI_COMM_WORLD_RANK:-}" = "$process" ]; then
  exec "$@" "$mine"
fi
exec "$@" "$others"
