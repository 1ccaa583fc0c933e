"""E5, the application workload (seed 002, "AcidState vs. The World").

The seed ported one web application's back-end (users, called accounts, each with items) to
several stores and timed four operations. Ours, for every engine (a worker in another language
must do the same to be compared):

- Corpora (`corpus`): SM = no users but the target, user #42; MD = users 1..1,000, target #789;
  LG = users 1..50,000, target #42; LG2 = users 1..50,000, target #45678. User `i` is
  `(i, "user<i>", "pass<i>")`; the target user also has ITEMS_PER_TARGET items
  `("item<j>", "comment <j>", "Need", j)`, j = 1..3, so a query returns a user with items. The
  corpus is built in untimed set-up, in bulk (multi-row INSERTs of literals in one transaction;
  `insert_many` on MongoDB), in a fresh database (embedded engines) or freshly created tables
  (servers); DuckDB generates the numbered users with its `range()` instead.
- Schema, as the seed's SQL: `accounts(id INTEGER PRIMARY KEY <auto-increment>, name
  VARCHAR(120), passphrase VARCHAR(250))`, `items("user" VARCHAR(120), name VARCHAR(120),
  comment VARCHAR(120), status VARCHAR(4), count INTEGER)`, items tied to a user by name, no
  index on items. On the MongoDB wire: one collection `accounts` of documents
  `{id, name, passphrase, items: [{name, comment, status, count}]}` with a unique index on `id`
  (the SQL primary key's counterpart).
- `app.insert_user`: one new user per iteration, "user<k>" with k counting from 1,000,001,
  through an auto-incremented id (`INSERT ... RETURNING id`; on MongoDB the seed's manual
  auto-increment: the next id is the largest id + 1, read through the index, then `insert_one`;
  the seed counted documents, which would collide with SM's #42). `hash=on` stores a
  scrypt hash of the password made in the timed region, as the seed's `encryptPassIO` did
  (N = 2^14, r = 8, p = 1, 64-byte key, 32 random salt bytes: Haskell scrypt's defaultParams),
  `hash=off` (default) the plain password: the seed found the hash dominates user insertion.
- `app.list_users`: every account row (`SELECT * FROM accounts`; every document), all fetched.
- `app.insert_item`: one item into the target user per iteration (`INSERT INTO items`;
  `$push` onto the target's `items` on MongoDB).
- `app.query_user`: the target user by id with its items, as a dict
  `{id, name, passphrase, items: [(name, comment, status, count), ...]}` (SQL: the account by
  primary key, then its items by name, as the seed's `getAccountBy`).

Every statement runs in the driver's autocommit (a transaction per statement, durable as each
engine's defaults make it). Checks, after the clock stops: the inserted user read back by its
id (and its hash verified with scrypt), the list's length and id sum, the target's item count
after each insert, the queried user equal to the corpus's.
"""
from __future__ import annotations

import base64
import hashlib
import hmac
import os
from typing import Any, Dict, List, Optional, Tuple

from harness.workloads.base import Workload

#: corpus -> (users 1..N, target user id); the seed's SM, MD, LG and LG2
CORPORA = {"SM": (0, 42), "MD": (1000, 789), "LG": (50000, 42), "LG2": (50000, 45678)}
CORPUS_NAMES = ("SM", "MD", "LG", "LG2")
ITEMS_PER_TARGET = 3
#: the first new user's number in app.insert_user (above every corpus id)
FIRST_NEW_USER = 1000001
#: Haskell scrypt's defaultParams (Crypto.Scrypt): log2 N = 14, r = 8, p = 1, 64-byte key
SCRYPT_N, SCRYPT_R, SCRYPT_P, SCRYPT_KEYLEN, SALT_BYTES = 2 ** 14, 8, 1, 64, 32
HASH_VALUES = ("off", "on")
BATCH = 1000
MONGODB = "mongodb"


def user_row(i: int) -> Tuple[int, str, str]:
    return i, "user%d" % i, "pass%d" % i


def item_row(j: int) -> Tuple[str, str, str, int]:
    return "item%d" % j, "comment %d" % j, "Need", j


def corpus_ids(corpus: str) -> List[int]:
    """The ids of a corpus's users, ascending (SM: the target alone)."""
    n, target = CORPORA[corpus]
    ids = list(range(1, n + 1))
    if target > n:
        ids.append(target)
    return ids


def expected_user(corpus: str) -> Dict[str, Any]:
    """What app.query_user must return for the corpus's target."""
    target = CORPORA[corpus][1]
    _, name, pw = user_row(target)
    return {"id": target, "name": name, "passphrase": pw,
            "items": [item_row(j) for j in range(1, ITEMS_PER_TARGET + 1)]}


