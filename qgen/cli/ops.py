"""Operations commands: `qgen maintain`, `qgen status`, `qgen metrics`, `qgen redrive`, `qgen purge` (their arguments are declared
here and registered in qgen/cli/__init__.py). Each opens its own connection from --url (qgen/cli/dburl.py) and
calls the queue's procedures through QueueClient, so the login needs only EXECUTE: the consumer
role for maintain, the admin role for status and metrics (the metrics procedure), redrive and purge.
Progress of a long command (redrive's and purge's batches, maintain --every's rounds) goes to stderr
(qgen/cli/progress.py), never to stdout; --quiet leaves it out.

Exit status: 0 when every call succeeded; 1 when the database could not be reached, a queue is
not installed, the login may not run the procedure, or a call failed (the message says which);
2 for a spec or argument error. `maintain --every`, `status --watch` and `metrics` run until
interrupted (Ctrl-C, SIGTERM) and then exit 0; errors meanwhile are reported and retried at the next
round. `status --format prometheus` prints the exposition even when a queue could not be read (its
qgen_up is 0), and still exits 1 then.
"""

from __future__ import annotations

import argparse
import contextlib
import datetime as dt
import json
import os
import signal
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, HTTPServer
from typing import Any, Callable, Iterator, NoReturn, Optional

import qgen.cli.prometheus as prometheus
from qgen.client import ConnectionLost, NotInstalled, PermissionDenied, PurgeResult, QueueClient, QueueError, RedriveResult
from qgen.cli.progress import ProgressLine, plural
from qgen.cli.dburl import URL_ENV, DatabaseUnavailable, connect, shown
from qgen.spec.model import Duration, Spec, _parse_duration, duration_text, object_name
from qgen.spec.load import load_spec

MAX_ROUNDS = 50  # maintain calls per queue per run while it reports more to do
HORIZON_WARN_SECONDS = 300.0  # qgen status warns of a snapshot held open this long (--horizon-warn)


class Session:
    """One connection (opened when first needed, again after a failure) and a client per queue."""

    def __init__(self, url: str, spec: Spec):
        self.url, self.spec = url, spec
        self.connection: Any = None
        self.clients: dict[str, QueueClient] = {}

    def client(self, queue: str) -> QueueClient:
        if self.connection is None:
            self.connection = connect(self.url)
        if queue not in self.clients:
            self.clients[queue] = QueueClient(self.connection, self.spec, queue)
        return self.clients[queue]

    def reset(self) -> None:
        if self.connection is not None:
            with contextlib.suppress(Exception):
                self.connection.close()
        self.connection, self.clients = None, {}


def _explain(session: Session, queue: str, kind: str, exc: BaseException) -> str:
    name = f"{session.spec.schema}.{queue}"
    routine = f"{session.spec.schema}.{object_name(session.spec, queue, kind)}"
    if isinstance(exc, PermissionDenied):
        return f"{name}: this login may not run {routine} ({exc})"
    if isinstance(exc, NotInstalled):  # classified by its code (the dialect's error table, qgen/dialects)
        return (f"{name}: not installed in this database ({routine} does not exist, or takes other arguments): "
                "install the spec first (install.sql, or alembic upgrade head)")
    text = str(getattr(getattr(exc, "diag", None), "message_primary", None) or exc).strip()
    return f"{name}: {text}"


def _call(session: Session, queue: str, kind: str, call: Callable[[QueueClient], Any], command: str) -> Any:
    """Run one call; on failure print why and return None (the connection is dropped unless it is
    still good, so the next round reconnects). A database that cannot be reached raises
    DatabaseUnavailable: the round ends there (_each_queue), said once, not once per queue."""
    try:
        return call(session.client(queue))
    except DatabaseUnavailable:
        raise
    except Exception as exc:  # a driver error: not installed, denied, connection lost, ...
        print(f"qgen {command}: {_explain(session, queue, kind, exc)}", file=sys.stderr)
        if not _connection_still_good(exc):
            session.reset()
    return None


def _connection_still_good(exc: BaseException) -> bool:
    """After a failed call: is the session's connection still usable? Only after an error a queue
    defines (the QueueError the client raised for its code in the dialect's error table), and not
    one saying the connection is lost: the client was given a ready connection, so after
    ConnectionLost (CannotReconnect) only a new session connects again."""
    return isinstance(exc, QueueError) and not isinstance(exc, ConnectionLost)


