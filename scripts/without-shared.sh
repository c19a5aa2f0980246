#!/usr/bin/env bash
# Runs a command with the folder beside the checkout (../shared: CI keeps a read-only copy of the
# project's reference material there) replaced, for that command only, by same-named stand-ins
# whose content is a poison line. A test that reads any of them fails; one that only checks that a
# file exists finds it, so it cannot skip quietly either. Nothing else changes: the stand-ins live
# in a private mount namespace (unshare + tmpfs), which works as root, where permission bits do not.
#
#   scripts/without-shared.sh npm test
#
# Without ../shared it just runs the command; where ../shared exists but cannot be hidden (no
# unshare, not root), it fails rather than run unproven.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
shared="$(dirname "$root")/shared"
if [ ! -e "$shared" ]; then
  exec "$@"
fi
if ! command -v unshare >/dev/null 2>&1 || ! unshare --mount true 2>/dev/null; then
  echo "without-shared: cannot make a private mount namespace (needs unshare and root) to hide $shared" >&2
  exit 1
fi

listing="$(mktemp)"
trap 'rm -f "$listing"' EXIT
(cd "$shared" && find . -mindepth 1 -printf '%y %P\0') >"$listing"

# shellcheck disable=SC2016  # expanded by the inner shell
unshare --mount --propagation private -- bash -c '
  set -euo pipefail
  shared="$1" listing="$2"
  shift 2
  mount -t tmpfs -o mode=0755,size=16m envroll-no-shared "$shared"
  n=0
  while IFS= read -r -d "" entry; do
    kind="${entry%% *}" path="${entry#* }"
    if [ "$kind" = d ]; then
      mkdir -p "$shared/$path"
    else
      mkdir -p "$(dirname "$shared/$path")"
      echo "ENVROLL-CI-POISON: stands in for ../shared/$path, which nothing run by the tests may read" >"$shared/$path"
      n=$((n + 1))
    fi
  done <"$listing"
  mount -o remount,ro "$shared"
  echo "without-shared: $shared replaced by $n poison files for: $*" >&2
  exec "$@"
' without-shared "$shared" "$listing" "$@"