def scrypt_hash(password: str) -> str:
    """`14|8|1|salt|key` (base64), the layout of Haskell scrypt's EncryptedPass."""
    salt = os.urandom(SALT_BYTES)
    key = hashlib.scrypt(password.encode(), salt=salt, n=SCRYPT_N, r=SCRYPT_R, p=SCRYPT_P,
                         maxmem=64 * 1024 * 1024, dklen=SCRYPT_KEYLEN)
    return "14|%d|%d|%s|%s" % (SCRYPT_R, SCRYPT_P, base64.b64encode(salt).decode(), base64.b64encode(key).decode())


def scrypt_verify(password: str, stored: Any) -> bool:
    try:
        logn, r, p, salt, key = str(stored).split("|")
        k = hashlib.scrypt(password.encode(), salt=base64.b64decode(salt), n=2 ** int(logn), r=int(r), p=int(p),
                           maxmem=64 * 1024 * 1024, dklen=len(base64.b64decode(key)))
    except (ValueError, TypeError):
        return False
    return hmac.compare_digest(k, base64.b64decode(key))


# ---------------------------------------------------------------------------------------------
# SQL engines

_USER_COL = {"mariadb": "`user`"}
_ID_COL = {
    "sqlite": "id INTEGER PRIMARY KEY",
    "duckdb": "id INTEGER PRIMARY KEY DEFAULT nextval('accounts_id')",
    "postgresql": "id INTEGER GENERATED BY DEFAULT AS IDENTITY (START WITH %(start)d) PRIMARY KEY",
    "mariadb": "id INTEGER PRIMARY KEY AUTO_INCREMENT",
}


def _lit(v: Any) -> str:
    return str(v) if isinstance(v, int) else "'%s'" % str(v).replace("'", "''")


class SqlBackend:
    """The seed's HDBC back-end in SQL, one dialect per engine family."""

    def __init__(self, db: Any) -> None:
        self.db = db
        self.ph = db.placeholder
        self.user_col = _USER_COL.get(db.dialect, '"user"')

    def create(self, corpus: str) -> None:
        db = self.db
        ids = corpus_ids(corpus)
        start = ids[-1] + 1
        db.execute("DROP TABLE IF EXISTS items")
        db.execute("DROP TABLE IF EXISTS accounts")
        if db.dialect == "duckdb":
            db.execute("DROP SEQUENCE IF EXISTS accounts_id")
            db.execute("CREATE SEQUENCE accounts_id START %d" % start)
        tail = " ENGINE=InnoDB" if db.dialect == "mariadb" else ""
        db.execute("CREATE TABLE accounts (%s, name VARCHAR(120), passphrase VARCHAR(250))%s"
                   % (_ID_COL[db.dialect] % {"start": start}, tail))
        db.execute("CREATE TABLE items (%s VARCHAR(120), name VARCHAR(120), comment VARCHAR(120), status VARCHAR(4), "
                   "count INTEGER)%s" % (self.user_col, tail))
        db.execute("BEGIN")
        if db.dialect == "duckdb" and len(ids) > BATCH:
            # DuckDB parses long VALUES lists slowly (a minute for LG): its range() makes the same rows
            n = CORPORA[corpus][0]
            db.execute("INSERT INTO accounts SELECT i, 'user' || i, 'pass' || i FROM range(1, %d) t(i)" % (n + 1))
            ids = ids[n:]
        for lo in range(0, len(ids), BATCH):
            rows = ",".join("(%s)" % ",".join(_lit(v) for v in user_row(i)) for i in ids[lo:lo + BATCH])
            db.execute("INSERT INTO accounts (id, name, passphrase) VALUES " + rows)
        target = CORPORA[corpus][1]
        rows = ",".join("(%s)" % ",".join(_lit(v) for v in (user_row(target)[1],) + item_row(j))
                        for j in range(1, ITEMS_PER_TARGET + 1))
        db.execute("INSERT INTO items (%s, name, comment, status, count) VALUES %s" % (self.user_col, rows))
        db.execute("COMMIT")
        self.sql_insert_user = ("INSERT INTO accounts (name, passphrase) VALUES (%s, %s) RETURNING id"
                                % (self.ph, self.ph))
        self.sql_insert_item = ("INSERT INTO items (%s, name, comment, status, count) VALUES (%s, %s, %s, %s, %s)"
                                % ((self.user_col,) + (self.ph,) * 5))
        self.sql_account = "SELECT * FROM accounts WHERE id = %s" % self.ph
        self.sql_items = "SELECT name, comment, status, count FROM items WHERE %s = %s" % (self.user_col, self.ph)

    # timed
    def insert_user(self, name: str, passphrase: str) -> int:
        return self.db.query(self.sql_insert_user, (name, passphrase))[0][0]

    def list_users(self) -> List[Any]:
        return self.db.query("SELECT * FROM accounts")

    def insert_item(self, user_name: str, item: Tuple[str, str, str, int]) -> None:
        self.db.execute(self.sql_insert_item, (user_name,) + tuple(item))

    def get_user(self, uid: int) -> Optional[Dict[str, Any]]:
        rows = self.db.query(self.sql_account, (uid,))
        if not rows:
            return None
        i, name, pw = rows[0]
        items = [tuple(r) for r in self.db.query(self.sql_items, (name,))]
        return {"id": i, "name": name, "passphrase": pw, "items": items}

    # untimed, for checks
    def item_count(self, user_name: str) -> int:
        return int(self.db.query("SELECT COUNT(*) FROM items WHERE %s = %s" % (self.user_col, self.ph),
                                 (user_name,))[0][0])

    @staticmethod
    def row_id(row: Any) -> int:
        return int(row[0])


