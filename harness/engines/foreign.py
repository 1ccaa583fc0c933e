"""Engines whose processes are a foreign worker (C, Java, Go, Haskell), not `harness.worker`.

Such an adapter only names its engine and says where it runs, so plans, the manifest and `list`
treat it like every other engine; its runtime's launcher (`harness.run.<folder>.launcher`)
builds, probes and starts the program. Asked to probe or connect inside a Python worker, it
says where the engine runs instead.
"""
from __future__ import annotations

from typing import Any, Dict, Optional

from harness.engines.base import Connection, Engine, NotApplicable


class ForeignEngine(Engine):
    #: processes are a foreign program started by its launcher, not harness.worker
    native = True
    #: what runs the processes ("a C program") and the module that builds, probes and starts it
    program = "a foreign program"
    launcher = "harness.run"

    def _where(self) -> str:
        many = "s" if len(self.runtimes) > 1 else ""
        return "%s runs as %s on runtime%s %s, not in a Python worker" % (
            self.name, self.program, many, ", ".join(self.runtimes))

    def _probe(self) -> Dict[str, Any]:
        raise RuntimeError("%s (the runner probes it through %s)" % (self._where(), self.launcher))

    def connect(self, config: Dict[str, Any], workdir: str, database: Optional[str] = None) -> Connection:
        raise NotApplicable(self._where())
