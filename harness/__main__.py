"""`python -m harness` entry point."""
from harness.cli import main

raise SystemExit(main())