# ---------------------------------------------------------------------------------------------
# The MongoDB wire protocol (pymongo)

class MongoBackend:
    """The seed's MongoDB back-end: one document per account with its items nested."""

    def __init__(self, db: Any) -> None:
        self.database = db.raw

    def create(self, corpus: str) -> None:
        self.database.drop_collection("accounts")
        coll = self.coll = self.database["accounts"]
        coll.create_index("id", unique=True)
        ids = corpus_ids(corpus)
        target = CORPORA[corpus][1]
        for lo in range(0, len(ids), BATCH):
            docs = []
            for i in ids[lo:lo + BATCH]:
                _, name, pw = user_row(i)
                items = ([_item_doc(item_row(j)) for j in range(1, ITEMS_PER_TARGET + 1)] if i == target else [])
                docs.append({"id": i, "name": name, "passphrase": pw, "items": items})
            coll.insert_many(docs, ordered=True)

    def insert_user(self, name: str, passphrase: str) -> int:
        last = self.coll.find_one({}, {"id": 1}, sort=[("id", -1)])
        uid = (last["id"] if last else 0) + 1
        self.coll.insert_one({"id": uid, "name": name, "passphrase": passphrase, "items": []})
        return uid

    def list_users(self) -> List[Any]:
        return list(self.coll.find({}))

    def insert_item(self, user_name: str, item: Tuple[str, str, str, int]) -> None:
        self.coll.update_one({"name": user_name}, {"$push": {"items": _item_doc(item)}})

    def get_user(self, uid: int) -> Optional[Dict[str, Any]]:
        d = self.coll.find_one({"id": uid})
        if d is None:
            return None
        return {"id": d["id"], "name": d["name"], "passphrase": d["passphrase"],
                "items": [(i["name"], i["comment"], i["status"], i["count"]) for i in d["items"]]}

    def item_count(self, user_name: str) -> int:
        d = self.coll.find_one({"name": user_name}, {"items": 1})
        return len(d["items"]) if d else -1

    @staticmethod
    def row_id(row: Any) -> int:
        return int(row["id"])


def _item_doc(item: Tuple[str, str, str, int]) -> Dict[str, Any]:
    return {"name": item[0], "comment": item[1], "status": item[2], "count": item[3]}


def backend_for(db: Any) -> Any:
    return MongoBackend(db) if db.dialect == MONGODB else SqlBackend(db)


# ---------------------------------------------------------------------------------------------
# The four benchmarks

class _App(Workload):
    default_params = {"corpus": "SM"}
    #: parameters a run sweeps over when neither the command nor the profile fixes them
    sweep = {"corpus": list(CORPUS_NAMES)}
    #: the values each string parameter takes (the plan rejects others with this list)
    param_choices = {"corpus": CORPUS_NAMES}

    def setup(self, db: Any, params: Dict[str, Any], ctx: Dict[str, Any]) -> Any:
        corpus = str(params.get("corpus", "SM"))
        if corpus not in CORPORA:
            raise ValueError("corpus %r: one of %s" % (corpus, ", ".join(CORPUS_NAMES)))
        backend = backend_for(db)
        backend.create(corpus)
        n, target = CORPORA[corpus]
        ids = corpus_ids(corpus)
        return {"db": db, "b": backend, "corpus": corpus, "target": target, "target_name": user_row(target)[1],
                "n_users": len(ids), "id_sum": sum(ids), "k": 0, "params": params}


