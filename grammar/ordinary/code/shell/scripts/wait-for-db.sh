#!/usr/bin/env bash
# policyc ordinary sample: an everyday container helper script (wait for a service, then exec).
# Written by hand for policyc as ordinary tooling; compiler/ordinary.py turns it into
# Read, Write and Edit events at the path below code/shell/ to measure rule breadth.

set -euo pipefail

HOST="${DB_HOST:-db}"
PORT="${DB_PORT:-5432}"
TIMEOUT="${WAIT_TIMEOUT:-60}"

usage() {
  cat <<USAGE
usage: $(basename "$0") [-h host] [-p port] [-t seconds] -- command [args...]

Waits until host:port accepts TCP connections, then runs the command.
USAGE
}

while getopts ":h:p:t:" option; do
  case "$option" in
    h) HOST="$OPTARG" ;;
    p) PORT="$OPTARG" ;;
    t) TIMEOUT="$OPTARG" ;;
    *) usage; exit 2 ;;
  esac
done
shift $((OPTIND - 1))
[[ "${1:-}" == "--" ]] && shift

if [[ $# -eq 0 ]]; then
  usage
  exit 2
fi

echo "waiting for $HOST:$PORT (up to ${TIMEOUT}s)"
start=$(date +%s)
until (echo >"/dev/tcp/$HOST/$PORT") 2>/dev/null; do
  now=$(date +%s)
  if (( now - start >= TIMEOUT )); then
    echo "timed out after ${TIMEOUT}s waiting for $HOST:$PORT" >&2
    exit 1
  fi
  sleep 1
done

echo "$HOST:$PORT is up after $(( $(date +%s) - start ))s"
exec "$@"