def _each_queue(command: str, queues: list[str], run: Callable[[str], bool]) -> bool:
    """run(queue) for each queue, in order; True when every one succeeded. A database that cannot be
    reached ends the round with one message."""
    ok = True
    for queue in queues:
        try:
            ok = run(queue) and ok
        except DatabaseUnavailable as exc:
            print(f"qgen {command}: {exc}", file=sys.stderr)
            return False
    return ok


@contextlib.contextmanager
def _until_interrupted() -> Iterator[threading.Event]:
    """An event set by Ctrl-C or SIGTERM (systemd, Kubernetes), so a loop finishes its round and exits 0."""
    stop = threading.Event()
    previous = {s: signal.signal(s, lambda *_: stop.set()) for s in (signal.SIGINT, signal.SIGTERM)}
    try:
        yield stop
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)


def _usage(message: str) -> NoReturn:
    """An argument error: said on stderr, exit status 2 (as argparse does)."""
    print(f"qgen: {message}", file=sys.stderr)
    raise SystemExit(2)


def _setup(args: argparse.Namespace) -> tuple[Spec, list[str], str]:
    spec = load_spec(args.spec)
    chosen = getattr(args, "queue", None)
    if chosen is not None and chosen not in spec.queues:
        _usage(f"{chosen!r} is not a queue of {args.spec}; accepted: {', '.join(spec.queues)}")
    url = args.url or os.environ.get(URL_ENV)
    if not url:
        _usage(f"no database: pass --url (e.g. postgresql://USER@HOST:5432/DB) or set {URL_ENV}")
    return spec, [chosen] if chosen else list(spec.queues), url


# ---------------------------------------------------------------------------------------------
# qgen maintain


MAINTAIN_TOTALS = ("released", "dead_lettered", "archived", "processed", "dead")


def _maintain_queue(session: Session, queue: str, batch_size: Optional[int],
                    tally: Optional[dict[str, int]] = None) -> bool:
    """Maintain one queue until it reports no more (at most MAX_ROUNDS calls) and print what it did;
    what it did is added into tally when given (maintain --every's round line)."""
    totals = dict.fromkeys(MAINTAIN_TOTALS, 0)
    first_old = last_new = None
    for round_ in range(MAX_ROUNDS):
        result = _call(session, queue, "maintain", lambda c: c.maintain(batch_size), "maintain")
        if result is None:
            return False
        if result.skipped:
            if round_ == 0:
                print(f"{session.spec.schema}.{queue}: skipped: another maintain is running on this queue")
                return True
            break
        for key in totals:
            totals[key] += getattr(result, key)
        first_old = result.old_watermark if round_ == 0 else first_old
        last_new = result.new_watermark
        if not result.more:
            break
    watermark = "no watermark" if first_old is None and last_new is None else f"watermark {first_old} -> {last_new}"
    more = "; more left (the next run goes on)" if result.more and not result.skipped else ""
    print(f"{session.spec.schema}.{queue}: released {totals['released']} expired leases, dead-lettered "
          f"{totals['dead_lettered']}; {watermark}; purged {totals['archived']} archived, {totals['processed']} "
          f"processed, {totals['dead']} dead{more}")
    if tally is not None:
        for key in MAINTAIN_TOTALS:
            tally[key] += totals[key]
    return True


def _did(totals: dict[str, int]) -> str:
    purged = totals["archived"] + totals["processed"] + totals["dead"]
    if not any(totals.values()):
        return "nothing to do"
    return f"released {totals['released']:,}, dead-lettered {totals['dead_lettered']:,}, purged {purged:,}"


def _round_line(number: int, ok: bool, done: dict[str, int], since_start: dict[str, int]) -> str:
    """maintain --every's line on stderr after each round: that it is alive (the round, when), what the
    round did over every queue and what the run has done since it started (stdout keeps its lines per queue)."""
    at = dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds")
    failed = "" if ok else "; a queue failed (said above), tried again next round"
    return f"qgen maintain: round {number:,} at {at}: {_did(done)}{failed}; since start: {_did(since_start)}"