class InsertUser(_App):
    name = "app.insert_user"
    description = "E5: insert one user (auto-incremented id; hash=on: scrypt password hash) into a corpus"
    default_params = {"corpus": "SM", "hash": "off"}
    param_choices = {"corpus": CORPUS_NAMES, "hash": HASH_VALUES}

    def setup(self, db: Any, params: Dict[str, Any], ctx: Dict[str, Any]) -> Any:
        h = str(params.get("hash", "off"))
        if h not in HASH_VALUES:
            raise ValueError("hash %r: on or off" % h)
        if h == "on" and not hasattr(hashlib, "scrypt"):
            from harness.engines.base import NotApplicable
            raise NotApplicable("hashlib.scrypt is missing on this runtime (it needs OpenSSL 1.1+)")
        state = super().setup(db, params, ctx)
        state["hash"] = h == "on"
        state["last_id"] = max(corpus_ids(state["corpus"]))
        return state

    def operation(self, state: Any) -> Any:
        state["k"] += 1
        n = FIRST_NEW_USER + state["k"]
        name, pw = "user%d" % n, "pass%d" % n
        stored = scrypt_hash(pw) if state["hash"] else pw
        return state["b"].insert_user(name, stored), name, pw

    def check(self, state: Any, result: Any) -> Optional[str]:
        uid, name, pw = result
        last = state["last_id"]
        state["last_id"] = max(last, uid if isinstance(uid, int) else last)
        if not isinstance(uid, int) or uid <= last:
            return "new user's id %r is not above the previous largest id %d" % (uid, last)
        got = state["b"].get_user(uid)
        if got is None or got["name"] != name or got["items"]:
            return "user %d read back as %r, expected name %r and no items" % (uid, got, name)
        if state["hash"]:
            if not scrypt_verify(pw, got["passphrase"]):
                return "user %d's stored passphrase %r is not a scrypt hash of %r" % (uid, got["passphrase"], pw)
        elif got["passphrase"] != pw:
            return "user %d's passphrase %r != %r" % (uid, got["passphrase"], pw)
        return None


class ListUsers(_App):
    name = "app.list_users"
    description = "E5: list every user (SELECT * FROM accounts; every document), all rows fetched"

    def operation(self, state: Any) -> Any:
        return state["b"].list_users()

    def check(self, state: Any, result: Any) -> Optional[str]:
        row_id = state["b"].row_id
        n, s = len(result), sum(row_id(r) for r in result)
        if n != state["n_users"] or s != state["id_sum"]:
            return "listed %d users with id sum %d, expected %d and %d" % (n, s, state["n_users"], state["id_sum"])
        return None

    def counts(self, state: Any, result: Any) -> Tuple[Optional[int], Optional[int]]:
        # the query, then one crossing per row; each row's fields (the nested item list counts once)
        return 1 + len(result), sum(len(r) for r in result)


class InsertItem(_App):
    name = "app.insert_item"
    description = "E5: insert one item into the target user (INSERT INTO items; $push on MongoDB)"

    def operation(self, state: Any) -> Any:
        state["k"] += 1
        state["b"].insert_item(state["target_name"], item_row(ITEMS_PER_TARGET + state["k"]))
        return state["k"]

    def check(self, state: Any, result: Any) -> Optional[str]:
        want = ITEMS_PER_TARGET + state["k"]
        got = state["b"].item_count(state["target_name"])
        if got != want:
            return "target user has %d items after %d inserts, expected %d" % (got, state["k"], want)
        return None


class QueryUser(_App):
    name = "app.query_user"
    description = "E5: the target user by id with its items, as one record"

    def setup(self, db: Any, params: Dict[str, Any], ctx: Dict[str, Any]) -> Any:
        state = super().setup(db, params, ctx)
        state["expected"] = expected_user(state["corpus"])
        return state

    def operation(self, state: Any) -> Any:
        return state["b"].get_user(state["target"])

    def check(self, state: Any, result: Any) -> Optional[str]:
        # the seed's SELECT has no ORDER BY: the items' order is the engine's to choose
        got = dict(result, items=sorted(result["items"])) if isinstance(result, dict) and "items" in result else result
        if got != state["expected"]:
            return "user %d read as %r, expected %r" % (state["target"], result, state["expected"])
        return None

    def counts(self, state: Any, result: Any) -> Tuple[Optional[int], Optional[int]]:
        return None, None


WORKLOADS = [InsertUser(), ListUsers(), InsertItem(), QueryUser()]
