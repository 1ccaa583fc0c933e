-- crossings results store, version 1: runs, their files byte for byte, their process records.
-- A run is identified by its run id and its content hash (sha256 over each file's path and hash);
-- its timings stay Parquet (the catalogue `files` holds their bytes, each with its own sha256), so a
-- run read back is the run pushed, byte for byte.
CREATE TABLE crossings.runs (
    run_id        text PRIMARY KEY,
    content_hash  text NOT NULL,
    status        text,
    manifest      jsonb NOT NULL,
    plan          jsonb,
    files         integer NOT NULL,
    bytes         bigint NOT NULL,
    pushed_at     timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE crossings.files (
    run_id  text NOT NULL REFERENCES crossings.runs (run_id) ON DELETE CASCADE,
    path    text NOT NULL,
    sha256  text NOT NULL,
    size    bigint NOT NULL,
    data    bytea NOT NULL,
    PRIMARY KEY (run_id, path)
);

CREATE TABLE crossings.processes (
    run_id     text NOT NULL REFERENCES crossings.runs (run_id) ON DELETE CASCADE,
    seq        integer NOT NULL,
    benchmark  text,
    params     text,
    engine     text,
    runtime    text,
    process    integer,
    status     text NOT NULL,
    machine_id text,
    shard      integer,
    record     jsonb NOT NULL,
    PRIMARY KEY (run_id, seq)
);

CREATE INDEX processes_cell ON crossings.processes (benchmark, params, engine, runtime);
CREATE INDEX processes_machine ON crossings.processes (machine_id);
