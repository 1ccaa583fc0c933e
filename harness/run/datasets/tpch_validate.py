"""`python -m harness validate tpch`: run the 22 queries (untimed, straight through the driver) and
check each answer against the answer sets and against other engines' answers at the same scale factor.

Server engines (postgresql/psycopg, mariadb/pymysql, mariadb/mysqlclient) validate on the server a
DSN names (`dsns`, else $CROSSINGS_POSTGRESQL_DSN / $CROSSINGS_MARIADB_DSN), else on a throwaway
server started for the validation and stopped (and removed) when it ends.

Runner side. Each engine's answers are kept in `data/cache/tpch/sf<SF>/answers/<engine>.json`
(tagged with the data fingerprint) so a later validation of another engine is compared with them.
"""
from __future__ import annotations

import contextlib
import json
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

from harness import engines as engine_registry
from harness.errors import UserError
from harness.fsutil import write_json_atomic
from harness.run.datasets import tpch as tpch_data
from harness.run.datasets.tpch_prepare import prepare as prepare_tpch
from harness.workloads import tpch_check, tpch_queries


#: engines without a Python driver whose own worker checks the answers (the Java worker)
FOREIGN_CHECKED = ("h2/jdbc",)


def validatable_engines() -> list[str]:
    """Engines whose TPC-H answers can be checked: a Python driver (not the C baseline), or a
    worker that checks them itself (H2's Java worker), and a dialect the 22 queries are written
    in. Derived from the engine registry."""
    return [n for n, e in engine_registry.ENGINES.items()
            if (not e.native or n in FOREIGN_CHECKED) and e.dialect in tpch_queries.dialects()]


@contextlib.contextmanager
def server_config(engine: str, dsns: dict | None = None, progress: bool = True):
    """The engine_config of the server to validate on: the user's DSN, or a throwaway server for
    the duration of the block (stopped and removed afterwards, also on Ctrl-C)."""
    from harness.run import servers

    family = servers.family_of(engine)
    dsns = dict(servers.user_dsns(None), **(dsns or {}))
    if family in dsns:
        yield servers.user_config(family, dsns[family])
        return
    reason = servers.unavailable_reason(family)
    if reason:
        raise UserError(f"cannot validate {engine}: {reason}")
    servers.sweep_stale_dirs()
    try:
        # SIGTERM unwinds like Ctrl-C, so the server is stopped and its directory removed
        with servers.terminate_as_interrupt(), servers.throwaway(family) as server:
            if progress:
                print(f"[validate] started throwaway {server.record.get('version') or family} server "
                      f"in {server.record.get('start_s')} s", file=sys.stderr, flush=True)
            yield server.engine_config()
    except servers.ServerError as exc:
        raise UserError(f"cannot validate {engine}: throwaway {family} server: {exc}") from None


def connect(engine: str, path: str, engine_config: dict | None = None, timeout: float | None = None):
    """A read-only DB-API style connection to the prepared database file; for a server engine, a
    connection (the driver's own, as the benchmarks use it) to the schema/database `path`."""
    if engine not in validatable_engines():
        raise UserError(unknown_engine_message(engine))
    eng = engine_registry.get(engine)
    raw = eng.open_readonly(path, engine_config)
    if eng.server_family and timeout:  # the server cancels a statement that runs longer
        cur = raw.cursor()
        cur.execute(eng.timeout_statement(timeout))
        cur.close()
    return raw


def unknown_engine_message(engine: str) -> str:
    return f"unknown engine {engine!r} for TPC-H validation; valid engines: {', '.join(validatable_engines())}"


@dataclass
class QueryResult:
    number: int
    ok: bool = False
    seconds: float = 0.0
    rows: int = 0
    reason: str | None = None
    cross: list = field(default_factory=list)  # [(other engine, None | reason)]
    answer: list | None = None  # rows as text, for the answers file


def _slug(engine: str, indexes) -> str:
    base = engine.replace("/", "-")
    if indexes is None:
        return base
    return f"{base}-{'indexes' if indexes else 'noindexes'}"


def _rows_as_text(rows):
    out = []
    for row in rows:
        out.append([None if v is None else tpch_check._text(v) for v in row])
    return out


def _run_with_timeout(conn, query, timeout):
    if not timeout or not hasattr(conn, "interrupt"):  # servers: a statement timeout set at connect
        return tpch_queries.run_query(conn, query)
    timer = threading.Timer(timeout, conn.interrupt)
    timer.start()
    try:
        return tpch_queries.run_query(conn, query)
    finally:
        timer.cancel()


