"""The Haskell worker (runtimes `haskell`, `haskell-O0`): `Main.hs` and its modules, and its launcher (build, probe, launch)."""
