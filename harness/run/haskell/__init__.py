"""The Haskell worker (runtimes `haskell`, `haskell-O0`, `haskell-O1`): `Main.hs` and its modules, and its launcher (build, probe, launch)."""
