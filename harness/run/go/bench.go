// E6 (seed 004, "Benchmarking RamSQL"): the seed's benchmarks on RamSQL and SQLite through
// database/sql, shared by the worker (main.go) and `go test -bench` (bench_test.go).
//
// Faithful variants run the seed's code (github.com/proullon/ramsql bench_test.go at f284c86,
// the commit whose results the seed's first table shows): its table, its SQL, its random
// e-mails made inside the timed loop, its growing table, its sql.Open + Close.
// Fixed variants change only what made the seed measure something else than its name says:
//
//   - select, select_10k: `id BIGSERIAL PRIMARY KEY` is no rowid alias in SQLite, so every id
//     SQLite stores is NULL and `id > 20 AND id < 50` finds no row there, while RamSQL returns 29;
//     the fixed table gets explicit ids 1..N, so both engines return the same 29 rows.
//   - select_key: the seed's v0.1.3 point query (`WHERE id = $1` with key n = 0, 1, ..., b.N-1)
//     misses on key 0, on every key above N and on every SQLite key; fixed: keys cycle over 1..N.
//   - insert10_fixed: the seed makes its random e-mails (crypto/rand, hex) inside the timed
//     loop and never empties the table, so an iteration's cost depends on how many ran before;
//     fixed: values made before the clock, the table emptied (untimed) before each iteration.
//   - setup_fixed: sql.Open only validates its arguments and returns a pool: it connects to
//     nothing, so the seed's Setup (Open + Close) times database/sql's bookkeeping and no engine;
//     fixed: Open + Ping (a real connection: RamSQL's engine, SQLite's in-memory database) + Close.
package main

import (
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"fmt"
	"strings"
)

// engineSpec: one of our engines, a database/sql driver and how the seed opened it.
type engineSpec struct {
	Name   string // our engine name
	Driver string // database/sql driver name
	DSN    string // the seed's DSN (RamSQL: a database name; SQLite: ":memory:")
	Prefix string // the seed's benchmark name prefix
}

// The seed's `sql.Open("sqlite", ":memory:")` is glebarez/go-sqlite (RamSQL's go.mod requires it; it
// registers "sqlite"): a pure-Go translation of SQLite's C source, so no cgo call. sqlite/go reaches the
// system's libsqlite3 through cgo (mattn/go-sqlite3), so the two differ by the crossing alone.
var engineSpecs = []engineSpec{
	{"ramsql/go", "ramsql", "BenchmarkSQLSelect", "RamSQL"},
	{"sqlite/glebarez", "sqlite", ":memory:", "SQLite"},
	{"sqlite/go", "sqlite3", ":memory:", "SQLiteCgo"},
}

func findEngine(name string) (engineSpec, bool) {
	for _, e := range engineSpecs {
		if e.Name == name {
			return e, true
		}
	}
	return engineSpec{}, false
}

// opOut is what one operation returns; checked after the clock stops.
type opOut struct {
	rows    int64 // rows read (or inserted)
	sum     int64 // sum of the ids read
	key     int64 // select_key: the key asked for
	queries int64 // statements sent
	values  int64 // values bound + values scanned
}

// state is one process's set-up, made before the clock starts.
type state struct {
	db      *sql.DB
	eng     engineSpec
	n       int
	keys    []int64  // select_key: the keys, in the order asked
	next    int      // select_key: the next key's index; insert10_fixed: the next id
	emails  []string // insert10_fixed: the values inserted, made untimed
	expRows int64    // selects: rows expected per operation
	expSum  int64    // selects: sum of ids expected per operation
	count   int64    // insert10: rows in the table before the iteration
	wrong   bool     // selftest.wrong: expect one row more than there are
}

// bench is one benchmark: set-up, the timed operation, an untimed reset and an untimed check.
type bench struct {
	Name   string // our benchmark name
	GoTest string // go test name after the engine prefix (the seed's, plus Fixed/Key)
	N      int    // rows in the table
	Ops    int    // operations per timed iteration, by default
	Setup  func(s *state) error
	Op     func(s *state) (opOut, error)
	Reset  func(s *state) error // before each iteration, untimed; nil: none
	Check  func(s *state, outs []opOut, ops int) string
	Doc    string
}

