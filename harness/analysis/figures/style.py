"""How every figure is written: deterministic PNGs, one label style for cells."""
from __future__ import annotations

from pathlib import Path

import pandas as pd

PNG_METADATA = {"Software": None}


def save(fig, path: Path | str) -> Path:
    """Write a figure deterministically (fixed DPI, no metadata) and close it."""
    import matplotlib.pyplot as plt

    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=120, metadata=PNG_METADATA, bbox_inches="tight")
    plt.close(fig)
    return path


def cell_label(row: pd.Series) -> str:
    rt = str(row["runtime"])
    return f"{row['engine']}\n{rt}"
