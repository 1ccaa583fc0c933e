// crossings E6 worker (runtime "go", engines ramsql/go, sqlite/glebarez and sqlite/go): one fresh process of one
// cell, speaking the worker protocol of harness/worker.py. Built and launched by
// harness/run/go/launcher.py.
//
//	e6 --probe ENGINE        one JSON line: availability, versions, runtime
//	e6 SPEC.json RESULT.json untimed set-up, then the spec's iterations, each timing `ops`
//	                         operations (params.ops) with the monotonic clock (wall) and
//	                         CLOCK_PROCESS_CPUTIME_ID (CPU, every thread of the process: the
//	                         garbage collector's too) around the operations alone; each
//	                         iteration's answers are checked after the clock stops. The result
//	                         JSON (schema 1) is written to RESULT.tmp.<pid>, synced and renamed.
//
// Per iteration: crossings = statements sent + rows read, values_converted = values bound +
// values scanned, counted by the operations themselves (a few integer additions each).
package main

import (
	"encoding/json"
	"fmt"
	"os"
	"runtime"
	"runtime/debug"
	"strings"
	"syscall"
	"time"
	"unsafe"

	"database/sql"

	_ "github.com/glebarez/go-sqlite"
	sqlite3 "github.com/mattn/go-sqlite3"
	_ "github.com/proullon/ramsql/driver"
)

type spec struct {
	Benchmark     string                 `json:"benchmark"`
	Params        map[string]interface{} `json:"params"`
	Engine        string                 `json:"engine"`
	Iterations    int                    `json:"iterations"`
	BudgetS       float64                `json:"budget_s"`
	MinIterations int                    `json:"min_iterations"`
	Process       int                    `json:"process"`
	Seed          int64                  `json:"seed"`
	Workdir       string                 `json:"workdir"`
}

type result struct {
	Schema     int               `json:"schema"`
	Pid        int               `json:"pid"`
	Runtime    string            `json:"runtime"`
	Status     string            `json:"status"`
	Reason     string            `json:"reason"`
	WallNs     []int64           `json:"wall_ns"`
	CPUNs      []int64           `json:"cpu_ns"`
	CheckOK    []bool            `json:"check_ok"`
	Crossings  []int64           `json:"crossings"`
	Values     []int64           `json:"values_converted"`
	Ops        int               `json:"ops"`
	BudgetStop string            `json:"budget_stop,omitempty"`
	Versions   map[string]string `json:"versions"`
}

const clockProcessCPUTimeID = 2 // CLOCK_PROCESS_CPUTIME_ID

// cpuNow: this process's CPU time in ns (clock_gettime; the standard library has no wrapper).
func cpuNow() int64 {
	var ts syscall.Timespec
	syscall.Syscall(syscall.SYS_CLOCK_GETTIME, clockProcessCPUTimeID, uintptr(unsafe.Pointer(&ts)), 0)
	return ts.Nano()
}

func runtimeName() string { return strings.TrimPrefix(runtime.Version(), "go") }

// versions: the Go toolchain, the modules linked in, and the SQLite library of the engine's driver:
// the system's libsqlite3 through cgo (sqlite/go), or the pure-Go translation of SQLite's C source
// that glebarez/go-sqlite wraps (modernc.org/sqlite: sqlite/glebarez, the seed's driver).
func versions(engine string) map[string]string {
	v := map[string]string{"go": runtime.Version()}
	if info, ok := debug.ReadBuildInfo(); ok {
		for _, d := range info.Deps {
			switch d.Path {
			case "github.com/proullon/ramsql", "github.com/mattn/go-sqlite3", "github.com/glebarez/go-sqlite",
				"modernc.org/sqlite":
				v[d.Path] = d.Version
			}
		}
		for _, s := range info.Settings {
			if s.Key == "-tags" || s.Key == "CGO_ENABLED" {
				v["build "+s.Key] = s.Value
			}
		}
	}
	if engine == "sqlite/glebarez" {
		if db, err := sql.Open("sqlite", ":memory:"); err == nil {
			var lib, source string
			if db.QueryRow("SELECT sqlite_version(), sqlite_source_id()").Scan(&lib, &source) == nil {
				v["sqlite"] = lib
				v["sqlite_source_id"] = source
			}
			db.Close()
		}
		return v
	}
	lib, _, source := sqlite3.Version()
	v["sqlite"] = lib
	v["sqlite_source_id"] = source
	return v
}

func probe(engine string) map[string]interface{} {
	out := map[string]interface{}{"runtime": "go" + runtimeName()}
	eng, ok := findEngine(engine)
	if !ok {
		out["available"] = false
		out["reason"] = fmt.Sprintf("no Go engine %q (Go engines: ramsql/go, sqlite/glebarez, sqlite/go)", engine)
		return out
	}
	db, err := openFor(eng, "probe")
	if err != nil {
		out["available"] = false
		out["reason"] = fmt.Sprintf("cannot open %s: %v", engine, err)
		return out
	}
	db.Close()
	names := []string{}
	for _, b := range benches {
		names = append(names, b.Name)
	}
	out["available"] = true
	out["reason"] = ""
	out["versions"] = versions(engine)
	out["benchmarks"] = names
	return out
}

