#!/usr/bin/env bash
# policyc ordinary sample: an everyday developer bootstrap script (checks tools, installs deps).
# Written by hand for policyc as ordinary tooling; compiler/ordinary.py turns it into
# Read, Write and Edit events at the path below code/shell/ to measure rule breadth.

set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"

info() { printf '\033[1;34m==>\033[0m %s\n' "$*"; }
warn() { printf '\033[1;33mwarning:\033[0m %s\n' "$*" >&2; }

require() {
  if ! command -v "$1" >/dev/null 2>&1; then
    echo "error: $1 is required but was not found on PATH" >&2
    exit 1
  fi
}

require git
require python3
require node

PYTHON_VERSION="$(python3 -c 'import sys; print(".".join(map(str, sys.version_info[:2])))')"
case "$PYTHON_VERSION" in
  3.10|3.11|3.12|3.13) ;;
  *) warn "Python $PYTHON_VERSION is not tested; use 3.10 or newer" ;;
esac

if [[ ! -d .venv ]]; then
  info "Creating the virtual environment"
  python3 -m venv .venv
fi
# shellcheck disable=SC1091
source .venv/bin/activate

info "Installing Python dependencies"
python -m pip install --quiet --upgrade pip
python -m pip install --quiet -e ".[dev]"

if [[ -f package.json ]]; then
  info "Installing JavaScript dependencies"
  npm ci --no-audit --no-fund
fi

if [[ ! -f config/local.yaml ]]; then
  info "Creating config/local.yaml from the example"
  cp config/example.yaml config/local.yaml
fi

if command -v pre-commit >/dev/null 2>&1; then
  info "Installing the git hooks"
  pre-commit install --install-hooks
else
  warn "pre-commit is not installed; hooks were not set up"
fi

info "Running a quick check"
python -m pytest -q -x tests/unit

info "Done. Activate the environment with: source .venv/bin/activate"
