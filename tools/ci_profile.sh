# The fixed small profile of the regression job and of the history runs (sourced by
# tools/ci_regression.sh and tools/history_backfill.sh; one definition, so every run of the
# history measures the same cells). Override with CROSSINGS_CI_RUN_ARGS.
CROSSINGS_CI_PROFILE="--profile smoke --processes 8 --iterations 10 --benchmarks bindings.select_fold,bindings.point_query --engines sqlite/sqlite3,sqlite/apsw"
