/*
 * crossings: the C speed-of-light baseline (engine sqlite/native-c, runtime "c").
 *
 * One fresh process of one cell, like `python -m harness.worker`, but with no host language:
 * the client is C calling libsqlite3 directly (Debian's libsqlite3-dev). Built on demand by
 * harness/native/launcher.py, which also turns the runner's spec JSON into this argv:
 *
 *   bench --probe
 *       prints one JSON line: sqlite3_libversion() of the linked library, compiler, runtime.
 *   bench BENCHMARK N ITERATIONS WORKDIR RESULT [DATABASE [KEY=VALUE ...]]
 *       untimed set-up, then ITERATIONS timed operations, each checked; writes RESULT (the
 *       worker's result JSON, schema 1) atomically: RESULT.tmp.<pid> + fsync + rename.
 *       DATABASE may be "" (none); KEY=VALUE options (inserts.* only): journal_mode=,
 *       synchronous= ("default" leaves SQLite's own) and datadir= (where the database file goes).
 *       N is one integer, or "N:K" for a benchmark with a second size (bindings.point_query:
 *       n rows and K queries); the launcher writes "N:K" only for such benchmarks.
 *
 * Benchmarks (the bindings study, seed 000 and its native/main.c):
 *   bindings.select_fold  prepare "SELECT id FROM testdata", step every row, sum
 *                         sqlite3_column_int64, finalize (the seed's C query(), per operation).
 *   bindings.select_all   the same, but every id is first appended to a growing array
 *                         (realloc doubling, like a list), then the array is summed and freed.
 *   bindings.point_query  K point selects "SELECT str FROM testdata WHERE id = ?" on keys
 *                         1 + (i * step) % n, step = max(1, n / K) (made untimed beforehand);
 *                         sum the lengths of the strings read, check against the same sum of
 *                         STRS lengths computed untimed. Prepared once per process, see below.
 *   micro.select          (E2, harness/workloads/micro.py) "SELECT l_quantity, l_extendedprice,
 *                         l_discount FROM lineitem" on the prepared TPC-H file: count rows, sum
 *                         price * (1 - discount) where quantity < 24.
 *   micro.innerjoin       "SELECT p_retailprice, ps_supplycost FROM part JOIN partsupp ON
 *                         p_partkey = ps_partkey": count rows, sum retail - cost.
 *   micro.filltable       DROP/CREATE filltable (a INTEGER, b VARCHAR(32)), BEGIN, N prepared
 *                         inserts of (i, "row i") made untimed beforehand, COMMIT, then read
 *                         back "SELECT a, b FROM filltable": count rows, sum a.
 *   inserts.autocommit    (E4, harness/workloads/inserts.py, seed 003) N rows into an empty table
 *   inserts.transaction   (a fresh database file before each iteration, untimed, with journal_mode
 *   inserts.prepared      and synchronous applied and read back): sprintf + sqlite3_exec per row
 *   inserts.multirow      (autocommit; or between BEGIN and COMMIT), a prepared INSERT with
 *                         bind/step/reset per row in one transaction (the seed's code), or a
 *                         prepared 500-row INSERT ... VALUES (...), ... in one transaction. Checked
 *                         after the clock by the same checksum query as inserts.py.
 *   selftest.inserts_short  inserts.prepared inserting N-1 rows: exercises the checksum.
 *   selftest.wrong        "SELECT 41" checked against 42: exercises the invalid path.
 * Anything else: status "not_applicable" (no C implementation), exit 0.
 * The micro.* results (row count, sum) are checked as micro.py checks them: the count exactly,
 * the sum to a relative 1e-9 of the same quantity computed by SQLite in SQL (untimed set-up).
 * Their crossings count the query as one more crossing, as micro.py's counts do.
 *
 * Timing: CLOCK_MONOTONIC (wall) and CLOCK_PROCESS_CPUTIME_ID (CPU) read around the operation
 * only, in the same order as the Python worker (wall, cpu, op, cpu, wall). The checksum check
 * N(N+1)/2 runs outside the timed region. Crossings (rows stepped, i.e. SQLITE_ROW results) and
 * values converted (sqlite3_column_* calls) are counted by the operation itself: one register
 * increment per row, which is part of what any client does anyway.
 */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <sqlite3.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#define STR_(x) #x
#define STR(x) STR_(x)
#if defined(__clang__)
#define COMPILER_NAME "clang"
#define COMPILER_VERSION STR(__clang_major__) "." STR(__clang_minor__) "." STR(__clang_patchlevel__)
#elif defined(__GNUC__)
#define COMPILER_NAME "gcc"
#define COMPILER_VERSION STR(__GNUC__) "." STR(__GNUC_MINOR__) "." STR(__GNUC_PATCHLEVEL__)
#else
#define COMPILER_NAME "cc"
#define COMPILER_VERSION "unknown"
#endif
#define RUNTIME "c-" COMPILER_NAME COMPILER_VERSION

#ifndef CROSSINGS_CFLAGS
#define CROSSINGS_CFLAGS "unknown"
#endif

static const char *const SELECT_IDS = "SELECT id FROM testdata";
static const char *const STRS[4] = {"a", "ab", "abc", "abcd"};
static const char *const TIMESTAMP = "2010-10-10 00:00:00";

/* ---------------------------------------------------------------- results */

typedef struct {
    long iterations;
    long done;
    int64_t *wall_ns;
    int64_t *cpu_ns;
    int *check_ok;
    int64_t *crossings;
    int64_t *values;
    char status[32];
    char reason[1024];
} result_t;

typedef struct {
    int64_t value;     /* the checksum the operation computed (the row count for micro.*) */
    double sum;        /* micro.*: the floating-point sum */
    int64_t crossings; /* rows stepped */
    int64_t values;    /* values converted (column reads) */
    int rc;            /* SQLITE_OK, or the error that stopped the operation */
} op_out_t;