func intParam(params map[string]interface{}, key string, def int) (int, error) {
	v, ok := params[key]
	if !ok || v == nil {
		return def, nil
	}
	f, ok := v.(float64)
	if !ok || f != float64(int(f)) {
		return 0, fmt.Errorf("parameter %s must be an integer, got %v", key, v)
	}
	return int(f), nil
}

func run(sp spec, res *result) {
	b, ok := findBench(sp.Benchmark)
	if !ok {
		res.Status = "not_applicable"
		res.Reason = fmt.Sprintf("no Go implementation of %s (Go benchmarks: %s)", sp.Benchmark, benchNames())
		return
	}
	eng, ok := findEngine(sp.Engine)
	if !ok {
		res.Status = "not_applicable"
		res.Reason = fmt.Sprintf("no Go engine %q (Go engines: ramsql/go, sqlite/glebarez, sqlite/go)", sp.Engine)
		return
	}
	ops, err := intParam(sp.Params, "ops", b.Ops)
	if err == nil && ops < 1 {
		err = fmt.Errorf("parameter ops must be >= 1, got %d", ops)
	}
	if err != nil {
		res.Reason = err.Error()
		return
	}
	res.Ops = ops
	db, err := openFor(eng, strings.ReplaceAll(b.Name, ".", "-"))
	if err != nil {
		res.Reason = fmt.Sprintf("cannot open %s: %v", sp.Engine, err)
		return
	}
	defer db.Close()
	s := &state{db: db, eng: eng, n: b.N}
	if err := b.Setup(s); err != nil {
		res.Reason = "set-up: " + err.Error()
		return
	}
	iterations := sp.Iterations
	if iterations < 1 {
		iterations = 1
	}
	minIter := sp.MinIterations
	if minIter < 1 {
		minIter = 2
	}
	budget := int64(sp.BudgetS * 1e9)
	var spent int64
	outs := make([]opOut, ops)
	firstFailure := ""
	runtime.GC()
	for i := 0; i < iterations; i++ {
		if b.Reset != nil {
			if err := b.Reset(s); err != nil {
				res.Reason = fmt.Sprintf("iteration %d: reset: %v", i, err)
				return
			}
		}
		t0 := time.Now()
		c0 := cpuNow()
		var opErr error
		for k := 0; k < ops; k++ {
			outs[k], opErr = b.Op(s)
			if opErr != nil {
				break
			}
		}
		c1 := cpuNow()
		wall := time.Since(t0).Nanoseconds()
		if opErr != nil {
			res.Reason = fmt.Sprintf("iteration %d: %v", i, opErr)
			return
		}
		problem := b.Check(s, outs, ops)
		var crossings, values int64
		for _, o := range outs {
			crossings += o.queries + o.rows
			values += o.values
		}
		res.WallNs = append(res.WallNs, wall)
		res.CPUNs = append(res.CPUNs, c1-c0)
		res.CheckOK = append(res.CheckOK, problem == "")
		res.Crossings = append(res.Crossings, crossings)
		res.Values = append(res.Values, values)
		if problem != "" && firstFailure == "" {
			firstFailure = fmt.Sprintf("iteration %d: %s", i, problem)
		}
		spent += wall
		if budget > 0 && spent >= budget && i+1 >= minIter && i+1 < iterations {
			res.BudgetStop = fmt.Sprintf("time budget of %.1f s spent after %d of %d iterations",
				float64(budget)/1e9, i+1, iterations)
			break
		}
	}
	if firstFailure != "" {
		res.Status = "invalid"
		res.Reason = "wrong result: " + firstFailure
		return
	}
	res.Status = "ok"
}

func writeAtomic(path string, v interface{}) error {
	data, err := json.Marshal(v)
	if err != nil {
		return err
	}
	tmp := fmt.Sprintf("%s.tmp.%d", path, os.Getpid())
	f, err := os.Create(tmp)
	if err != nil {
		return err
	}
	if _, err = f.Write(append(data, '\n')); err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		os.Remove(tmp)
	}
	return err
}

func main() {
	args := os.Args[1:]
	if len(args) == 2 && args[0] == "--probe" {
		data, _ := json.Marshal(probe(args[1]))
		fmt.Println(string(data))
		return
	}
	if len(args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: e6 --probe ENGINE | SPEC.json RESULT.json")
		os.Exit(2)
	}
	res := &result{Schema: 1, Pid: os.Getpid(), Runtime: "go" + runtimeName(), Status: "error",
		WallNs: []int64{}, CPUNs: []int64{}, CheckOK: []bool{}, Crossings: []int64{}, Values: []int64{},
		Versions: map[string]string{}}
	var sp spec
	data, err := os.ReadFile(args[0])
	if err == nil {
		err = json.Unmarshal(data, &sp)
	}
	if err != nil {
		res.Reason = "cannot read spec: " + err.Error()
	} else {
		res.Versions = versions(sp.Engine)
		run(sp, res)
	}
	if err := writeAtomic(args[1], res); err != nil {
		fmt.Fprintln(os.Stderr, "cannot write result:", err)
		os.Exit(1)
	}
	if res.Status == "error" {
		fmt.Fprintln(os.Stderr, res.Reason)
		os.Exit(1)
	}
}