const seedSelect = `SELECT account.id, account.email FROM account WHERE id > $1 AND id < $2`
const seedInsert = `INSERT INTO account (email) VALUES ($1)`

// randomEmail is the seed's e-mail: 32 hex digits of crypto/rand bytes, "@foobar.com".
func randomEmail() (string, error) {
	size := 32
	bs := make([]byte, size)
	if _, err := rand.Read(bs); err != nil {
		return "", err
	}
	str := hex.EncodeToString(bs)
	token := []byte(str)[0:size]
	return string(token) + "@foobar.com", nil
}

// seedSetupInsertN is the seed's setupInsertN: BIGSERIAL ids, random e-mails, one autocommit
// insert per row.
func seedSetupInsertN(s *state, n int) error {
	s.db.Exec(`DROP TABLE account`) // as the seed: the error (no such table) is ignored
	if _, err := s.db.Exec(`CREATE TABLE account (id BIGSERIAL PRIMARY KEY, email TEXT)`); err != nil {
		return fmt.Errorf("create table: %w", err)
	}
	for i := 0; i < n; i++ {
		email, err := randomEmail()
		if err != nil {
			return err
		}
		if _, err := s.db.Exec(seedInsert, email); err != nil {
			return fmt.Errorf("insert row %d: %w", i, err)
		}
	}
	return nil
}

func fixedEmail(id int64) string {
	return fmt.Sprintf("%032x@foobar.com", uint64(id)*2654435761)
}

// fixedSetupInsertN: the same table with explicit ids 1..n, so every engine stores the same rows.
func fixedSetupInsertN(s *state, n int) error {
	s.db.Exec(`DROP TABLE account`)
	if _, err := s.db.Exec(`CREATE TABLE account (id BIGINT PRIMARY KEY, email TEXT)`); err != nil {
		return fmt.Errorf("create table: %w", err)
	}
	for i := 1; i <= n; i++ {
		if _, err := s.db.Exec(`INSERT INTO account (id, email) VALUES ($1, $2)`, int64(i), fixedEmail(int64(i))); err != nil {
			return fmt.Errorf("insert row %d: %w", i, err)
		}
	}
	return nil
}

// rangeTruth: rows and id sum `id > lo AND id < hi` must give, from every stored id read
// untimed and filtered here (a NULL id matches nothing, as in SQL).
func rangeTruth(s *state, lo, hi int64) error {
	rows, err := s.db.Query(`SELECT id FROM account`)
	if err != nil {
		return fmt.Errorf("read ids: %w", err)
	}
	defer rows.Close()
	s.expRows, s.expSum = 0, 0
	for rows.Next() {
		var id sql.NullInt64
		if err := rows.Scan(&id); err != nil {
			return fmt.Errorf("read ids: %w", err)
		}
		if id.Valid && id.Int64 > lo && id.Int64 < hi {
			s.expRows++
			s.expSum += id.Int64
		}
	}
	return rows.Err()
}

// seedSelectOp is the seed's benchmarkSelect body (one query, every row scanned).
func seedSelectOp(s *state) (opOut, error) {
	var id int64
	var email string
	out := opOut{queries: 1, values: 2}
	rows, err := s.db.Query(seedSelect, 20, 50)
	if err != nil {
		return out, err
	}
	for rows.Next() {
		if err := rows.Scan(&id, &email); err != nil {
			return out, err
		}
		out.rows++
		out.sum += id
		out.values += 2
	}
	return out, rows.Err()
}

func checkSelect(s *state, outs []opOut, ops int) string {
	want := s.expRows
	if s.wrong {
		want++
	}
	for i, o := range outs[:ops] {
		if o.rows != want || o.sum != s.expSum {
			return fmt.Sprintf("operation %d: %d rows with id sum %d, expected %d rows with id sum %d",
				i, o.rows, o.sum, want, s.expSum)
		}
	}
	return ""
}

