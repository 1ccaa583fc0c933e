#!/bin/sh
# A sample CI job: seed 003's nightly benchmark run, with a gate. Measures the fixed small profile
# (tools/ci_profile.sh) on this checkout, keeps the run in a folder of history runs, compares it
# with the last run that passed, and fails on a significant slowdown above a threshold
# (`harness compare --fail-on-regression`, benchstat's test on per-process means).
#
#   tools/ci_regression.sh [HISTORY_DIR]          (default: data/history/)
#
# Environment: CROSSINGS_CI_THRESHOLD (percent, default 10), CROSSINGS_CI_ALPHA (default 0.05),
# CROSSINGS_CI_RUN_ARGS (the run's options instead of the fixed profile), PYTHON (default
# .venv/bin/python).
# Exit status: 0 no significant slowdown above the threshold (or the first run of the history);
# 1 a regression, or the run itself failed; 2 a mistake, or too few samples for the gate to decide.
# HISTORY_DIR/LAST_GOOD names the run the next one is compared with. A run that fails the gate
# stays in HISTORY_DIR (it is part of the history: `python -m harness history HISTORY_DIR` shows
# it) but does not become LAST_GOOD, so the job keeps failing until the slowdown is fixed; to
# accept it, write that run's name into LAST_GOOD.
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
. "$root/tools/ci_profile.sh"
history=${1:-$root/data/history}
python=${PYTHON:-$root/.venv/bin/python}
threshold=${CROSSINGS_CI_THRESHOLD:-10}
alpha=${CROSSINGS_CI_ALPHA:-0.05}
mkdir -p "$history" && history=$(cd "$history" && pwd) || { echo "error: cannot use $history" >&2; exit 2; }
cd "$root" || exit 2
export PYTHONPATH="$root${PYTHONPATH:+:$PYTHONPATH}"

# shellcheck disable=SC2086
out=$("$python" -m harness run ${CROSSINGS_CI_RUN_ARGS:-$CROSSINGS_CI_PROFILE} --out "$history" --no-progress)
rc=$?
new=$(printf '%s\n' "$out" | tail -n 1)
if [ $rc -ne 0 ]; then
  echo "ci: the run failed (exit $rc)${new:+: $new}" >&2
  [ $rc -eq 2 ] && exit 2
  exit 1
fi
good=""
[ -f "$history/LAST_GOOD" ] && good=$(cat "$history/LAST_GOOD")
if [ -z "$good" ]; then
  basename "$new" > "$history/LAST_GOOD"
  echo "ci: $new is the first run of the history in $history: nothing to compare with" >&2
  exit 0
fi
if [ ! -f "$history/$good/manifest.json" ]; then
  echo "error: $history/LAST_GOOD names $good, which is not a run in $history" >&2
  exit 2
fi
"$python" -m harness compare "$history/$good" "$new" --alpha "$alpha" --fail-on-regression "$threshold"
rc=$?
if [ $rc -eq 0 ]; then
  basename "$new" > "$history/LAST_GOOD.tmp" && mv "$history/LAST_GOOD.tmp" "$history/LAST_GOOD"
  echo "ci: no significant slowdown above $threshold% against $good; $(basename "$new") is now LAST_GOOD" >&2
else
  echo "ci: gate failed (exit $rc) comparing $good with $(basename "$new"); LAST_GOOD stays $good" >&2
fi
exit $rc