def _maintain_round(session: Session, queues: list[str], batch_size: Optional[int]) -> tuple[bool, dict[str, int]]:
    """One round of maintain --every: every queue, its lines on stdout (flushed); whether every queue
    was maintained, and what the round did over all of them."""
    done = dict.fromkeys(MAINTAIN_TOTALS, 0)
    ok = _each_queue("maintain", queues, lambda q: _maintain_queue(session, q, batch_size, done))
    sys.stdout.flush()
    return ok, done


def cmd_maintain(args: argparse.Namespace) -> int:
    spec, queues, url = _setup(args)
    session = Session(url, spec)
    if args.every is None:
        ok = _each_queue("maintain", queues, lambda q: _maintain_queue(session, q, args.batch_size))
        session.reset()
        return 0 if ok else 1
    since_start, number = dict.fromkeys(MAINTAIN_TOTALS, 0), 0
    with _until_interrupted() as stop:
        while not stop.is_set():
            number += 1
            ok, done = _maintain_round(session, queues, args.batch_size)
            for key in MAINTAIN_TOTALS:
                since_start[key] += done[key]
            if not args.quiet:
                print(_round_line(number, ok, done, since_start), file=sys.stderr, flush=True)
            stop.wait(args.every)
    session.reset()
    return 0


# ---------------------------------------------------------------------------------------------
# qgen status


def status_row(spec: Spec, queue: str, metrics: dict[str, Any]) -> dict[str, Any]:
    """What `qgen status` shows of one queue, from its metrics row."""
    return {
        "queue": f"{spec.schema}.{queue}",
        "pending": metrics["ready"] + metrics["scheduled"],
        "ready": metrics["ready"],
        "scheduled": metrics["scheduled"],
        "in_flight": metrics["in_flight"],
        "expired": metrics["expired"],
        "oldest_pending_age_seconds": metrics["oldest_ready_age_seconds"],
        "dead": metrics["dead"],
        "completed_last_minute": metrics["completed_last_minute"],
        "archived": metrics["archived"],
        "processed": metrics["processed"],
        "watermark": metrics["watermark"],
        "watermark_lag": metrics["watermark_lag"],
        "paused": bool(metrics["paused"]),
    }


UNTRACKED = "untracked"


def _status_table(rows: list[dict[str, Any]]) -> str:
    from qgen.cli.tables import table

    headers = ("queue", "pending", "in flight", "expired", "oldest pending (s)", "dead", "done last min",
               "watermark lag", "state")
    keys = ("queue", "pending", "in_flight", "expired", "oldest_pending_age_seconds", "dead",
            "completed_last_minute", "watermark_lag", "paused")

    def shown(row: dict[str, Any], key: str) -> Any:
        if key == "paused":  # qgen pause / qgen resume
            return "PAUSED" if row[key] else "running"
        # A delete queue's completions leave no row to count (on_complete: delete): said as such, not as 0.
        return UNTRACKED if key == "completed_last_minute" and row[key] is None else row[key]

    return table(headers, [[shown(row, k) for k in keys] for row in rows])


def _horizon_sql(dialect: str) -> Optional[str]:
    """The dialect's query for the oldest snapshot another session holds (templates/<dialect>/ops/
    status.sql.j2), or None where it has none."""
    import jinja2

    from qgen.render.engine import make_environment

    try:
        module = make_environment(dialect).get_template(f"{dialect}/ops/status.sql.j2").module
    except jinja2.TemplateNotFound:
        return None
    return str(module.oldest_snapshot())  # type: ignore[attr-defined]


def oldest_snapshot(session: Session) -> Optional[dict[str, Any]]:
    """The oldest snapshot another session of the database holds open: {pid, xid_age, seconds}
    (seconds None where this login may not see that session's start), {} when none is held, None
    where the dialect has no query for it or it could not be read (said on stderr)."""
    from qgen.client.connection import dialect_of_target

    sql = _horizon_sql(dialect_of_target(session.url))
    if sql is None or session.connection is None:
        return None
    try:
        cursor = session.connection.cursor()
        try:
            cursor.execute(sql)
            found = dict(zip([d[0] for d in cursor.description], cursor.fetchone()))
        finally:
            cursor.close()
    except Exception as exc:  # a driver error: said, and the queues' status is still shown
        print(f"qgen status: the oldest open snapshot could not be read: {str(exc).strip()}", file=sys.stderr)
        return None
    if found["xid_age"] is None:
        return {}
    seconds = None if found["seconds"] is None else round(float(found["seconds"]), 1)
    return {"pid": int(found["pid"]), "xid_age": int(found["xid_age"]), "seconds": seconds}