func selectKeyOp(s *state) (opOut, error) {
	var id int64
	var email string
	key := s.keys[s.next]
	s.next++
	if s.next == len(s.keys) {
		s.next = 0
	}
	out := opOut{key: key, queries: 1, values: 1}
	rows, err := s.db.Query(`SELECT account.id, account.email FROM account WHERE id = $1`, key)
	if err != nil {
		return out, err
	}
	for rows.Next() {
		if err := rows.Scan(&id, &email); err != nil {
			return out, err
		}
		out.rows++
		out.sum += id
		out.values += 2
	}
	return out, rows.Err()
}

func checkKey(s *state, outs []opOut, ops int) string {
	for i, o := range outs[:ops] {
		if o.rows != 1 || o.sum != o.key {
			return fmt.Sprintf("operation %d: key %d gave %d rows with id sum %d, expected 1 row with id %d",
				i, o.key, o.rows, o.sum, o.key)
		}
	}
	return ""
}

func countRows(s *state) (int64, error) {
	var n int64
	err := s.db.QueryRow(`SELECT COUNT(*) FROM account`).Scan(&n)
	return n, err
}

// seedInsertOp is one operation of the seed's benchmarkInsert: 10 e-mails made and inserted.
func seedInsertOp(s *state) (opOut, error) {
	out := opOut{}
	for i := 0; i < 10; i++ {
		email, err := randomEmail()
		if err != nil {
			return out, err
		}
		if _, err := s.db.Exec(seedInsert, email); err != nil {
			return out, err
		}
		out.rows++
		out.queries++
		out.values++
	}
	return out, nil
}

func fixedInsertOp(s *state) (opOut, error) {
	out := opOut{}
	for i := 0; i < 10; i++ {
		s.next++
		id := int64(s.next)
		if _, err := s.db.Exec(`INSERT INTO account (id, email) VALUES ($1, $2)`, id, s.emails[i]); err != nil {
			return out, err
		}
		out.rows++
		out.sum += id
		out.queries++
		out.values += 2
	}
	return out, nil
}

func countBefore(s *state) error {
	n, err := countRows(s)
	s.count = n
	return err
}

func checkInserted(s *state, outs []opOut, ops int) string {
	n, err := countRows(s)
	if err != nil {
		return "cannot count rows: " + err.Error()
	}
	var inserted int64
	for _, o := range outs[:ops] {
		inserted += o.rows
	}
	if inserted != int64(10*ops) || n != s.count+inserted {
		return fmt.Sprintf("%d rows after inserting %d into %d (%d reported inserted)", n, 10*ops, s.count, inserted)
	}
	return ""
}

func seedSetupOp(s *state) (opOut, error) {
	db, err := sql.Open(s.eng.Driver, s.eng.DSN)
	if err != nil {
		return opOut{}, err
	}
	return opOut{}, db.Close()
}

func fixedSetupOp(s *state) (opOut, error) {
	db, err := sql.Open(s.eng.Driver, s.eng.DSN)
	if err != nil {
		return opOut{}, err
	}
	if err := db.Ping(); err != nil {
		db.Close()
		return opOut{}, err
	}
	return opOut{queries: 1}, db.Close()
}

func noCheck(s *state, outs []opOut, ops int) string { return "" }

func selectBench(name, gotest string, n int, fixed bool, ops int, doc string) bench {
	b := bench{Name: name, GoTest: gotest, N: n, Ops: ops, Op: seedSelectOp, Check: checkSelect, Doc: doc}
	b.Setup = func(s *state) error {
		var err error
		if fixed {
			err = fixedSetupInsertN(s, n)
		} else {
			err = seedSetupInsertN(s, n)
		}
		if err != nil {
			return err
		}
		return rangeTruth(s, 20, 50)
	}
	return b
}

