#!/bin/sh
# Measure the fixed small profile (tools/ci_profile.sh) at earlier commits of this repository,
# each checked out in a temporary git worktree and run with that commit's own harness and worker,
# so each run's manifest records the commit it measured. The runs go to OUT_DIR (default
# data/reference-history/); `python -m harness history OUT_DIR` puts them on a timeline.
#
#   tools/history_backfill.sh [--out OUT_DIR] COMMIT...
#
# The interpreter is $PYTHON (default: this checkout's .venv/bin/python); an old commit that
# needs other packages than the venv has fails its run, and the script says so and goes on.
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
. "$root/tools/ci_profile.sh"
out="$root/data/reference-history"
if [ "${1:-}" = "--out" ]; then out=$2; shift 2; fi
if [ $# -eq 0 ]; then echo "error: usage: tools/history_backfill.sh [--out OUT_DIR] COMMIT..." >&2; exit 2; fi
python=${PYTHON:-$root/.venv/bin/python}
case $out in /*) ;; *) out="$(pwd)/$out" ;; esac
mkdir -p "$out"
status=0
for commit in "$@"; do
  full=$(git -C "$root" rev-parse --verify --quiet "$commit^{commit}") \
    || { echo "error: $commit is not a commit of $root" >&2; status=2; continue; }
  tree=$(mktemp -d "${TMPDIR:-/tmp}/crossings-history-XXXXXX")
  git -C "$root" worktree add --detach --quiet "$tree" "$full" || { status=1; continue; }
  echo "== $commit ($full) in $tree" >&2
  # shellcheck disable=SC2086
  log="$tree.stdout"
  if (cd "$tree" && PYTHONPATH="$tree" "$python" -m harness run ${CROSSINGS_CI_RUN_ARGS:-$CROSSINGS_CI_PROFILE} \
        --out "$out" --no-progress > "$log"); then
    tail -n 1 "$log"
  else
    echo "error: the run at $commit exited $? (its last line: $(tail -n 1 "$log"))" >&2
    status=1
  fi
  rm -f "$log"
  git -C "$root" worktree remove --force "$tree"
done
exit $status