static void set_status(result_t *r, const char *status, const char *fmt, ...) {
    va_list ap;
    snprintf(r->status, sizeof r->status, "%s", status);
    va_start(ap, fmt);
    vsnprintf(r->reason, sizeof r->reason, fmt, ap);
    va_end(ap);
}

static void json_string(FILE *f, const char *s) {
    fputc('"', f);
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\') {
            fputc('\\', f);
            fputc(c, f);
        } else if (c < 0x20) {
            fprintf(f, "\\u%04x", c);
        } else {
            fputc(c, f);
        }
    }
    fputc('"', f);
}

static void json_int_array(FILE *f, const char *key, const int64_t *v, long n) {
    fprintf(f, ", \"%s\": [", key);
    for (long i = 0; i < n; i++) fprintf(f, i ? ", %lld" : "%lld", (long long)v[i]);
    fputc(']', f);
}

/* Write the result JSON (harness/worker.py's format) to path via tmp + fsync + rename. */
static int write_result(const char *path, const result_t *r) {
    size_t len = strlen(path) + 32;
    char *tmp = malloc(len);
    if (!tmp) return -1;
    snprintf(tmp, len, "%s.tmp.%ld", path, (long)getpid());
    FILE *f = fopen(tmp, "w");
    if (!f) {
        fprintf(stderr, "cannot write %s: %s\n", tmp, strerror(errno));
        free(tmp);
        return -1;
    }
    long n = r->done;
    fprintf(f, "{\"schema\": 1, \"pid\": %ld, \"runtime\": ", (long)getpid());
    json_string(f, RUNTIME);
    fputs(", \"status\": ", f);
    json_string(f, r->status);
    fputs(", \"reason\": ", f);
    json_string(f, r->reason);
    json_int_array(f, "wall_ns", r->wall_ns, n);
    json_int_array(f, "cpu_ns", r->cpu_ns, n);
    fputs(", \"check_ok\": [", f);
    for (long i = 0; i < n; i++) fprintf(f, "%s%s", i ? ", " : "", r->check_ok[i] ? "true" : "false");
    fputc(']', f);
    json_int_array(f, "crossings", r->crossings, n);
    json_int_array(f, "values_converted", r->values, n);
    fputs(", \"compiler\": ", f);
    json_string(f, COMPILER_NAME " " COMPILER_VERSION);
    fputs(", \"cflags\": ", f);
    json_string(f, CROSSINGS_CFLAGS);
    fputs(", \"sqlite\": ", f);
    json_string(f, sqlite3_libversion());
    fputs("}\n", f);
    int bad = fflush(f) != 0 || fsync(fileno(f)) != 0;
    bad |= fclose(f) != 0;
    if (bad || rename(tmp, path) != 0) {
        fprintf(stderr, "cannot write %s: %s\n", path, strerror(errno));
        unlink(tmp);
        free(tmp);
        return -1;
    }
    free(tmp);
    return 0;
}

/* ---------------------------------------------------------------- set-up */

static int exec_sql(sqlite3 *db, const char *sql, result_t *r) {
    char *err = NULL;
    if (sqlite3_exec(db, sql, NULL, NULL, &err) != SQLITE_OK) {
        set_status(r, "error", "%s: %s", sql, err ? err : sqlite3_errmsg(db));
        sqlite3_free(err);
        return -1;
    }
    return 0;
}

/* testdata exactly as harness/workloads/bindings.py makes it: one transaction, a prepared insert. */
static int create_testdata(sqlite3 *db, long n, result_t *r) {
    sqlite3_stmt *ins = NULL;
    if (exec_sql(db, "DROP TABLE IF EXISTS testdata", r) ||
        exec_sql(db, "CREATE TABLE testdata (id INTEGER PRIMARY KEY, str TEXT, t TIMESTAMP)", r) ||
        exec_sql(db, "BEGIN", r))
        return -1;
    if (sqlite3_prepare_v2(db, "INSERT INTO testdata (id, str, t) VALUES (?, ?, ?)", -1, &ins, NULL) != SQLITE_OK) {
        set_status(r, "error", "prepare insert: %s", sqlite3_errmsg(db));
        return -1;
    }
    for (long i = 1; i <= n; i++) {
        sqlite3_bind_int64(ins, 1, (sqlite3_int64)i);
        sqlite3_bind_text(ins, 2, STRS[(i - 1) % 4], -1, SQLITE_STATIC);
        sqlite3_bind_text(ins, 3, TIMESTAMP, -1, SQLITE_STATIC);
        if (sqlite3_step(ins) != SQLITE_DONE) {
            set_status(r, "error", "insert row %ld: %s", i, sqlite3_errmsg(db));
            sqlite3_finalize(ins);
            return -1;
        }
        sqlite3_reset(ins);
    }
    sqlite3_finalize(ins);
    return exec_sql(db, "COMMIT", r);
}

/* ---------------------------------------------------------------- operations (timed) */

static op_out_t select_fold(sqlite3 *db) {
    op_out_t o = {0, 0.0, 0, 0, SQLITE_OK};
    sqlite3_stmt *stmt;
    int rc = sqlite3_prepare_v2(db, SELECT_IDS, -1, &stmt, NULL);
    if (rc != SQLITE_OK) {
        o.rc = rc;
        return o;
    }
    int64_t sum = 0, rows = 0;
    while ((rc = sqlite3_step(stmt)) == SQLITE_ROW) {
        sum += sqlite3_column_int64(stmt, 0);
        rows++;
    }
    sqlite3_finalize(stmt);
    o.value = sum;
    o.crossings = rows;
    o.values = rows;
    o.rc = rc == SQLITE_DONE ? SQLITE_OK : rc;
    return o;
}

