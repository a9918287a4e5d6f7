#!/bin/sh
# policyc ordinary sample: an everyday POSIX shell helper that drafts release notes from git log.
# Written by hand for policyc as ordinary tooling; compiler/ordinary.py turns it into
# Read, Write and Edit events at the path below code/shell/ to measure rule breadth.

set -eu

usage() {
  echo "usage: $0 [FROM_TAG] [TO_REF]" >&2
  echo "Prints the changes between two refs, grouped by commit type." >&2
}

if [ "${1:-}" = "-h" ] || [ "${1:-}" = "--help" ]; then
  usage
  exit 0
fi

FROM="${1:-$(git describe --tags --abbrev=0)}"
TO="${2:-HEAD}"

section() {
  title="$1"
  pattern="$2"
  lines="$(git log --format='%s (%h)' "$FROM..$TO" | grep -E "$pattern" || true)"
  if [ -n "$lines" ]; then
    printf '### %s\n\n' "$title"
    printf '%s\n' "$lines" | sed -E 's/^[a-z]+(\([^)]*\))?!?: /- /'
    printf '\n'
  fi
}

printf '## Changes since %s\n\n' "$FROM"
section "Features" '^feat(\(|:|!)'
section "Fixes" '^fix(\(|:|!)'
section "Documentation" '^docs(\(|:)'
section "Performance" '^perf(\(|:)'

others="$(git log --format='%s (%h)' "$FROM..$TO" | grep -Ev '^(feat|fix|docs|perf|chore|test|ci|build)(\(|:|!)' || true)"
if [ -n "$others" ]; then
  printf '### Other\n\n'
  printf '%s\n' "$others" | sed 's/^/- /'
  printf '\n'
fi

count="$(git rev-list --count "$FROM..$TO")"
authors="$(git log --format='%an' "$FROM..$TO" | sort -u | wc -l | tr -d ' ')"
printf '%s commits by %s authors.\n' "$count" "$authors"