def validate(engine: str, sf, *, indexes: bool = True, queries=None, answers_dir: str | None = None,
             timeout: float | None = None, progress: bool = True, cross: bool = True,
             save: bool = True, dsns: dict | None = None) -> tuple[list[QueryResult], dict]:
    """Validate `engine` at scale factor `sf`. Returns (results, info). A server engine runs on the
    server `dsns` names ({family: DSN}), else on a throwaway one started for this validation."""
    if engine not in validatable_engines():
        raise UserError(unknown_engine_message(engine))
    if engine in FOREIGN_CHECKED:
        return _validate_foreign(engine, sf, indexes=indexes, queries=queries, answers_dir=answers_dir,
                                 timeout=timeout, progress=progress)
    if engine_registry.get(engine).server_family:
        _check_request(sf, queries, answers_dir)
        with server_config(engine, dsns, progress) as config:
            return _validate(engine, sf, indexes=indexes, queries=queries, answers_dir=answers_dir, timeout=timeout,
                             progress=progress, cross=cross, save=save, engine_config=config)
    return _validate(engine, sf, indexes=indexes, queries=queries, answers_dir=answers_dir, timeout=timeout,
                     progress=progress, cross=cross, save=save)


def _check_request(sf, queries, answers_dir) -> None:
    answers_dir = answers_dir or tpch_check.default_answers_dir()
    sf_text = tpch_data.format_sf(sf)
    if tpch_check.answer_file(1, sf_text, answers_dir) is None:
        have = tpch_check.available_sfs(answers_dir)
        raise UserError(
            f"no TPC-H answer set for sf {sf_text} under {answers_dir}; "
            f"answers exist for sf {', '.join(have) if have else '(none: is data/tpch-answers there?)'}"
        )
    for n in queries or ():
        if n not in tpch_queries.NUMBERS:
            raise UserError(f"TPC-H has queries 1..22, not {n}")


def _validate(engine: str, sf, *, indexes: bool, queries, answers_dir, timeout, progress: bool, cross: bool,
              save: bool, engine_config: dict | None = None) -> tuple[list[QueryResult], dict]:
    _check_request(sf, queries, answers_dir)
    answers_dir = answers_dir or tpch_check.default_answers_dir()
    sf_text = tpch_data.format_sf(sf)
    numbers = list(queries) if queries else list(tpch_queries.NUMBERS)
    data = prepare_tpch(engine, float(sf_text), indexes, progress=progress, engine_config=engine_config)
    dialect = engine_registry.get(engine).dialect
    applied_indexes = data["indexes"]
    conn = connect(engine, data["path"], engine_config, timeout)
    others = _load_other_answers(engine, applied_indexes, sf_text, data["fingerprint"]) if cross else {}
    results = []
    try:
        for n in numbers:
            res = QueryResult(n)
            query = tpch_queries.get(dialect, n)
            t0 = time.perf_counter()
            try:
                rows = _run_with_timeout(conn, query, timeout)
            except Exception as exc:  # a failing query is a failed validation, not a crash
                res.seconds = time.perf_counter() - t0
                res.reason = f"error: {type(exc).__name__}: {str(exc).strip().splitlines()[0] if str(exc).strip() else ''}"
                results.append(res)
                _say(progress, res)
                continue
            res.seconds = time.perf_counter() - t0
            res.rows = len(rows)
            res.answer = _rows_as_text(rows)
            try:
                expected = tpch_check.load_expected(n, sf_text, answers_dir)
            except LookupError as exc:
                res.reason = str(exc)
            else:
                res.reason = tpch_check.compare(expected, rows)
            for other, answers in sorted(others.items()):
                theirs = answers.get(str(n))
                if theirs is None:
                    continue
                ref = tpch_check.expected_from_rows(n, [[("NULL" if v is None else v) for v in r] for r in theirs],
                                                    source=other)
                res.cross.append((other, tpch_check.compare(ref, rows)))
            res.ok = res.reason is None and all(r is None for _, r in res.cross)
            results.append(res)
            _say(progress, res)
    finally:
        close = getattr(conn, "close", None)
        if close:
            close()
    where = data["path"]
    if engine_config is not None:
        kind = "schema" if engine.startswith("postgresql/") else "database"
        where = f"{kind} {data['path']} on the {engine_config.get('source') or ''} {engine.split('/')[0]} server".replace(
            "  ", " ")
    info = {
        "engine": engine,
        "sf": sf_text,
        "indexes": applied_indexes,
        "path": where,
        "fingerprint": data["fingerprint"],
        "answers": str(Path(answers_dir) / f"sf{sf_text}"),
        "answer_kind": "official TPC-H kit answers" if sf_text == "1" else "DuckDB-computed answers",
        "compared_with": sorted(others),
    }
    if save:
        _save_answers(engine, applied_indexes, sf_text, data["fingerprint"], results)
    return results, info