static op_out_t select_all(sqlite3 *db) {
    op_out_t o = {0, 0.0, 0, 0, SQLITE_OK};
    sqlite3_stmt *stmt;
    int rc = sqlite3_prepare_v2(db, SELECT_IDS, -1, &stmt, NULL);
    if (rc != SQLITE_OK) {
        o.rc = rc;
        return o;
    }
    size_t cap = 16, len = 0;
    int64_t *ids = malloc(cap * sizeof *ids);
    if (!ids) {
        sqlite3_finalize(stmt);
        o.rc = SQLITE_NOMEM;
        return o;
    }
    while ((rc = sqlite3_step(stmt)) == SQLITE_ROW) {
        if (len == cap) {
            int64_t *grown = realloc(ids, 2 * cap * sizeof *ids);
            if (!grown) {
                rc = SQLITE_NOMEM;
                break;
            }
            ids = grown;
            cap *= 2;
        }
        ids[len++] = sqlite3_column_int64(stmt, 0);
    }
    sqlite3_finalize(stmt);
    int64_t sum = 0;
    for (size_t i = 0; i < len; i++) sum += ids[i];
    free(ids);
    o.value = sum;
    o.crossings = (int64_t)len;
    o.values = (int64_t)len;
    o.rc = rc == SQLITE_DONE ? SQLITE_OK : rc;
    return o;
}

static op_out_t select_41(sqlite3 *db) {
    op_out_t o = {0, 0.0, 0, 0, SQLITE_OK};
    sqlite3_stmt *stmt;
    int rc = sqlite3_prepare_v2(db, "SELECT 41", -1, &stmt, NULL);
    if (rc != SQLITE_OK) {
        o.rc = rc;
        return o;
    }
    while ((rc = sqlite3_step(stmt)) == SQLITE_ROW) {
        o.value = sqlite3_column_int64(stmt, 0);
        o.crossings++;
        o.values++;
    }
    sqlite3_finalize(stmt);
    o.rc = rc == SQLITE_DONE ? SQLITE_OK : rc;
    return o;
}

/* bindings.point_query: the keys and the one prepared statement, made before the timed loop.
 *
 * Prepare once per process, outside the timed region; each operation only binds, steps and resets
 * per key. That is what the Python cell does after its first operation: sqlite3 keeps prepared
 * statements in a per-connection cache (128 by default) keyed on the SQL text, so `execute(sql,
 * (key,))` with the same text re-binds and re-steps the cached statement. (Python prepares it on the
 * first query of iteration 0, inside that timed operation; here no iteration includes a prepare,
 * so iteration 0 of the two cells is not strictly comparable; later ones are.) Each query is
 * stepped to SQLITE_DONE, as fetchall() does, then reset. Counts as bindings.py's PointQuery: per
 * query one crossing for the call with its bound parameter plus one per row stepped, one value
 * for the bound key plus one per column read (2 and 2 for a found key). */
static const char *const POINT_SQL = "SELECT str FROM testdata WHERE id = ?";
static long pq_k = 0;
static int64_t *pq_keys = NULL;
static sqlite3_stmt *pq_stmt = NULL;

static int point_prepare(sqlite3 *db, long n, long k, int64_t *expected, result_t *r) {
    long step = n / k > 1 ? n / k : 1;
    pq_k = k;
    pq_keys = malloc((size_t)k * sizeof *pq_keys);
    if (!pq_keys) {
        set_status(r, "error", "cannot allocate %ld keys", k);
        return -1;
    }
    int64_t total = 0;
    for (long i = 0; i < k; i++) {
        /* as Python: 1 + (i * step) % n, in 64 bits (i * step can exceed a 32-bit long) */
        pq_keys[i] = 1 + ((int64_t)i * step) % n;
        total += (int64_t)strlen(STRS[(pq_keys[i] - 1) % 4]);
    }
    *expected = total;
    if (sqlite3_prepare_v2(db, POINT_SQL, -1, &pq_stmt, NULL) != SQLITE_OK) {
        set_status(r, "error", "%s: %s", POINT_SQL, sqlite3_errmsg(db));
        return -1;
    }
    return 0;
}

static op_out_t point_query(sqlite3 *db) {
    (void)db;
    op_out_t o = {0, 0.0, 0, 0, SQLITE_OK};
    sqlite3_stmt *stmt = pq_stmt;
    int64_t total = 0, crossings = 0, values = 0;
    int rc = SQLITE_OK;
    for (long i = 0; i < pq_k; i++) {
        sqlite3_bind_int64(stmt, 1, (sqlite3_int64)pq_keys[i]);
        crossings++;
        values++;
        while ((rc = sqlite3_step(stmt)) == SQLITE_ROW) {
            const unsigned char *s = sqlite3_column_text(stmt, 0);
            total += s ? sqlite3_column_bytes(stmt, 0) : 0;
            crossings++;
            values++;
        }
        sqlite3_reset(stmt);
        if (rc != SQLITE_DONE) break;
        rc = SQLITE_OK;
    }
    o.value = total;
    o.crossings = crossings;
    o.values = values;
    o.rc = rc;
    return o;
}

/* micro.select and micro.innerjoin share their state: the SQL text (set before the loop) */
static const char *micro_sql = NULL;
static const char *const MICRO_SELECT =
    "SELECT l_quantity, l_extendedprice, l_discount FROM lineitem";
static const char *const MICRO_SELECT_EXPECTED =
    "SELECT COUNT(*), SUM(CASE WHEN l_quantity < 24 THEN l_extendedprice * (1 - l_discount) ELSE 0 END) "
    "FROM lineitem";
static const char *const MICRO_JOIN = "SELECT p_retailprice, ps_supplycost FROM part JOIN partsupp ON p_partkey = ps_partkey";
static const char *const MICRO_JOIN_EXPECTED =
    "SELECT COUNT(*), SUM(p_retailprice - ps_supplycost) FROM part JOIN partsupp ON p_partkey = ps_partkey";