def _snapshot_line(snapshot: Optional[dict[str, Any]]) -> str:
    if snapshot is None:
        return ""
    if not snapshot:
        return "oldest open snapshot: none held by another session"
    held = "for an unknown time (this login cannot see its start)" if snapshot["seconds"] is None \
        else f"for {snapshot['seconds']:g} s"
    return (f"oldest open snapshot: session pid {snapshot['pid']}, held {held}, "
            f"{snapshot['xid_age']:,} transactions old")


def _warn_horizon(snapshot: Optional[dict[str, Any]], threshold: float) -> None:
    if snapshot and snapshot["seconds"] is not None and snapshot["seconds"] >= threshold:
        print(f"qgen status: warning: session pid {snapshot['pid']} has held a snapshot open for "
              f"{snapshot['seconds']:g} s (over {threshold:g} s): until it ends, no row version left behind since "
              "can be cleaned up, and every claim and watermark rescan walks more of them (docs/api.md, "
              "\"A held snapshot\"). End that transaction (pg_terminate_backend, or a report run on a replica).",
              file=sys.stderr)


def _status_once(session: Session, queues: list[str], as_json: bool, watching: bool,
                 horizon_warn: float = HORIZON_WARN_SECONDS) -> bool:
    rows: list[dict[str, Any]] = []

    def one(queue: str) -> bool:
        metrics = _call(session, queue, "metrics", lambda c: c.metrics(), "status")
        if metrics is not None:
            rows.append(status_row(session.spec, queue, metrics))
        return metrics is not None

    ok = _each_queue("status", queues, one)
    snapshot = oldest_snapshot(session) if rows else None
    at = dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds")
    if as_json:
        print(json.dumps({"at": at, "queues": rows, "oldest_snapshot": snapshot}, indent=None if watching else 2))
    elif rows:
        if watching and sys.stdout.isatty():
            print("\033[2J\033[H", end="")  # redraw in place
        print(f"{at}  {shown(session.url)}")
        print(_status_table(rows))
        if snapshot is not None:
            print(_snapshot_line(snapshot))
        print(f"done last min: {UNTRACKED} with on_complete: delete (a completion deletes the row and nothing "
              "records it: docs/operations.md says why); a negative watermark lag: pending jobs below the watermark\n"
              if not watching else "")
    sys.stdout.flush()
    _warn_horizon(snapshot, horizon_warn)
    return ok


def cmd_status(args: argparse.Namespace) -> int:
    spec, queues, url = _setup(args)
    if args.format == "prometheus" and (args.json or args.watch is not None):
        _usage("--format prometheus prints once, without --json or --watch (for a scraper: qgen metrics --port)")
    if args.json:
        args.format = "json"
    session = Session(url, spec)
    if args.format == "prometheus":
        text, ok = scrape(session, queues, "status")
        sys.stdout.write(text)
        session.reset()
        return 0 if ok else 1
    args.json = args.format == "json"
    if args.watch is None:
        ok = _status_once(session, queues, args.json, False, args.horizon_warn)
        session.reset()
        return 0 if ok else 1
    with _until_interrupted() as stop:
        while not stop.is_set():
            _status_once(session, queues, args.json, True, args.horizon_warn)
            stop.wait(args.watch)
    session.reset()
    return 0


# ---------------------------------------------------------------------------------------------
# qgen status --format prometheus, qgen metrics


def scrape(session: Session, queues: list[str], command: str = "metrics") -> tuple[str, bool]:
    """Every queue's metrics as Prometheus exposition text (qgen/cli/prometheus.py), and whether every
    queue was read. A queue that could not be read (database unreachable, not installed, login
    refused: said on stderr, as status says it) has qgen_up 0 and no other sample; never an exception."""
    started = time.monotonic()
    read: dict[str, Any] = {}

    def one(queue: str) -> bool:
        read[queue] = _call(session, queue, "metrics", lambda c: c.metrics(), command)
        return read[queue] is not None

    ok = _each_queue(command, queues, one)
    results = [(queue, read.get(queue)) for queue in queues]
    return prometheus.render(prometheus.families(session.spec.schema, results, time.monotonic() - started)), ok


