"""E5's app.* workload: corpora, the four operations on a real SQLite, and their checks catching
wrong answers; the plan's sweep over corpora."""
from __future__ import annotations

import pytest

from harness import engines, workloads
from harness.errors import UserError
from harness.run.plan import RunRequest, build_plan
from harness.studies import app as study
from harness.workloads import app

OPS = ("app.insert_user", "app.list_users", "app.insert_item", "app.query_user")


def test_corpora_are_the_seeds():
    assert app.CORPORA == {"SM": (0, 42), "MD": (1000, 789), "LG": (50000, 42), "LG2": (50000, 45678)}
    assert app.corpus_ids("SM") == [42]
    assert app.corpus_ids("MD")[-1] == 1000 and len(app.corpus_ids("LG2")) == 50000
    assert app.expected_user("MD")["name"] == "user789" and len(app.expected_user("MD")["items"]) == 3


def _state(tmp_path, bench, corpus="MD", **params):
    db = engines.get("sqlite/sqlite3").connect({}, str(tmp_path), None)
    w = workloads.get(bench)
    return w, w.setup(db, dict(corpus=corpus, **params), {})


@pytest.mark.parametrize("bench", OPS)
@pytest.mark.parametrize("corpus", ("SM", "MD"))
def test_each_operation_passes_its_check_on_sqlite(tmp_path, bench, corpus):
    w, st = _state(tmp_path, bench, corpus)
    for _ in range(3):
        assert w.check(st, w.operation(st)) is None


def test_a_user_inserted_wrong_is_caught(tmp_path):
    w, st = _state(tmp_path, "app.insert_user")
    uid, name, pw = w.operation(st)
    assert "read back" in w.check(st, (uid, "someone else", pw))
    uid2, name2, pw2 = w.operation(st)
    assert "passphrase" in w.check(st, (uid2, name2, "wrong"))
    assert "not above" in w.check(st, (1, name2, pw2))  # an old id is not a new user


def test_a_plain_password_where_a_scrypt_hash_belongs_is_caught(tmp_path):
    w, st = _state(tmp_path, "app.insert_user", hash="on")
    assert w.check(st, w.operation(st)) is None  # a real scrypt hash verifies
    st["hash"] = False
    result = w.operation(st)  # stores the plain password
    st["hash"] = True
    assert "not a scrypt hash" in w.check(st, result)


def test_a_short_list_is_caught(tmp_path):
    w, st = _state(tmp_path, "app.list_users")
    rows = w.operation(st)
    assert "expected 1000" in w.check(st, rows[:-1])
    assert "id sum" in w.check(st, rows[:-1] + [(99999, "x", "y")])


def test_a_lost_item_is_caught(tmp_path):
    w, st = _state(tmp_path, "app.insert_item")
    w.operation(st)
    st["db"].execute("DELETE FROM items WHERE name = 'item4'")
    assert "expected 4" in w.check(st, 1)


def test_a_wrong_user_record_is_caught(tmp_path):
    w, st = _state(tmp_path, "app.query_user")
    got = w.operation(st)
    assert w.check(st, dict(got, items=list(reversed(got["items"])))) is None  # order is the engine's
    assert "expected" in w.check(st, dict(got, items=got["items"][:2]))
    assert "expected" in w.check(st, None)


def test_scrypt_hash_verifies_only_its_password():
    h = app.scrypt_hash("pass1")
    assert h.startswith("14|8|1|") and app.scrypt_verify("pass1", h)
    assert not app.scrypt_verify("pass2", h) and not app.scrypt_verify("pass1", "pass1")


def _plan(**kw):
    return build_plan(RunRequest(profile="smoke", **kw), "test").to_dict()


def test_a_run_sweeps_the_corpora_unless_told():
    cells = _plan(benchmarks=["app.query_user"], engines=["sqlite/sqlite3"])["cells"]
    assert [c["params"]["corpus"] for c in cells] == ["SM", "MD", "LG", "LG2"]
    cells = _plan(benchmarks=["app.insert_user"], engines=["sqlite/sqlite3"],
                  params={"corpus": "SM,LG", "hash": "off,on"})["cells"]
    assert [(c["params"]["corpus"], c["params"]["hash"]) for c in cells] == [
        ("SM", "off"), ("SM", "on"), ("LG", "off"), ("LG", "on")]
    assert len(_plan(benchmarks=["app.list_users"], engines=["sqlite/sqlite3"], params={"corpus": "MD"})["cells"]) == 1


def test_an_unknown_corpus_is_one_line_listing_the_corpora():
    with pytest.raises(UserError, match="takes SM, MD, LG, LG2"):
        _plan(benchmarks=["app.list_users"], engines=["sqlite/sqlite3"], params={"corpus": "XL"})