static op_out_t micro_select(sqlite3 *db) {
    op_out_t o = {0, 0.0, 0, 0, SQLITE_OK};
    sqlite3_stmt *stmt;
    int rc = sqlite3_prepare_v2(db, micro_sql, -1, &stmt, NULL);
    if (rc != SQLITE_OK) {
        o.rc = rc;
        return o;
    }
    int64_t count = 0;
    double revenue = 0.0;
    while ((rc = sqlite3_step(stmt)) == SQLITE_ROW) {
        double quantity = sqlite3_column_double(stmt, 0);
        double price = sqlite3_column_double(stmt, 1);
        double discount = sqlite3_column_double(stmt, 2);
        count++;
        if (quantity < 24) revenue += price * (1 - discount);
    }
    sqlite3_finalize(stmt);
    o.value = count;
    o.sum = revenue;
    o.crossings = count + 1;
    o.values = 3 * count;
    o.rc = rc == SQLITE_DONE ? SQLITE_OK : rc;
    return o;
}

static op_out_t micro_innerjoin(sqlite3 *db) {
    op_out_t o = {0, 0.0, 0, 0, SQLITE_OK};
    sqlite3_stmt *stmt;
    int rc = sqlite3_prepare_v2(db, micro_sql, -1, &stmt, NULL);
    if (rc != SQLITE_OK) {
        o.rc = rc;
        return o;
    }
    int64_t count = 0;
    double margin = 0.0;
    while ((rc = sqlite3_step(stmt)) == SQLITE_ROW) {
        double retail = sqlite3_column_double(stmt, 0);
        double cost = sqlite3_column_double(stmt, 1);
        count++;
        margin += retail - cost;
    }
    sqlite3_finalize(stmt);
    o.value = count;
    o.sum = margin;
    o.crossings = count + 1;
    o.values = 2 * count;
    o.rc = rc == SQLITE_DONE ? SQLITE_OK : rc;
    return o;
}

/* micro.filltable: the rows to insert are made before the timed loop, as micro.py's set-up does */
static long fill_n = 0;
static char **fill_strs = NULL;

static int fill_prepare(long n) {
    fill_n = n;
    fill_strs = calloc((size_t)(n > 0 ? n : 1), sizeof *fill_strs);
    if (!fill_strs) return -1;
    for (long i = 0; i < n; i++) {
        char buf[32];
        int len = snprintf(buf, sizeof buf, "row %ld", i);
        fill_strs[i] = malloc((size_t)len + 1);
        if (!fill_strs[i]) return -1;
        memcpy(fill_strs[i], buf, (size_t)len + 1);
    }
    return 0;
}

static op_out_t micro_filltable(sqlite3 *db) {
    op_out_t o = {0, 0.0, 0, 0, SQLITE_OK};
    sqlite3_stmt *stmt = NULL;
    int rc;
    if ((rc = sqlite3_exec(db, "DROP TABLE IF EXISTS filltable", NULL, NULL, NULL)) != SQLITE_OK ||
        (rc = sqlite3_exec(db, "CREATE TABLE filltable (a INTEGER, b VARCHAR(32))", NULL, NULL, NULL)) != SQLITE_OK ||
        (rc = sqlite3_exec(db, "BEGIN", NULL, NULL, NULL)) != SQLITE_OK ||
        (rc = sqlite3_prepare_v2(db, "INSERT INTO filltable (a, b) VALUES (?, ?)", -1, &stmt, NULL)) != SQLITE_OK) {
        o.rc = rc;
        return o;
    }
    for (long i = 0; i < fill_n; i++) {
        sqlite3_bind_int64(stmt, 1, (sqlite3_int64)i);
        sqlite3_bind_text(stmt, 2, fill_strs[i], -1, SQLITE_STATIC);
        if ((rc = sqlite3_step(stmt)) != SQLITE_DONE) {
            sqlite3_finalize(stmt);
            o.rc = rc;
            return o;
        }
        sqlite3_reset(stmt);
    }
    sqlite3_finalize(stmt);
    if ((rc = sqlite3_exec(db, "COMMIT", NULL, NULL, NULL)) != SQLITE_OK ||
        (rc = sqlite3_prepare_v2(db, "SELECT a, b FROM filltable", -1, &stmt, NULL)) != SQLITE_OK) {
        o.rc = rc;
        return o;
    }
    int64_t count = 0, total = 0;
    size_t text_bytes = 0;
    while ((rc = sqlite3_step(stmt)) == SQLITE_ROW) {
        total += sqlite3_column_int64(stmt, 0);
        const unsigned char *b = sqlite3_column_text(stmt, 1); /* converted, as the Python loop's _b is */
        text_bytes += b ? (size_t)sqlite3_column_bytes(stmt, 1) : 0;
        count++;
    }
    sqlite3_finalize(stmt);
    o.value = count;
    (void)text_bytes; /* the column reads above are the point: each text value is converted */
    o.sum = (double)total;
    o.crossings = 1 + fill_n + 1 + count;
    o.values = 2 * fill_n + 2 * count;
    o.rc = rc == SQLITE_DONE ? SQLITE_OK : rc;
    return o;
}

/* ---------------------------------------------------------------- E4: inserts */

/* The rows are those of harness/workloads/inserts.py's make_rows: ids made untimed beforehand,
 * the numbers computed inline (each double a multiple of 1/8, exact in %.3f and in sums). */
#define INS_TABLE "crossings_inserts"
#define INS_BATCH 500
static const char *const INS_CREATE =
    "CREATE TABLE " INS_TABLE " (id TEXT, d1 REAL, d2 REAL, d3 REAL, i1 INTEGER, i2 INTEGER, i3 INTEGER)";
static const char *const INS_LITERAL = "INSERT INTO " INS_TABLE " VALUES ('%s', %.3f, %.3f, %.3f, %lld, %lld, %lld)";
static const char *const INS_CHECKSUM =
    "SELECT COUNT(*), SUM(i1), SUM(i2), SUM(i3), SUM(d1 + d2 + d3), SUM(LENGTH(id)) FROM " INS_TABLE;
static long ins_n = 0;       /* N, the rows expected */
static long ins_rows = 0;    /* rows the operation inserts (N, or N-1 for selftest.inserts_short) */
static char **ins_ids = NULL;
static char ins_path[4096];
static const char *ins_journal = "default";
static const char *ins_sync = "default";
static sqlite3 *ins_db = NULL;

