// `go test -bench` form of the same benchmarks (names as the seed's: Benchmark<Engine><Name>).
//
// Each benchmark runs the same set-up, operations, resets and checks as the worker (bench.go):
// the operations go in chunks of the benchmark's default ops; before a chunk the reset and after
// it the check run with the timer stopped. Unlike the seed, the closing DROP TABLE is not timed.
// SQLite is the seed's driver, glebarez/go-sqlite (pure Go); the cgo driver runs in the worker only.
//
//	go test -tags libsqlite3 -run '^$' -bench . -count 6
package main

import (
	"testing"
)

func runGoBench(b *testing.B, engine, name string) {
	eng, ok := findEngine(engine)
	if !ok {
		b.Fatalf("no engine %s", engine)
	}
	bn, ok := findBench(name)
	if !ok {
		b.Fatalf("no benchmark %s", name)
	}
	db, err := openFor(eng, "gotest-"+bn.GoTest)
	if err != nil {
		b.Fatalf("open: %v", err)
	}
	defer db.Close()
	s := &state{db: db, eng: eng, n: bn.N}
	if err := bn.Setup(s); err != nil {
		b.Fatalf("set-up: %v", err)
	}
	outs := make([]opOut, bn.Ops)
	b.ResetTimer()
	for done := 0; done < b.N; {
		chunk := bn.Ops
		if b.N-done < chunk {
			chunk = b.N - done
		}
		if bn.Reset != nil {
			b.StopTimer()
			if err := bn.Reset(s); err != nil {
				b.Fatalf("reset: %v", err)
			}
			b.StartTimer()
		}
		for k := 0; k < chunk; k++ {
			if outs[k], err = bn.Op(s); err != nil {
				b.Fatalf("operation: %v", err)
			}
		}
		b.StopTimer()
		if problem := bn.Check(s, outs, chunk); problem != "" {
			b.Fatalf("wrong result: %s", problem)
		}
		b.StartTimer()
		done += chunk
	}
	b.StopTimer()
}

func BenchmarkRamSQLSelect(b *testing.B)      { runGoBench(b, "ramsql/go", "ramsql.select") }
func BenchmarkSQLiteSelect(b *testing.B)      { runGoBench(b, "sqlite/glebarez", "ramsql.select") }
func BenchmarkRamSQLSelect10K(b *testing.B)   { runGoBench(b, "ramsql/go", "ramsql.select_10k") }
func BenchmarkSQLiteSelect10K(b *testing.B)   { runGoBench(b, "sqlite/glebarez", "ramsql.select_10k") }
func BenchmarkRamSQLInsert10(b *testing.B)    { runGoBench(b, "ramsql/go", "ramsql.insert10") }
func BenchmarkSQLiteInsert10(b *testing.B)    { runGoBench(b, "sqlite/glebarez", "ramsql.insert10") }
func BenchmarkRamSQLSetup(b *testing.B)       { runGoBench(b, "ramsql/go", "ramsql.setup") }
func BenchmarkSQLiteSetup(b *testing.B)       { runGoBench(b, "sqlite/glebarez", "ramsql.setup") }
func BenchmarkRamSQLSelectFixed(b *testing.B) { runGoBench(b, "ramsql/go", "ramsql.select_fixed") }
func BenchmarkSQLiteSelectFixed(b *testing.B) { runGoBench(b, "sqlite/glebarez", "ramsql.select_fixed") }
func BenchmarkRamSQLSelect10KFixed(b *testing.B) {
	runGoBench(b, "ramsql/go", "ramsql.select_10k_fixed")
}
func BenchmarkSQLiteSelect10KFixed(b *testing.B) {
	runGoBench(b, "sqlite/glebarez", "ramsql.select_10k_fixed")
}
func BenchmarkRamSQLSelectKey(b *testing.B)     { runGoBench(b, "ramsql/go", "ramsql.select_key") }
func BenchmarkSQLiteSelectKey(b *testing.B)     { runGoBench(b, "sqlite/glebarez", "ramsql.select_key") }
func BenchmarkRamSQLInsert10Fixed(b *testing.B) { runGoBench(b, "ramsql/go", "ramsql.insert10_fixed") }
func BenchmarkSQLiteInsert10Fixed(b *testing.B) { runGoBench(b, "sqlite/glebarez", "ramsql.insert10_fixed") }
func BenchmarkRamSQLSetupFixed(b *testing.B)    { runGoBench(b, "ramsql/go", "ramsql.setup_fixed") }
func BenchmarkSQLiteSetupFixed(b *testing.B)    { runGoBench(b, "sqlite/glebarez", "ramsql.setup_fixed") }