def test_the_mongo_engine_refuses_sql_as_not_applicable():
    from harness.engines.base import NotApplicable
    from harness.engines.pymongo_engine import PymongoConnection

    conn = PymongoConnection(engines.get("ferretdb/pymongo"), None, None)
    with pytest.raises(NotApplicable, match="not SQL"):
        conn.execute("SELECT 1")


def test_claims_without_their_cells_are_untestable_here():
    import pandas as pd

    empty = pd.DataFrame(columns=["engine", "operation", "runtime", "benchmark", "params", "corpus"])
    for claim in (study.claim_acid, study.claim_acid_narrow, study.claim_mongo, study.claim_push, study.claim_sqlite, study.claim_optimisation):
        assert claim(empty, None)["verdict"].word == "untestable here"


def test_the_optimisation_claim_needs_intervals_that_say_so():
    """`-O halves most times` holds in a cell only when the whole interval of the -O0/-O2 time
    ratio lies within the band of "about 2": wide intervals that merely contain 2 are not support."""
    import pandas as pd

    rows = []
    for k in range(4):
        for rt in ("haskell-O0-ghc9.0.2", "haskell-O1-ghc9.0.2"):
            rows.append({"benchmark": f"app.op{k}", "params": "corpus=LG2", "engine": "acidstate/acid-state",
                         "runtime": rt, "corpus": "LG2"})
    cells = pd.DataFrame(rows)

    def verdict(interval, cells=cells):
        return study.claim_optimisation(cells, lambda i, j: interval)["verdict"].word

    assert verdict((1.06, 0.3, 4.0)) == "inconclusive"  # contains 2 but also 1
    assert verdict((2.1, 1.6, 2.8)) == "supported"
    assert verdict((1.1, 0.9, 1.3)) == "refuted"
    # the seed's optimised build ran at its 50k corpus only: without LG the claim is not ours to decide
    small = cells.assign(params="corpus=SM", corpus="SM")
    assert verdict((2.1, 1.6, 2.8), small) == "untestable here"
    # LG-O dealt with user #45678, as LG2 did, not LG's #42: LG alone is not the seed's pair either
    lg = cells.assign(params="corpus=LG", corpus="LG")
    why = study.claim_optimisation(lg, lambda i, j: (2.1, 1.6, 2.8))["verdict"]
    assert why.word == "untestable here" and "LG2 against LG-O, both user #45678" in why.why
    # the seed's `ghc -O` is -O1: an -O2 build at LG2 is another flag, not the seed's test
    o2 = cells.assign(runtime=cells["runtime"].str.replace("O1", "O2"))
    why = study.claim_optimisation(o2, lambda i, j: (2.1, 1.6, 2.8))["verdict"]
    assert why.word == "untestable here" and "-O1" in why.why
    # only the LG2 pairs decide: an SM pair beside them does not
    mixed = pd.concat([cells, small], ignore_index=True)
    assert study.claim_optimisation(mixed, lambda i, j: (2.1, 1.6, 2.8) if mixed.loc[i, "corpus"] == "LG2"
                                    else (1.1, 0.9, 1.3))["verdict"].word == "supported"


def test_the_pooled_reading_of_the_optimisation_claim_decides_by_the_geometric_mean():
    """Sensitivity reading: the geometric mean over the LG2 cells with its interval, against the band of
    "about 2x", instead of most cells one by one (wide cells straddle; their pooled mean need not)."""
    import pandas as pd

    rows = [{"benchmark": f"app.op{k}", "params": "corpus=LG2", "engine": "acidstate/acid-state", "runtime": rt,
             "corpus": "LG2"} for k in range(4) for rt in ("haskell-O0-ghc9.0.2", "haskell-O1-ghc9.0.2")]
    cells = pd.DataFrame(rows)

    class Ratio:
        def __call__(self, i, j):
            return (1.1, 0.5, 2.5)  # every cell straddles the band [1.33, 3]

        def geomean(self, pairs):
            assert len(pairs) == 4
            return (1.1, 1.0, 1.2)  # the pooled interval lies below it

    assert study.claim_optimisation(cells, Ratio())["verdict"].word == "inconclusive"
    pooled = study.claim_optimisation(cells, Ratio(), pooled=True)
    assert pooled["verdict"].word == "refuted" and "1.1x [1, 1.2] over 4 cells" in pooled["evidence"]


def test_the_e5_caption_defines_scrypt_only_when_a_row_carries_it():
    import pandas as pd

    plain = pd.DataFrame({"operation": ["insert_user", "get_user"], "corpus": ["MD", "MD"]})
    assert "(scrypt)" not in study.scrypt_marker(plain) and study.scrypt_marker(plain) == ". "
    hashed = pd.DataFrame({"operation": ["insert_user (scrypt)", "get_user"], "corpus": ["MD", "MD"]})
    assert "\"(scrypt)\": the password hashed in the timed region" in study.scrypt_marker(hashed)
    assert study.scrypt_marker(pd.DataFrame()) == ". "