#define D1(i) ((double)(i) + 0.5)
#define D2(i) ((double)(i) * 0.25)
#define D3(i) ((double)((i) % 1000) * 0.125)
#define V1(i) ((long long)(i))
#define V2(i) ((long long)((i) % 1000))
#define V3(i) ((long long)(((int64_t)(i) * 7) % 1009))

static int ins_prepare_rows(long n) {
    ins_n = n;
    ins_ids = calloc((size_t)(n > 0 ? n : 1), sizeof *ins_ids);
    if (!ins_ids) return -1;
    for (long i = 0; i < n; i++) {
        char buf[32];
        int len = snprintf(buf, sizeof buf, "id%ld", i);
        ins_ids[i] = malloc((size_t)len + 1);
        if (!ins_ids[i]) return -1;
        memcpy(ins_ids[i], buf, (size_t)len + 1);
    }
    return 0;
}

static void ins_unlink_files(void) {
    static const char *const suffixes[] = {"", "-journal", "-wal", "-shm"};
    char p[4200];
    for (int k = 0; k < 4; k++) {
        snprintf(p, sizeof p, "%s%s", ins_path, suffixes[k]);
        unlink(p);
    }
}

/* Untimed, before each iteration: a fresh database file, the pragmas applied and read back, the table. */
static int ins_reset(result_t *r) {
    if (ins_db) {
        sqlite3_close(ins_db);
        ins_db = NULL;
    }
    ins_unlink_files();
    if (sqlite3_open_v2(ins_path, &ins_db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, NULL) != SQLITE_OK) {
        set_status(r, "error", "cannot open %s: %s", ins_path, ins_db ? sqlite3_errmsg(ins_db) : "out of memory");
        return -1;
    }
    char sql[128];
    sqlite3_stmt *st = NULL;
    if (strcmp(ins_journal, "default") != 0) {
        snprintf(sql, sizeof sql, "PRAGMA journal_mode=%s", ins_journal);
        if (sqlite3_prepare_v2(ins_db, sql, -1, &st, NULL) != SQLITE_OK || sqlite3_step(st) != SQLITE_ROW) {
            set_status(r, "error", "%s: %s", sql, sqlite3_errmsg(ins_db));
            sqlite3_finalize(st);
            return -1;
        }
        const char *got = (const char *)sqlite3_column_text(st, 0);
        int same = got && strcasecmp(got, ins_journal) == 0;
        if (!same) set_status(r, "error", "%s left journal_mode %s", sql, got ? got : "NULL");
        sqlite3_finalize(st);
        if (!same) return -1;
    }
    if (strcmp(ins_sync, "default") != 0) {
        static const char *const names[] = {"off", "normal", "full", "extra"};
        snprintf(sql, sizeof sql, "PRAGMA synchronous=%s", ins_sync);
        if (exec_sql(ins_db, sql, r)) return -1;
        if (sqlite3_prepare_v2(ins_db, "PRAGMA synchronous", -1, &st, NULL) != SQLITE_OK ||
            sqlite3_step(st) != SQLITE_ROW) {
            set_status(r, "error", "PRAGMA synchronous: %s", sqlite3_errmsg(ins_db));
            sqlite3_finalize(st);
            return -1;
        }
        int code = sqlite3_column_int(st, 0);
        sqlite3_finalize(st);
        if (code < 0 || code > 3 || strcmp(names[code], ins_sync) != 0) {
            set_status(r, "error", "%s left synchronous %d", sql, code);
            return -1;
        }
    }
    return exec_sql(ins_db, INS_CREATE, r);
}

static int ins_literal_rows(sqlite3 *db) {
    char buf[300];
    int rc = SQLITE_OK;
    for (long i = 0; i < ins_rows && rc == SQLITE_OK; i++) {
        snprintf(buf, sizeof buf, INS_LITERAL, ins_ids[i], D1(i), D2(i), D3(i), V1(i), V2(i), V3(i));
        rc = sqlite3_exec(db, buf, NULL, NULL, NULL);
    }
    return rc;
}

static op_out_t ins_autocommit(sqlite3 *db) {
    op_out_t o = {0, 0.0, ins_rows, 7 * ins_rows, SQLITE_OK};
    o.rc = ins_literal_rows(db);
    return o;
}

static op_out_t ins_transaction(sqlite3 *db) {
    op_out_t o = {0, 0.0, ins_rows + 2, 7 * ins_rows, SQLITE_OK};
    if ((o.rc = sqlite3_exec(db, "BEGIN TRANSACTION", NULL, NULL, NULL)) != SQLITE_OK) return o;
    if ((o.rc = ins_literal_rows(db)) != SQLITE_OK) return o;
    o.rc = sqlite3_exec(db, "COMMIT TRANSACTION", NULL, NULL, NULL);
    return o;
}

static void ins_bind_row(sqlite3_stmt *stmt, int base, long i) {
    sqlite3_bind_text(stmt, base + 1, ins_ids[i], -1, SQLITE_STATIC);
    sqlite3_bind_double(stmt, base + 2, D1(i));
    sqlite3_bind_double(stmt, base + 3, D2(i));
    sqlite3_bind_double(stmt, base + 4, D3(i));
    sqlite3_bind_int64(stmt, base + 5, V1(i));
    sqlite3_bind_int64(stmt, base + 6, V2(i));
    sqlite3_bind_int64(stmt, base + 7, V3(i));
}

static op_out_t ins_prepared(sqlite3 *db) {
    op_out_t o = {0, 0.0, ins_rows + 2, 7 * ins_rows, SQLITE_OK};
    sqlite3_stmt *stmt = NULL;
    if ((o.rc = sqlite3_exec(db, "BEGIN TRANSACTION", NULL, NULL, NULL)) != SQLITE_OK) return o;
    if ((o.rc = sqlite3_prepare_v2(db, "INSERT INTO " INS_TABLE " VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)", -1, &stmt,
                                   NULL)) != SQLITE_OK)
        return o;
    for (long i = 0; i < ins_rows; i++) {
        ins_bind_row(stmt, 0, i);
        if ((o.rc = sqlite3_step(stmt)) != SQLITE_DONE) {
            sqlite3_finalize(stmt);
            return o;
        }
        sqlite3_reset(stmt);
    }
    sqlite3_finalize(stmt);
    o.rc = sqlite3_exec(db, "COMMIT TRANSACTION", NULL, NULL, NULL);
    return o;
}

