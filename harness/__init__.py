"""crossings: measure what it costs a program to talk to a database.

This package is imported by workers too (on PyPy 3.9), so this file imports nothing.
"""
__version__ = "0.1.0"
