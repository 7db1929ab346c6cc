"""The database a bench runs against: connections, the bench's SQL, and scratch schemas.

A scratch schema holds one installed queue (the spec rendered with the schema, and its roles,
renamed) and the reference tables; it is dropped afterwards unless the user keeps it. Bench creates
the schema itself and marks it (a comment); it works only in a schema that does not exist yet or
that it made, and drops only a schema it made: a typo in --schema must not drop somebody's queue,
function or view. --replace starts over in a schema an earlier bench kept (--keep).
"""

from __future__ import annotations

import contextlib
import dataclasses
import time
from typing import Any, Iterator, Optional

import jinja2

from pydantic import ValidationError

from qgen.render.engine import Column, Rendering, make_environment, render_spec
from qgen.dialects.postgres.client import dsn_keys, libpq_target
from qgen.dialects.urls import UnknownDatabase, database_of, hidden_in, redacted
from qgen.spec.model import Spec


UNINSTALL_TRIES = 3


def _is_deadlock(exc: BaseException) -> bool:
    return getattr(exc, "sqlstate", None) == "40P01"


class BenchError(Exception):
    """A bench that cannot run: the message says why and what to do."""


def dialect_of(url: str) -> str:
    """The dialect of the database --url names (qgen/dialects/urls.py decides)."""
    try:
        return database_of(url)
    except UnknownDatabase as exc:
        raise BenchError(f"--url: {exc}") from None


def bench_sql(dialect: str) -> Any:
    """The macros of templates/<dialect>/bench/bench.sql.j2, callable from Python."""
    env = make_environment(dialect)
    try:
        return env.get_template(f"{dialect}/bench/bench.sql.j2").module
    except jinja2.TemplateNotFound:
        raise BenchError(f"qgen bench has no SQL for {dialect} yet (templates/{dialect}/bench/bench.sql.j2); "
                         "it runs on PostgreSQL") from None


def scratch_spec(spec: Spec, schema: str, queues: Optional[dict[str, dict]] = None) -> Spec:
    """The spec moved to another schema, with roles named after it (roles are shared by the whole
    server: a bench must not grant or drop the real ones). `queues`, when given, replaces the
    queues (the experiments install variants of one queue), validated as a spec would be."""
    data = spec.model_dump(by_alias=True, exclude_unset=True, mode="json")
    data["schema"] = schema
    data["dialects"] = list(spec.dialects)
    data["grants"] = {**data.get("grants", {}), **{r: f"{schema}_{r}" for r in ("producer", "consumer", "admin")}}
    if queues is not None:
        data["queues"] = queues
    from qgen.render.names import name_problems
    from qgen.spec.load import describe_validation

    try:
        moved = Spec.model_validate(data)
    except ValidationError as exc:
        raise BenchError(f"--schema {schema!r}: " + "; ".join(describe_validation(exc))) from None
    problems = moved.problems() or name_problems(moved)
    if problems:
        raise BenchError(f"--schema {schema!r}: " + "; ".join(f"{'.'.join(map(str, path))}: {message}"
                                                              for path, message in problems))
    return moved


def queue_variant(spec: Spec, queue: str, schema: str, claim: str, batch_size: int, watermark: bool = True,
                  wakeup: str = "poll") -> Spec:
    """The spec's queue reduced to what an experiment compares: the same payload, and the given
    claim mode, batch size, watermark (with the spec's own every/slack) and wakeup, nothing else."""
    return scratch_spec(spec, schema, {queue: variant_queue(spec, queue, claim, batch_size, watermark, wakeup)})


def variant_queue(spec: Spec, queue: str, claim: str, batch_size: int, watermark: bool = True,
                  wakeup: str = "poll") -> dict[str, Any]:
    """queue_variant's queue, as a spec's mapping (an experiment may install several side by side)."""
    source = spec.queues[queue]
    payload = {n: {"type": str(c.type), "nullable": c.nullable} for n, c in source.payload.items()}
    return {"payload": payload, "claim": claim, "batch_size": batch_size, "wakeup": wakeup,
            "watermark": {"enabled": watermark, "every": source.watermark.every, "slack": source.watermark.slack,
                          "rescan": source.watermark.rescan}}