static char *ins_multirow_sql(long k) {
    size_t len = strlen("INSERT INTO " INS_TABLE " VALUES ") + (size_t)k * 24 + 1;
    char *sql = malloc(len);
    if (!sql) return NULL;
    size_t at = (size_t)snprintf(sql, len, "INSERT INTO " INS_TABLE " VALUES ");
    for (long j = 0; j < k; j++) at += (size_t)snprintf(sql + at, len - at, "%s(?, ?, ?, ?, ?, ?, ?)", j ? ", " : "");
    return sql;
}

/* Steps one multi-row statement of k rows starting at row `start`; prepares it if *stmt is NULL. */
static int ins_multirow_step(sqlite3 *db, sqlite3_stmt **stmt, long start, long k) {
    int rc;
    if (!*stmt) {
        char *sql = ins_multirow_sql(k);
        if (!sql) return SQLITE_NOMEM;
        rc = sqlite3_prepare_v2(db, sql, -1, stmt, NULL);
        free(sql);
        if (rc != SQLITE_OK) return rc;
    }
    for (long j = 0; j < k; j++) ins_bind_row(*stmt, (int)(7 * j), start + j);
    rc = sqlite3_step(*stmt);
    sqlite3_reset(*stmt);
    return rc == SQLITE_DONE ? SQLITE_OK : rc;
}

static op_out_t ins_multirow(sqlite3 *db) {
    long batches = (ins_rows + INS_BATCH - 1) / INS_BATCH;
    op_out_t o = {0, 0.0, batches + 2, 7 * ins_rows, SQLITE_OK};
    sqlite3_stmt *full = NULL, *tail = NULL;
    if ((o.rc = sqlite3_exec(db, "BEGIN TRANSACTION", NULL, NULL, NULL)) != SQLITE_OK) return o;
    long start = 0;
    for (; start + INS_BATCH <= ins_rows && o.rc == SQLITE_OK; start += INS_BATCH)
        o.rc = ins_multirow_step(db, &full, start, INS_BATCH);
    if (o.rc == SQLITE_OK && start < ins_rows) o.rc = ins_multirow_step(db, &tail, start, ins_rows - start);
    sqlite3_finalize(full);
    sqlite3_finalize(tail);
    if (o.rc != SQLITE_OK) return o;
    o.rc = sqlite3_exec(db, "COMMIT TRANSACTION", NULL, NULL, NULL);
    return o;
}

/* Untimed, after each iteration: the checksum of inserts.py's check_checksum. Returns 1 if right. */
static int ins_verify(char *why, size_t why_len) {
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(ins_db, INS_CHECKSUM, -1, &st, NULL) != SQLITE_OK || sqlite3_step(st) != SQLITE_ROW) {
        snprintf(why, why_len, "checksum query failed: %s", sqlite3_errmsg(ins_db));
        sqlite3_finalize(st);
        return 0;
    }
    long long got[6];
    for (int c = 0; c < 6; c++) got[c] = c == 4 ? 0 : sqlite3_column_int64(st, c);
    double dsum = sqlite3_column_double(st, 4);
    sqlite3_finalize(st);
    long long want[6] = {ins_n, 0, 0, 0, 0, 0};
    double wdsum = 0.0;
    for (long i = 0; i < ins_n; i++) {
        want[1] += V1(i);
        want[2] += V2(i);
        want[3] += V3(i);
        wdsum += D1(i) + D2(i) + D3(i);
        want[5] += (long long)strlen(ins_ids[i]);
    }
    if (got[0] != want[0]) {
        snprintf(why, why_len, "row count %lld != %lld", got[0], want[0]);
        return 0;
    }
    static const char *const names[] = {"rows", "sum(i1)", "sum(i2)", "sum(i3)", "", "sum(length(id))"};
    for (int c = 1; c < 6; c++) {
        if (c != 4 && got[c] != want[c]) {
            snprintf(why, why_len, "%s %lld != %lld", names[c], got[c], want[c]);
            return 0;
        }
    }
    if (!(fabs(dsum - wdsum) <= 1e-12 * (fabs(wdsum) > 1.0 ? fabs(wdsum) : 1.0))) {
        snprintf(why, why_len, "sum(d1+d2+d3) %.17g != %.17g", dsum, wdsum);
        return 0;
    }
    return 1;
}

static int query_count_sum(sqlite3 *db, const char *sql, int64_t *count, double *sum, result_t *r) {
    sqlite3_stmt *stmt;
    if (sqlite3_prepare_v2(db, sql, -1, &stmt, NULL) != SQLITE_OK) {
        set_status(r, "error", "%s: %s", sql, sqlite3_errmsg(db));
        return -1;
    }
    if (sqlite3_step(stmt) != SQLITE_ROW) {
        set_status(r, "error", "%s: %s", sql, sqlite3_errmsg(db));
        sqlite3_finalize(stmt);
        return -1;
    }
    *count = sqlite3_column_int64(stmt, 0);
    *sum = sqlite3_column_double(stmt, 1);
    sqlite3_finalize(stmt);
    return 0;
}

static int close_enough(double a, double b) {
    double m = fabs(a) > fabs(b) ? fabs(a) : fabs(b);
    if (m < 1.0) m = 1.0;
    return fabs(a - b) <= 1e-9 * m;
}

