"""The package's shape: no import cycles, no upward imports, a worker side that stays small.

Layers, lowest first; a module may import its own layer and those below, never above:
  0 base      harness, errors, protocol, record, fsutil, redaction
  1 worker    worker, engines.*, workloads.*          (runs on PyPy: stdlib + driver only)
  2 files     store, paper
  3 run       run.* (plan, runner, probe, runtimes, profiles, manifest, servers, datasets, native)
  4 analysis  analysis.* (stats, summary, tables, importers, figures, runset)
  5 studies   studies.*
  6 front     notebooks, commands.*, cli, __main__
"""
from __future__ import annotations

import ast
import functools
from pathlib import Path

import pytest

from conftest import ROOT

PACKAGE = ROOT / "harness"
LAYERS = [
    ("base", ["harness", "harness.errors", "harness.protocol", "harness.record", "harness.fsutil", "harness.redaction"]),
    ("worker", ["harness.worker", "harness.engines", "harness.workloads"]),
    ("files", ["harness.store", "harness.paper"]),
    ("run", ["harness.run"]),
    ("analysis", ["harness.analysis"]),
    ("studies", ["harness.studies"]),
    ("front", ["harness.notebooks", "harness.commands", "harness.cli", "harness.__main__"]),
]


def modules(package: Path = PACKAGE) -> dict[str, Path]:
    """Dotted name -> file of every module in `package` (a folder), named from its parent folder."""
    out = {}
    for path in package.rglob("*.py"):
        parts = list(path.relative_to(package.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        out[".".join(parts)] = path
    return out


def imports_of(name: str, path: Path, known: set[str]) -> set[str]:
    """Every harness module `name` imports, at any depth of its code (lazy imports count)."""
    tree = ast.parse(path.read_text(), filename=str(path))
    package = name if path.name == "__init__.py" else name.rsplit(".", 1)[0]
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                base = ".".join(package.split(".")[: len(package.split(".")) - node.level + 1] + ([base] if base else []))
            for a in node.names:
                found.add(f"{base}.{a.name}" if f"{base}.{a.name}" in known else base)
    return {m for m in found if m in known and m != name}


def layer_of(name: str) -> int:
    """The layer of a module; `harness` itself names only the package, not everything under it."""
    best = None
    for i, (_, prefixes) in enumerate(LAYERS):
        for p in prefixes:
            if name == p or (p != "harness" and name.startswith(p + ".")):
                if best is None or len(p) > best[1]:
                    best = (i, len(p))
    assert best is not None, f"{name} is in no layer: add it to LAYERS (and docs/ARCHITECTURE.md)"
    return best[0]


@functools.lru_cache(maxsize=None)  # parsed once per package, not once per test
def graph(package: Path = PACKAGE) -> dict[str, set[str]]:
    mods = modules(package)
    return {name: imports_of(name, path, set(mods)) for name, path in mods.items()}


def cycles(g: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan)."""
    index, low, stack, on, out = {}, {}, [], set(), []
    counter = [0]

    def visit(v: str) -> None:
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in g[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in sorted(g):
        if v not in index:
            visit(v)
    return out


def test_no_import_cycles():
    assert cycles(graph()) == []


def test_no_upward_imports():
    g = graph()
    upward = sorted(f"{a} ({LAYERS[layer_of(a)][0]}) imports {b} ({LAYERS[layer_of(b)][0]})"
                    for a, deps in g.items() for b in deps if layer_of(b) > layer_of(a))
    assert upward == []


def test_worker_side_imports_only_base_and_worker_modules():
    g = graph()
    bad = sorted(f"{a} imports {b}" for a, deps in g.items() if layer_of(a) == 1 for b in deps if layer_of(b) > 1)
    assert bad == []


def study_reads_of_runs(g: dict[str, set[str]]) -> list[str]:
    """Study modules that import the store or the run layer: a study reads its runs (timings,
    manifests, plans, process records) through `analysis.runset` only (`harness.record` types)."""
    return sorted(f"{a} imports {b}" for a, deps in g.items() if a.startswith("harness.studies")
                  for b in deps if b in ("harness.store", "harness.run") or b.startswith("harness.run."))


def test_studies_read_runs_through_the_runset_only():
    assert study_reads_of_runs(graph()) == []
    # the check can fail: a study importing the store or a run module is named
    made_up = {"harness.studies.x": {"harness.store", "harness.run.runtimes", "harness.analysis.runset"}}
    assert study_reads_of_runs(made_up) == ["harness.studies.x imports harness.run.runtimes",
                                            "harness.studies.x imports harness.store"]


def test_the_check_sees_a_cycle_and_an_upward_import():
    """The checks above can fail: a made-up graph with a cycle and an upward edge is caught."""
    g = {"harness.store": {"harness.run.runner"}, "harness.run.runner": {"harness.store"}}
    assert cycles(g) == [["harness.run.runner", "harness.store"]]
    assert layer_of("harness.store") < layer_of("harness.run.runner")


def _fixture_package(root: Path) -> Path:
    """A made-up package whose imports are relative, lazy (in a function, in a method) or both."""
    files = {
        "__init__.py": "from . import a\n",
        "a.py": "def f():\n    from .sub import c\n    from . import b\n    import pkg.d\n    return c, b, pkg\n",
        "b.py": "class X:\n    def m(self):\n        from pkg.sub.c import y\n        return y\n",
        "d.py": "import os\nfrom typing import Any\n",
        "sub/__init__.py": "",
        "sub/c.py": "from ..b import X\nfrom .. import d\ny = 1\n",
    }
    for rel, text in files.items():
        (root / "pkg" / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / "pkg" / rel).write_text(text)
    return root / "pkg"


def test_imports_of_sees_relative_and_lazy_imports(tmp_path):
    g = graph(_fixture_package(tmp_path))
    assert g == {"pkg": {"pkg.a"}, "pkg.a": {"pkg.sub.c", "pkg.b", "pkg.d"}, "pkg.b": {"pkg.sub.c"},
                 "pkg.d": set(), "pkg.sub": set(), "pkg.sub.c": {"pkg.b", "pkg.d"}}
    assert cycles(g) == [["pkg.b", "pkg.sub.c"]]


def test_the_real_graph_is_not_empty():
    """If imports_of stopped seeing imports, the checks above would pass on an empty graph: the
    package had 540 import edges among 159 modules when this floor was set."""
    g = graph()
    assert len(g) >= 120 and sum(len(deps) for deps in g.values()) >= 400
    assert {"harness.commands.run", "harness.commands.summary", "harness.errors"} <= g["harness.cli"]


def test_a_module_outside_the_layers_is_reported():
    with pytest.raises(AssertionError, match="harness.newthing is in no layer"):
        layer_of("harness.newthing")
    assert layer_of("harness") == 0 and layer_of("harness.run.runner") == 3


def test_every_module_is_in_a_layer():
    """layer_of fails on a module no layer claims (the test above shows it does); every layer holds one."""
    assert {layer_of(name) for name in modules()} == set(range(len(LAYERS)))


def test_no_reference_to_documents_outside_the_repository():
    offenders = [str(p.relative_to(ROOT)) for p in list(PACKAGE.rglob("*.py")) + list((ROOT / "tests").rglob("*.py"))
                 if "DESIGN" + " §" in p.read_text() or "../" + "shared" in p.read_text()]
    assert offenders == []


def test_test_file_names_are_unique_across_layers():
    """pytest imports test modules by basename: a name in both tests/unit and tests/e2e breaks
    the collection of `make test` (which runs both) while each layer alone still passes."""
    names = [p.name for p in (ROOT / "tests").rglob("test_*.py")]
    assert sorted({n for n in names if names.count(n) > 1}) == []