def payload_columns(spec: Spec, queue: str) -> list[Column]:
    """A queue's payload as the templates take columns (the reference tables share it)."""
    return [Column(name, c.type, c.nullable) for name, c in spec.queues[queue].payload.items()]


def fill_queue(client: Any, rows: int, chunk: int = 1000) -> list[int]:
    """Enqueue jobs 1..rows through the queue's own enqueue_batch, `chunk` per call; their ids."""
    from qgen.bench.payload import sample_payload

    ids: list[int] = []
    for start in range(1, rows + 1, chunk):
        jobs = [sample_payload(client.spec, client.queue_name, n) for n in range(start, min(rows + 1, start + chunk))]
        ids += [r.id for r in client.enqueue_many(jobs)]
    return ids


@dataclasses.dataclass
class BenchDatabase:
    url: str

    def __post_init__(self) -> None:
        self.url = self.url.strip()  # a URL pasted with a blank around it names the same database
        self.dialect = dialect_of(self.url)
        self.sql = bench_sql(self.dialect)
        try:
            import psycopg  # noqa: F401
        except ImportError:
            raise BenchError("qgen bench on PostgreSQL needs psycopg: pip install 'qgen-queues[postgres]'") from None

    def connect(self, autocommit: bool = True) -> Any:
        """A connection as the bench's processes use it: autocommit, so each procedure call is one
        round trip and one commit (the client opens explicit transactions where it needs one)."""
        import psycopg

        try:
            if "://" not in self.url:
                dsn_keys(self.url)  # refused in qgen's words, not in libpq's (they quote what they stumble on)
            return psycopg.connect(libpq_target(self.url), autocommit=autocommit)
        except UnknownDatabase as exc:
            raise BenchError(f"--url: {exc}") from None
        except psycopg.OperationalError as exc:
            raise BenchError(f"cannot connect to {redacted(self.url)}: {hidden_in(str(exc).strip(), self.url)}") from None

    def execute(self, statement: str, params: Optional[dict] = None) -> list[tuple]:
        with self.connect() as conn:
            cursor = conn.execute(statement, params)
            return cursor.fetchall() if cursor.description else []

    def snapshot_reader(self, statement: str) -> Any:
        """A connection in a REPEATABLE READ transaction that has run `statement`: its snapshot is
        fixed, and until it ends no row version deleted or replaced after it can be cleaned up."""
        import psycopg

        reader = self.connect(autocommit=False)
        reader.isolation_level = psycopg.IsolationLevel.REPEATABLE_READ
        reader.execute(statement).fetchall()
        return reader

    def buffers_touched(self, statement: str, values: Any) -> int:
        """Pages one run of `statement` touches (shared buffers hit or read, EXPLAIN's count),
        after one run that warms the session's plans; both rolled back."""
        with self.connect() as conn:
            with conn.transaction(force_rollback=True):
                conn.execute(statement, values).fetchall()
            with conn.transaction(force_rollback=True):
                plan = conn.execute(self.sql.explain_buffers(statement), values).fetchone()[0][0]["Plan"]
        return int(plan.get("Shared Hit Blocks", 0)) + int(plan.get("Shared Read Blocks", 0))

    def checkpoint(self) -> None:
        """Flush what a fill dirtied before a measurement starts (needs superuser or pg_checkpoint;
        without it the measurement runs anyway, noisier)."""
        import psycopg

        try:
            self.execute(self.sql.checkpoint())
        except psycopg.errors.InsufficientPrivilege:
            pass

    def claim_schema(self, schema: str, replace: bool) -> bool:
        """May a bench work in this schema? Yes if it does not exist; if bench made it and it is
        empty, or replace is given; never if bench did not make it. Returns whether it exists (then
        it is bench's, to be dropped first)."""
        exists, made_by_bench, objects = self.execute(self.sql.schema_state(), {"schema": schema})[0]
        if exists and not made_by_bench:
            held = f"already holds tables or other objects ({objects})" if objects else "already exists"
            raise BenchError(f"schema {schema} {held}, and qgen bench did not create it; bench works in a schema of "
                             "its own, which it creates and drops: choose another with --schema (--replace drops "
                             "only a schema an earlier bench created and kept)")
        if exists and objects and not replace:
            raise BenchError(f"schema {schema} holds what an earlier bench kept (--keep): pass --replace to drop "
                             "it first, or choose another --schema")
        return bool(exists)

    def fill_naive(self, spec: Spec, queue: str, rows: int) -> list[int]:
        """Fill the naive reference queue with `rows` copies of one payload; their ids."""
        from qgen.bench.payload import sample_payload

        with self.connect() as conn:
            cursor = conn.execute(self.sql.fill_naive(spec.schema, payload_columns(spec, queue)),
                                  {**sample_payload(spec, queue, 1), "rows": rows})
            return [row[0] for row in cursor.fetchall()]

    def remaining_ids(self, spec: Spec, queue: str) -> set[int]:
        """The ids of a queue's jobs not finished: still in its table (not processed, when on_complete
        is mark), or in its dead-letter table."""
        from qgen.spec.model import object_name

        q = spec.queues[queue]
        table = object_name(spec, queue, "table")
        ids = {row[0] for row in self.execute(self.sql.remaining_ids(spec.schema, table, q.on_complete == "mark"))}
        if q.dead_letter:
            ids |= {row[0] for row in self.execute(self.sql.dead_ids(spec.schema,
                                                                     object_name(spec, queue, "dead_letter_table")))}
        return ids

    def leased_by(self, spec: Spec, queue: str, owner: str) -> set[int]:
        """The ids of the jobs a worker (its owner name) holds under a lease."""
        from qgen.spec.model import object_name

        statement = self.sql.leased_by(spec.schema, object_name(spec, queue, "table"))
        return {row[0] for row in self.execute(statement, {"owner": owner})}

    @contextlib.contextmanager
    def scratch(self, spec: Spec, label: str, queue: str, *, keep: bool = False,
                replace: bool = False) -> Iterator[Rendering]:
        """Install the spec (already moved to its scratch schema) and the reference tables (with
        the payload of `queue`); yield the rendering; uninstall and drop the schema afterwards
        unless keep."""
        if self.claim_schema(spec.schema, replace):
            self.drop(spec, strict=False)
        rendering = render_spec(spec, label, self.dialect)
        with self.connect() as conn:
            conn.execute(self.sql.quiet_session())
            conn.execute(self.sql.create_schema(spec.schema))
            conn.execute(rendering.install)
            conn.execute(self.sql.create_references(spec.schema, payload_columns(spec, queue)))
        try:
            yield rendering
        finally:
            if not keep:
                self.drop(spec, rendering)

    def drop(self, spec: Spec, rendering: Optional[Rendering] = None, strict: bool = True) -> None:
        """Uninstall the spec's objects (this drops its roles too: they belong to the server, not
        the schema), then the schema, which bench made (claim_schema), with whatever else it holds.
        strict=False: a kept schema --replace empties may hold another spec, so an uninstall that
        fails there is not an error."""
        rendering = rendering or render_spec(spec, "bench", self.dialect)
        with self.connect() as conn:
            conn.execute(self.sql.quiet_session())
            for attempt in range(1, UNINSTALL_TRIES + 1):
                try:
                    # A scratch queue: its jobs go with it (uninstall refuses tables with jobs unless forced).
                    conn.execute(rendering.force_uninstall + rendering.uninstall)
                    break
                except Exception as exc:
                    # Seen with autovacuum on: its ANALYZE of a table just drained waits for the
                    # uninstall's transaction while the uninstall waits for its table. The whole
                    # uninstall was rolled back; run it again.
                    if _is_deadlock(exc) and attempt < UNINSTALL_TRIES:
                        time.sleep(0.5 * attempt)
                        continue
                    if strict:
                        raise
                    break
            conn.execute(self.sql.drop_schema(spec.schema))
