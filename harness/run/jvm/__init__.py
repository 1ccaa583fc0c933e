"""The Java worker (`h2/jdbc` on runtime `jvm`): `Bench.java` and its launcher (build, probe, launch, load)."""
