"""E6's Go program (seed 004): RamSQL and SQLite through database/sql, built on demand (`launcher`)."""
