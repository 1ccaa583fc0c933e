"""The interval methods by name, with the description captions print (no heavy imports: the CLI
reads its choices from here)."""
from __future__ import annotations

METHOD_NAMES = {
    "hierarchical": "hierarchical bootstrap over processes and iterations (Kalibera & Jones), expanded percentile",
    "pooled-t": "t-interval over all iterations pooled",
    "process-t": "t-interval over per-process means",
}
METHODS = tuple(METHOD_NAMES)
