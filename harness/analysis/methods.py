"""The interval methods by name, with the description captions print (no heavy imports: the CLI
reads its choices from here)."""
from __future__ import annotations

METHOD_NAMES = {
    "process-bootstrap": "process-level bootstrap of process means, t quantile with P-1 df, log scale",
    "process-t": "t-interval over per-process means",
    "pooled-t": "t-interval over all iterations pooled",
}
METHODS = tuple(METHOD_NAMES)
DEFAULT_METHOD = "process-bootstrap"
#: fewest processes a cell needs for an interval (two give one degree of freedom: t_0.995,1 = 63.7)
MIN_PROCESSES = 3
