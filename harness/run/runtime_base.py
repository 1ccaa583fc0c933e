"""What a runtime is to the runner: how it starts one process of a cell and how it probes an
engine. Apart from the registry (`runtimes.py`) so that each foreign runtime can be defined
beside its launcher (`run/native/`, `run/jvm/`, `run/go/`, `run/haskell/`) without a cycle."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Runtime:
    name: str
    description: str

    def executable(self) -> str | None:
        return None

    def unavailable_reason(self) -> str | None:
        return None

    def worker_argv(self, engine: str, spec_path: str, result_path: str) -> list[str]:
        """The command that runs one process of `engine`'s cell from its spec file."""
        raise NotImplementedError

    def annotate_probe(self, engine: str, info: dict[str, Any]) -> dict[str, Any]:
        """What the runtime adds to a probe run through `probe_argv` (e.g. its build record)."""
        return info

    def probe(self, engine: str, config_path: str | None, timeout: float) -> dict[str, Any] | None:
        """The probe's answer, or None when the caller should run `probe_argv` in a subprocess."""
        return None

    def probe_argv(self, engine: str, config_path: str | None) -> list[str]:
        raise NotImplementedError
