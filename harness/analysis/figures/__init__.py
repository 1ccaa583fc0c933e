"""Figures drawn from summaries and raw timings (never from typed numbers), one module per kind.

`style` writes every figure the same way (fixed DPI, no timestamps or version metadata), so
redrawing the same data gives the same bytes and regenerating the paper changes nothing.
"""