// benches: every benchmark the Go program implements (names as harness/workloads/ramsql.py).
var benches = []bench{
	selectBench("ramsql.select", "Select", 100, false, 100,
		"seed Select: `id > 20 AND id < 50` on 100 rows (BIGSERIAL ids)"),
	selectBench("ramsql.select_10k", "Select10K", 10000, false, 20,
		"seed Select10K: the same query on 10,000 rows"),
	{Name: "ramsql.insert10", GoTest: "Insert10", Ops: 10, Op: seedInsertOp, Reset: countBefore, Check: checkInserted,
		Setup: func(s *state) error { return seedSetupInsertN(s, 0) },
		Doc:   "seed Insert10: 10 autocommit inserts of random e-mails made in the timed loop; the table grows"},
	{Name: "ramsql.setup", GoTest: "Setup", Ops: 1000, Op: seedSetupOp, Check: noCheck,
		Setup: func(s *state) error { return nil }, Doc: "seed Setup: sql.Open + Close (connects to nothing)"},
	selectBench("ramsql.select_fixed", "SelectFixed", 100, true, 100,
		"fixed Select: explicit ids, so both engines return the 29 rows"),
	selectBench("ramsql.select_10k_fixed", "Select10KFixed", 10000, true, 20,
		"fixed Select10K: explicit ids on 10,000 rows, 29 rows from both engines"),
	{Name: "ramsql.select_key", GoTest: "SelectKey", N: 10000, Ops: 100, Op: selectKeyOp, Check: checkKey,
		Setup: func(s *state) error {
			if err := fixedSetupInsertN(s, 10000); err != nil {
				return err
			}
			// every key 1..N once, in a scattered order (7919 is prime, so coprime with N)
			s.keys = make([]int64, 10000)
			for i := range s.keys {
				s.keys[i] = 1 + int64((i*7919)%10000)
			}
			return nil
		},
		Doc: "fixed SelectHashMap10K: `WHERE id = $1` on 10,000 rows, every key present"},
	{Name: "ramsql.insert10_fixed", GoTest: "Insert10Fixed", Ops: 10, Op: fixedInsertOp, Check: checkInserted,
		Setup: func(s *state) error {
			if err := fixedSetupInsertN(s, 0); err != nil {
				return err
			}
			for i := 0; i < 10; i++ {
				e, err := randomEmail()
				if err != nil {
					return err
				}
				s.emails = append(s.emails, e)
			}
			return nil
		},
		Reset: func(s *state) error {
			if _, err := s.db.Exec(`DELETE FROM account`); err != nil {
				return err
			}
			s.next = 0
			return countBefore(s)
		},
		Doc: "fixed Insert10: values made before the clock, the table emptied before each iteration"},
	{Name: "ramsql.setup_fixed", GoTest: "SetupFixed", Ops: 100, Op: fixedSetupOp, Check: noCheck,
		Setup: func(s *state) error { return nil }, Doc: "fixed Setup: sql.Open + Ping (a real connection) + Close"},
	{Name: "selftest.wrong", GoTest: "", N: 100, Ops: 1, Op: seedSelectOp, Check: checkSelect,
		Setup: func(s *state) error {
			s.wrong = true
			if err := fixedSetupInsertN(s, 100); err != nil {
				return err
			}
			return rangeTruth(s, 20, 50)
		},
		Doc: "harness self-test: a check that always expects one row more than the query returns"},
}

func findBench(name string) (bench, bool) {
	for _, b := range benches {
		if b.Name == name {
			return b, true
		}
	}
	return bench{}, false
}

func benchNames() string {
	var names []string
	for _, b := range benches {
		names = append(names, b.Name)
	}
	return strings.Join(names, ", ")
}

// openFor opens the engine as the seed did, with one connection: SQLite's ":memory:" is one
// database per connection, so a second pooled connection would see an empty database.
func openFor(eng engineSpec, tag string) (*sql.DB, error) {
	dsn := eng.DSN
	if eng.Driver == "ramsql" {
		dsn = "crossings-" + tag // one RamSQL database per benchmark, as the seed's distinct names
	}
	db, err := sql.Open(eng.Driver, dsn)
	if err != nil {
		return nil, err
	}
	db.SetMaxOpenConns(1)
	if err := db.Ping(); err != nil {
		db.Close()
		return nil, err
	}
	return db, nil
}
