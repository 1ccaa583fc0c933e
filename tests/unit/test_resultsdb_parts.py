"""The results store's parts that need no server: migrations in order, content hashes, DSN checks."""
from __future__ import annotations

import pytest

from harness.errors import UserError
from harness.run import resultsdb


def test_migrations_are_numbered_without_gaps():
    ms = resultsdb.migrations()
    assert [v for v, _, _ in ms] == list(range(1, len(ms) + 1))
    assert "CREATE TABLE crossings.runs" in ms[0][2]


def test_content_hash_is_order_free_and_sees_every_byte():
    files = [("plan.json", b"{}"), ("timings/000000.parquet", b"PAR1")]
    assert resultsdb.content_hash(files) == resultsdb.content_hash(files[::-1])
    assert resultsdb.content_hash(files) != resultsdb.content_hash([files[0], ("timings/000000.parquet", b"PAR2")])


def test_a_dsn_that_is_not_postgresql_is_refused_without_its_password(tmp_path):
    with pytest.raises(UserError) as err:
        resultsdb.push([], "mysql://u:secret@h/db")
    assert "secret" not in str(err.value)


def test_an_unreachable_store_is_a_user_error_without_its_password():
    with pytest.raises(UserError) as err:  # port 1 on the loopback: refused at once, nothing listens there
        resultsdb.run_ids("postgresql://u:sekrit@127.0.0.1:1/x?connect_timeout=2")
    message = str(err.value)
    assert message.startswith("cannot connect to the results store postgresql://u:***@127.0.0.1:1/x")
    assert "sekrit" not in message and "\n" not in message