class MetricsServer(HTTPServer):
    """GET /metrics answers a fresh scrape of the spec's queues; any other path 404. One request at a
    time (one database session, scrapes seconds apart): a second scraper waits for the first."""

    def __init__(self, session: Session, queues: list[str], host: str, port: int):
        self.session, self.queues = session, queues
        self.lock = threading.Lock()
        super().__init__((host, port), _MetricsHandler)


class _MetricsHandler(BaseHTTPRequestHandler):
    server: MetricsServer

    def do_GET(self) -> None:  # noqa: N802 - the name http.server calls
        if self.path.split("?", 1)[0] != "/metrics":
            self._answer(404, "text/plain; charset=utf-8", b"qgen metrics: only /metrics is served\n")
            return
        with self.server.lock:
            text, _ = scrape(self.server.session, self.server.queues)
        self._answer(200, prometheus.CONTENT_TYPE, text.encode("utf-8"))

    def _answer(self, status: int, content_type: str, body: bytes) -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - http.server's signature
        pass  # a line per scrape would drown what matters; failures are said by scrape


def cmd_metrics(args: argparse.Namespace) -> int:
    spec, queues, url = _setup(args)
    session = Session(url, spec)
    try:
        server = MetricsServer(session, queues, args.host, args.port)
    except OSError as exc:
        print(f"qgen metrics: cannot listen on {args.host}:{args.port}: {exc.strerror or exc}", file=sys.stderr)
        return 1
    host, port = str(server.server_address[0]), int(server.server_address[1])
    print(f"qgen metrics: serving http://{host}:{port}/metrics for {spec.schema} ({', '.join(queues)}) "
          f"from {shown(url)}", flush=True)
    with _until_interrupted() as stop:
        serving = threading.Thread(target=server.serve_forever, name="qgen-metrics", daemon=True)
        serving.start()
        stop.wait()
        server.shutdown()
        serving.join()
    server.server_close()
    session.reset()
    return 0


# ---------------------------------------------------------------------------------------------
# qgen redrive


def cmd_redrive(args: argparse.Namespace) -> int:
    spec, _, url = _setup(args)
    queue = args.queue_name
    if queue not in spec.queues:
        _usage(f"{queue!r} is not a queue of {args.spec}; accepted: {', '.join(spec.queues)}")
    if spec.queues[queue].claim != "lease" or not spec.queues[queue].dead_letter:
        _usage(f"queue {queue} has no dead-letter table (it needs claim: lease and dead_letter: true)")
    session = Session(url, spec)
    progress = ProgressLine(None if args.quiet else sys.stderr)
    calls = 0

    def on_batch(so_far: RedriveResult, last_id: int) -> None:
        nonlocal calls
        calls += 1
        progress.update(f"{spec.schema}.{queue}: redrive: {so_far.redriven:,} moved, {so_far.skipped_duplicates:,} "
                        f"left dead (dedupe key queued again), last id {last_id}, {plural(calls, 'batch')}")

    def run(client: QueueClient) -> RedriveResult:
        try:
            return client.redrive(args.ids, all=args.all, batch_size=args.batch_size, on_batch=on_batch)
        finally:
            progress.finish()  # the line ends before an error is said

    try:
        result = _call(session, queue, "redrive", run, "redrive")
    except DatabaseUnavailable as exc:
        print(f"qgen redrive: {exc}", file=sys.stderr)
        result = None
    session.reset()
    if result is None:
        return 1
    kept = (f"; {result.skipped_duplicates} left dead: their dedupe key is queued again"
            if result.skipped_duplicates else "")
    print(f"{spec.schema}.{queue}: redriven {result.redriven} dead job{'s' if result.redriven != 1 else ''}{kept}")
    return 0


# ---------------------------------------------------------------------------------------------
# qgen purge


def _purged(result: PurgeResult) -> str:
    return f"{result.archived:,} archived, {result.processed:,} processed, {result.dead:,} dead"