/* inserts.*: close the database and remove its directory (made by mkdtemp in main) */
static void ins_finish(void) {
    if (!ins_path[0]) return;
    if (ins_db) sqlite3_close(ins_db);
    ins_db = NULL;
    ins_unlink_files();
    char dir[4096];
    snprintf(dir, sizeof dir, "%s", ins_path);
    char *slash = strrchr(dir, '/');
    if (slash) {
        *slash = '\0';
        rmdir(dir);
    }
}

/* ---------------------------------------------------------------- main */

static int64_t now_ns(clockid_t clock) {
    struct timespec ts;
    clock_gettime(clock, &ts);
    return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static int probe(void) {
    printf("{\"available\": true, \"runtime\": ");
    json_string(stdout, RUNTIME);
    printf(", \"compiler\": ");
    json_string(stdout, COMPILER_NAME " " COMPILER_VERSION);
    printf(", \"cflags\": ");
    json_string(stdout, CROSSINGS_CFLAGS);
    printf(", \"sqlite\": ");
    json_string(stdout, sqlite3_libversion());
    printf(", \"sqlite_source_id\": ");
    json_string(stdout, sqlite3_sourceid());
    printf(", \"sqlite_header\": ");
    json_string(stdout, SQLITE_VERSION);
    printf(", \"threadsafe\": %d}\n", sqlite3_threadsafe());
    return 0;
}

int main(int argc, char **argv) {
    if (argc == 2 && strcmp(argv[1], "--probe") == 0) return probe();
    if (argc < 6) {
        fprintf(stderr, "usage: %s --probe | BENCHMARK N[:K] ITERATIONS WORKDIR RESULT [DATABASE [KEY=VALUE ...]]\n",
                argv[0]);
        return 2;
    }
    const char *benchmark = argv[1];
    char *size_end = NULL;
    long n = strtol(argv[2], &size_end, 10);
    long k = -1; /* the second size of "N:K"; -1: not given */
    if (*size_end == ':') k = strtol(size_end + 1, NULL, 10);
    long iterations = strtol(argv[3], NULL, 10);
    const char *workdir = argv[4];
    const char *result_path = argv[5];
    const char *database = argc >= 7 && argv[6][0] ? argv[6] : NULL;
    const char *datadir = NULL;
    for (int a = 7; a < argc; a++) {
        if (strncmp(argv[a], "journal_mode=", 13) == 0) ins_journal = argv[a] + 13;
        else if (strncmp(argv[a], "synchronous=", 12) == 0) ins_sync = argv[a] + 12;
        else if (strncmp(argv[a], "datadir=", 8) == 0) datadir = argv[a] + 8;
    }

    result_t r;
    memset(&r, 0, sizeof r);
    set_status(&r, "error", "%s", "");
    if (iterations < 1) iterations = 1;
    r.iterations = iterations;
    r.wall_ns = calloc((size_t)iterations, sizeof(int64_t));
    r.cpu_ns = calloc((size_t)iterations, sizeof(int64_t));
    r.crossings = calloc((size_t)iterations, sizeof(int64_t));
    r.values = calloc((size_t)iterations, sizeof(int64_t));
    r.check_ok = calloc((size_t)iterations, sizeof(int));
    if (!r.wall_ns || !r.cpu_ns || !r.crossings || !r.values || !r.check_ok) {
        fprintf(stderr, "out of memory\n");
        return 1;
    }

    op_out_t (*operation)(sqlite3 *) = NULL;
    int64_t expected = 0;
    int needs_testdata = 0;
    int point = 0;                 /* bindings.point_query: keys and statement made after testdata */
    int float_check = 0;           /* micro.*: check (count, sum) instead of one integer */
    double expected_sum = 0.0;
    const char *expected_sql = NULL; /* micro.* on TPC-H: expected (count, sum) computed by SQLite */
    if (strcmp(benchmark, "bindings.select_fold") == 0 || strcmp(benchmark, "bindings.select_all") == 0) {
        if (n < 0) {
            set_status(&r, "error", "n must be >= 0, got %ld", n);
            write_result(result_path, &r);
            return 1;
        }
        operation = strcmp(benchmark, "bindings.select_fold") == 0 ? select_fold : select_all;
        expected = (int64_t)n * (n + 1) / 2;
        needs_testdata = 1;
    } else if (strcmp(benchmark, "bindings.point_query") == 0) {
        if (n < 1 || k < 1) {
            /* Python fails too: n // 0 and (i * step) % 0 raise ZeroDivisionError */
            set_status(&r, "error", "bindings.point_query needs N:K with n >= 1 and queries >= 1, got %s", argv[2]);
            write_result(result_path, &r);
            return 1;
        }
        operation = point_query;
        needs_testdata = 1;
        point = 1;
    } else if (strcmp(benchmark, "micro.select") == 0 || strcmp(benchmark, "micro.innerjoin") == 0) {
        if (!database) {
            set_status(&r, "error", "%s needs the prepared TPC-H database (spec data.path)", benchmark);
            write_result(result_path, &r);
            return 1;
        }
        int is_select = strcmp(benchmark, "micro.select") == 0;
        operation = is_select ? micro_select : micro_innerjoin;
        micro_sql = is_select ? MICRO_SELECT : MICRO_JOIN;
        expected_sql = is_select ? MICRO_SELECT_EXPECTED : MICRO_JOIN_EXPECTED;
        float_check = 1;
    } else if (strcmp(benchmark, "micro.filltable") == 0) {
        if (n < 0 || fill_prepare(n) != 0) {
            set_status(&r, "error", "cannot prepare %ld rows", n);
            write_result(result_path, &r);
            return 1;
        }
        operation = micro_filltable;
        expected = n;
        expected_sum = (double)((int64_t)n * (n - 1) / 2);
        float_check = 1;
    } else if (strncmp(benchmark, "inserts.", 8) == 0 || strcmp(benchmark, "selftest.inserts_short") == 0) {
        const char *strategy = strchr(benchmark, '.') + 1;
        if (strcmp(benchmark, "inserts.bulk") == 0) {
            set_status(&r, "not_applicable", "%s", "SQLite has no bulk-load path in its API: its fastest is a prepared "
                       "INSERT in one transaction (inserts.prepared)");
            return write_result(result_path, &r) ? 1 : 0;
        }
        if (strcmp(strategy, "autocommit") == 0) operation = ins_autocommit;
        else if (strcmp(strategy, "transaction") == 0) operation = ins_transaction;
        else if (strcmp(strategy, "prepared") == 0 || strcmp(strategy, "inserts_short") == 0) operation = ins_prepared;
        else if (strcmp(strategy, "multirow") == 0) operation = ins_multirow;
        else {
            set_status(&r, "not_applicable", "no C implementation of %s in harness/native/bench.c", benchmark);
            return write_result(result_path, &r) ? 1 : 0;
        }
        if (n < 1 || ins_prepare_rows(n) != 0) {
            set_status(&r, "error", "cannot prepare %ld rows (rows must be >= 1)", n);
            write_result(result_path, &r);
            return 1;
        }
        ins_rows = strcmp(strategy, "inserts_short") == 0 ? n - 1 : n;
        char dirtmpl[4000];
        snprintf(dirtmpl, sizeof dirtmpl, "%s/inserts-XXXXXX", datadir && datadir[0] ? datadir : workdir);
        if (!mkdtemp(dirtmpl)) {
            set_status(&r, "error", "cannot make a directory in %s: %s", datadir && datadir[0] ? datadir : workdir,
                       strerror(errno));
            write_result(result_path, &r);
            return 1;
        }
        snprintf(ins_path, sizeof ins_path, "%s/bench.db", dirtmpl);
    } else if (strcmp(benchmark, "selftest.wrong") == 0) {
        operation = select_41;
        expected = 42;
    } else {
        set_status(&r, "not_applicable", "no C implementation of %s in harness/native/bench.c", benchmark);
        return write_result(result_path, &r) ? 1 : 0;
    }

    char path[4096];
    if (database)
        snprintf(path, sizeof path, "%s", database);
    else
        snprintf(path, sizeof path, "%s/bench.db", workdir);
    sqlite3 *db = NULL;
    /* a prepared data set is shared by every process: open it read-only */
    int flags = database ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE;
    if (sqlite3_open_v2(path, &db, flags, NULL) != SQLITE_OK) {
        set_status(&r, "error", "cannot open %s: %s", path, db ? sqlite3_errmsg(db) : "out of memory");
        write_result(result_path, &r);
        return 1;
    }
    if (needs_testdata && create_testdata(db, n, &r) != 0) {
        sqlite3_close(db);
        write_result(result_path, &r);
        return 1;
    }

    if (point && point_prepare(db, n, k, &expected, &r) != 0) {
        sqlite3_close(db);
        write_result(result_path, &r);
        return 1;
    }

    if (expected_sql && query_count_sum(db, expected_sql, &expected, &expected_sum, &r) != 0) {
        sqlite3_close(db);
        write_result(result_path, &r);
        return 1;
    }

    long first_failure = -1;
    int64_t first_value = 0;
    double first_sum = 0.0;
    char ins_why[256] = "";
    for (long i = 0; i < iterations; i++) {
        if (ins_path[0] && ins_reset(&r) != 0) { /* inserts.*: a fresh file, untimed */
            ins_finish();
            sqlite3_close(db);
            write_result(result_path, &r);
            return 1;
        }
        sqlite3 *opdb = ins_path[0] ? ins_db : db;
        int64_t t0 = now_ns(CLOCK_MONOTONIC);
        int64_t c0 = now_ns(CLOCK_PROCESS_CPUTIME_ID);
        op_out_t o = operation(opdb);
        int64_t c1 = now_ns(CLOCK_PROCESS_CPUTIME_ID);
        int64_t t1 = now_ns(CLOCK_MONOTONIC);
        if (o.rc != SQLITE_OK) {
            set_status(&r, "error", "iteration %ld: %s: %s", i, sqlite3_errstr(o.rc), sqlite3_errmsg(opdb));
            ins_finish();
            sqlite3_finalize(pq_stmt);
            sqlite3_close(db);
            write_result(result_path, &r);
            return 1;
        }
        r.wall_ns[i] = t1 - t0;
        r.cpu_ns[i] = c1 - c0;
        r.crossings[i] = o.crossings;
        r.values[i] = o.values;
        char why[256] = "";
        if (ins_path[0])
            r.check_ok[i] = ins_verify(why, sizeof why);
        else
            r.check_ok[i] = o.value == expected && (!float_check || close_enough(o.sum, expected_sum));
        if (!r.check_ok[i] && first_failure < 0) {
            first_failure = i;
            memcpy(ins_why, why, sizeof ins_why);
            first_value = o.value;
            first_sum = o.sum;
        }
        r.done = i + 1;
    }
    sqlite3_finalize(pq_stmt); /* NULL (a no-op) except for bindings.point_query */
    ins_finish();
    sqlite3_close(db);
    if (first_failure >= 0) {
        if (ins_path[0])
            set_status(&r, "invalid", "wrong result: iteration %ld: %s", first_failure, ins_why);
        else if (float_check)
            set_status(&r, "invalid", "wrong result: iteration %ld: got (rows %lld, sum %.17g), expected (%lld, %.17g)",
                       first_failure, (long long)first_value, first_sum, (long long)expected, expected_sum);
        else if (point)
            set_status(&r, "invalid", "wrong result: iteration %ld: total length %lld != %lld", first_failure,
                       (long long)first_value, (long long)expected);
        else if (needs_testdata)
            set_status(&r, "invalid", "wrong result: iteration %ld: checksum %lld != N(N+1)/2 = %lld", first_failure,
                       (long long)first_value, (long long)expected);
        else
            set_status(&r, "invalid", "wrong result: iteration %ld: expected %lld, got %lld", first_failure,
                       (long long)expected, (long long)first_value);
    } else {
        set_status(&r, "ok", "%s", "");
    }
    return write_result(result_path, &r) ? 1 : 0;
}