def _validate_foreign(engine: str, sf, *, indexes: bool, queries, answers_dir, timeout,
                      progress: bool) -> tuple[list[QueryResult], dict]:
    """The queries run by the engine's own worker (one process each, one iteration), which checks
    the answer against the answer set itself; no rows come back, so no cross-engine comparison."""
    import tempfile

    from harness.run.jvm import launcher

    _check_request(sf, queries, answers_dir)
    answers_dir = answers_dir or tpch_check.default_answers_dir()
    sf_text = tpch_data.format_sf(sf)
    data = prepare_tpch(engine, float(sf_text), indexes, progress=progress)
    results = []
    try:
        for n in list(queries) if queries else list(tpch_queries.NUMBERS):
            res = QueryResult(n)
            with tempfile.TemporaryDirectory(prefix="validate-") as workdir:
                spec = {"benchmark": "tpch.q%02d" % n, "params": {"sf": float(sf_text)}, "iterations": 1,
                        "budget_s": 0, "min_iterations": 1, "workdir": workdir, "data": data}
                t0 = time.perf_counter()
                out = launcher.run_once(engine, spec, timeout, answers_dir)
                res.seconds = (out["wall_ns"][0] / 1e9) if out.get("wall_ns") else time.perf_counter() - t0
            res.ok = out.get("status") == "ok"
            res.rows = int(out["crossings"][0]) - 1 if out.get("crossings") else 0
            res.reason = None if res.ok else f"{out.get('status')}: {out.get('reason')}"
            results.append(res)
            _say(progress, res)
    except launcher.BuildError as exc:
        raise UserError(f"cannot validate {engine}: {exc}") from None
    info = {"engine": engine, "sf": sf_text, "indexes": data["indexes"], "path": data["path"],
            "fingerprint": data["fingerprint"], "answers": str(Path(answers_dir) / f"sf{sf_text}"),
            "answer_kind": "official TPC-H kit answers" if sf_text == "1" else "DuckDB-computed answers",
            "compared_with": []}
    return results, info


def _say(progress: bool, res: QueryResult) -> None:
    if progress:
        status = "pass" if res.ok else "FAIL"
        print(f"[validate] q{res.number:02d} {status} {res.seconds:8.3f}s", file=sys.stderr, flush=True)


def _answers_dir_for(sf_text: str) -> Path:
    return tpch_data.sf_dir(sf_text) / "answers"


def _load_other_answers(engine, indexes, sf_text, fingerprint) -> dict:
    """Other engines' stored answers for the same data: {label: {"<q>": rows}}."""
    directory = _answers_dir_for(sf_text)
    mine = _slug(engine, indexes)
    out = {}
    if not directory.is_dir():
        return out
    for path in sorted(directory.glob("*.json")):
        if path.stem == mine:
            continue
        try:
            with open(path) as fh:
                doc = json.load(fh)
        except (OSError, ValueError):
            continue
        if doc.get("fingerprint") != fingerprint:
            continue
        label = doc.get("engine", path.stem)
        if doc.get("indexes") is not None:
            label += f" (indexes={'on' if doc['indexes'] else 'off'})"
        # only answers that themselves passed against the answer set serve as references
        out[label] = {q: a["rows"] for q, a in doc.get("queries", {}).items() if a.get("passed")}
    return out


def _save_answers(engine, indexes, sf_text, fingerprint, results) -> None:
    directory = _answers_dir_for(sf_text)
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / f"{_slug(engine, indexes)}.json"
    doc = {"engine": engine, "indexes": indexes, "sf": sf_text, "fingerprint": fingerprint, "queries": {}}
    if path.exists():  # keep queries not re-run this time (e.g. --queries 1,2)
        try:
            with open(path) as fh:
                old = json.load(fh)
            if old.get("fingerprint") == fingerprint:
                doc["queries"] = old.get("queries", {})
        except (OSError, ValueError):
            pass
    for r in results:
        if r.answer is not None:
            doc["queries"][str(r.number)] = {"passed": r.reason is None, "rows": r.answer}
    write_json_atomic(path, doc, pretty=False)


def format_table(results: list[QueryResult], info: dict) -> str:
    idx = info["indexes"]
    lines = [
        f"TPC-H validation: engine {info['engine']}, sf {info['sf']}"
        + ("" if idx is None else f", indexes={'on' if idx else 'off'}"),
        f"data: {info['path']} ({info['fingerprint'][:23]}...)",
        f"answers: {info['answers']} ({info['answer_kind']})",
        "cross-engine: " + (", ".join(info["compared_with"]) or "no other engine's answers stored yet"),
        "",
        f"{'query':<6}{'result':<8}{'rows':>7}{'seconds':>10}  {'cross-engine':<14}reason",
    ]
    for r in results:
        if not r.cross:
            cross = "-"
        else:
            bad = [o for o, reason in r.cross if reason is not None]
            cross = f"{len(r.cross) - len(bad)}/{len(r.cross)} agree"
        reasons = []
        if r.reason:
            reasons.append(r.reason)
        reasons.extend(f"vs {o}: {reason}" for o, reason in r.cross if reason is not None)
        lines.append(f"q{r.number:02d}{'':<3}{'pass' if r.ok else 'FAIL':<8}{r.rows:>7}{r.seconds:>10.3f}  "
                     f"{cross:<14}{'; '.join(reasons)}")
    passed = sum(r.ok for r in results)
    total_s = sum(r.seconds for r in results)
    lines.append("")
    lines.append(f"{passed}/{len(results)} passed ({total_s:.1f}s in queries)")
    return "\n".join(lines)