def _purge_queue(session: Session, queue: str, args: argparse.Namespace) -> bool:
    """Purge one queue through the client's purge (a purge_batch call per batch, each committed), with a
    progress line per batch on stderr and what it deleted on stdout."""
    where = f"{session.spec.schema}.{queue}"
    older = session.spec.queues[queue].retention if args.older_than is None else args.older_than
    progress = ProgressLine(None if args.quiet else sys.stderr)
    batches = 0

    def on_batch(so_far: PurgeResult) -> None:
        nonlocal batches
        batches += 1
        progress.update(f"{where}: purge: {_purged(so_far)} deleted, {plural(batches, 'batch')}")

    def run(client: QueueClient) -> PurgeResult:
        try:
            return client.purge(int(older), args.batch_size, on_batch=on_batch)
        finally:
            progress.finish()  # the line ends before an error is said

    result = _call(session, queue, "purge_batch", run, "purge")
    if result is None:
        return False
    age = "every finished job" if older == 0 else f"finished over {duration_text(older)} ago"
    print(f"{where}: purged {_purged(result)} ({age})")
    return True


def cmd_purge(args: argparse.Namespace) -> int:
    spec, queues, url = _setup(args)
    session = Session(url, spec)
    ok = _each_queue("purge", queues, lambda q: _purge_queue(session, q, args))
    session.reset()
    return 0 if ok else 1


# ---------------------------------------------------------------------------------------------
# Arguments


def _age(text: str) -> Duration:
    """--older-than: a duration, 0 included (every finished job)."""
    try:
        return Duration(_parse_duration(text), text.strip())
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None



def _seconds(text: str) -> float:
    try:
        seconds = _parse_duration(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None
    if seconds < 1:
        raise argparse.ArgumentTypeError(f"{text!r}: accepted: at least 1 second (5s, 1m, ...)")
    return float(seconds)


def _ids(text: str) -> list[int]:
    try:
        ids = [int(part) for part in text.split(",") if part.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r}: accepted: ids separated by commas, e.g. 3,7,12") from None
    if not ids:
        raise argparse.ArgumentTypeError("accepted: at least one id, e.g. --ids 3,7")
    if any(not 1 <= i < 2**63 for i in ids):
        raise argparse.ArgumentTypeError(f"{text!r}: accepted: ids from 1 to 2^63-1, separated by commas")
    return ids


def _common(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("spec", help="the spec file (YAML)")
    parser.add_argument("--url", help=f"the database (default: ${URL_ENV}), e.g. postgresql://USER@HOST:5432/DB or "
                        "mssql+pyodbc://USER:PASS@HOST:1433/DB?driver=FreeTDS&TDS_Version=7.4")


def add_commands(commands: Any) -> None:
    maintain = commands.add_parser(
        "maintain", help="reap expired leases, correct watermarks and purge finished jobs (for cron, systemd, a CronJob)",
        description="Run each queue's maintain procedure (release expired leases, correct the watermark, purge "
        "finished jobs past their retention), again while it reports more to do, and print what it did: once, or "
        "--every DURATION until Ctrl-C or SIGTERM. The login needs the consumer role. Exit 1, with the reason and "
        "no traceback, when the database cannot be reached or a queue is not installed.")
    _common(maintain)
    maintain.add_argument("--queue", help="only this queue (default: every queue of the spec)")
    maintain.add_argument("--every", type=_seconds, metavar="DURATION",
                          help="run again every DURATION (5s, 1m, ...) until interrupted (default: once)")
    maintain.add_argument("--batch-size", type=int, help="rows per step and call (default 1000, at most 4000)")
    maintain.add_argument("--quiet", action="store_true",
                          help="with --every: no line on stderr after each round (the round, when, what it did and "
                          "since the start)")
    maintain.set_defaults(func=cmd_maintain)

    status = commands.add_parser(
        "status", help="each queue's depth, in flight, oldest pending age, dead, rate, watermark lag",
        description="Print, per queue, what its metrics procedure reports: pending jobs (ready and scheduled), in "
        "flight, expired leases, the oldest pending job's age, dead letters, completions over the last minute and "
        "the watermark lag; as a table or --json, once or --watch; and (PostgreSQL) the oldest snapshot another session "
        "holds open, with a warning past --horizon-warn. The login needs the admin role.")
    _common(status)
    status.add_argument("--queue", help="only this queue (default: every queue of the spec)")
    status.add_argument("--watch", type=float, nargs="?", const=2.0, metavar="SECONDS",
                        help="refresh every SECONDS (default 2) until interrupted")
    status.add_argument("--json", action="store_true", help="JSON for scripts (one line per refresh with --watch); "
                        "the same as --format json")
    status.add_argument("--format", choices=("table", "json", "prometheus"), default="table",
                        help="table (default), json, or prometheus: the Prometheus text format (0.0.4), once, for "
                        "node_exporter's textfile collector or a script; a queue not read has qgen_up 0 (exit 1)")
    status.add_argument("--horizon-warn", type=_seconds, default=HORIZON_WARN_SECONDS, metavar="DURATION",
                        help="warn when another session has held a snapshot open this long (default 5m): claims "
                        "cost more the longer it stays (PostgreSQL)")
    status.set_defaults(func=cmd_status)

    metrics = commands.add_parser(
        "metrics", help="serve each queue's metrics at /metrics for Prometheus",
        description="Serve GET /metrics in the Prometheus text format (0.0.4): per queue (labels queue, schema) "
        "ready, scheduled, in flight, expired leases, dead letters, the oldest ready job's age in seconds, "
        "completions over the last minute, and qgen_up (0 when the database could not be reached or the queue "
        "could not be read). Each request reads the metrics procedure afresh, so the login needs the admin role. "
        "Runs until Ctrl-C or SIGTERM, then exits 0. docs/operations.md gives the alerts to set.")
    _common(metrics)
    metrics.add_argument("--queue", help="only this queue (default: every queue of the spec)")
    metrics.add_argument("--port", type=int, required=True, help="the TCP port to listen on (0: any free one, printed)")
    metrics.add_argument("--host", default="127.0.0.1",
                         help="the address to listen on (default 127.0.0.1; 0.0.0.0 for every interface)")
    metrics.set_defaults(func=cmd_metrics)

    _add_redrive(commands)
    _add_purge(commands)


def _add_redrive(commands: Any) -> None:
    redrive = commands.add_parser(
        "redrive", help="put dead-lettered jobs back into their queue as new jobs",
        description="Move dead-lettered jobs (--ids, or --all) back into their queue as new jobs: a new id, attempts "
        "0, available now, the last error kept; each job in one transaction, so it is redriven once. A job whose "
        "dedupe key is queued again stays dead and is counted. The login needs the admin role.")
    _common(redrive)
    redrive.add_argument("queue_name", metavar="QUEUE", help="the queue whose dead letters to redrive")
    which = redrive.add_mutually_exclusive_group(required=True)
    which.add_argument("--ids", type=_ids, help="dead-letter ids, comma-separated")
    which.add_argument("--all", action="store_true", help="every dead job of the queue")
    redrive.add_argument("--batch-size", type=int, help="jobs moved per transaction (default 1000, at most 4000)")
    redrive.add_argument("--quiet", action="store_true", help="no progress line on stderr (moved so far per batch)")
    redrive.set_defaults(func=cmd_redrive)


def _add_purge(commands: Any) -> None:
    purge = commands.add_parser(
        "purge", help="delete finished jobs (archived, processed, dead letters) older than the retention, in batches",
        description="Delete each queue's finished jobs (archive rows, processed rows, dead letters) that finished "
        "longer ago than --older-than (default: the queue's retention), in batches of at most --batch-size rows, "
        "each committed on its own, until a batch comes back short: what maintain purges one batch at a time, all "
        "at once. Jobs that finish meanwhile are left for the next purge. A progress line per batch on stderr, "
        "what was deleted per queue on stdout. The login needs the admin role.")
    _common(purge)
    purge.add_argument("--queue", help="only this queue (default: every queue of the spec)")
    purge.add_argument("--older-than", type=_age, metavar="DURATION",
                       help="delete jobs finished longer ago than this (30s, 1h, 7d; 0 for every finished job) "
                       "(default: the queue's retention)")
    purge.add_argument("--batch-size", type=int, help="rows deleted per transaction (default 1000, at most 4000)")
    purge.add_argument("--quiet", action="store_true", help="no progress line on stderr (deleted so far per batch)")
    purge.set_defaults(func=cmd_purge)
