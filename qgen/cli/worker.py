"""`qgen worker SPEC QUEUE --url URL --handler package.module:function`: the deployable worker process
(registered in qgen/cli/__init__.py). It runs qgen.client.worker.run_worker in --concurrency threads,
each with its own QueueClient (its own connection, made from the URL and made again when lost); the
first thread also runs the queue's maintain every few seconds.

Stopping (systemd's stop, `docker stop`, Kubernetes, Ctrl-C): the first SIGTERM or SIGINT stops
claiming and, at once, hands the jobs of each thread's batch not started yet back with the queue's
release procedure (claimable at once, the claim not counted as an attempt); each thread finishes the
job it is handling (its lease is still extended meanwhile); then the process exits 0, leaving no
lease behind. A handler still running --grace seconds after the signal is not waited for: the
process exits 1, and that job alone stays leased until its lease ends, when reap releases it (its
attempt counted). A second signal exits at once (status 128 + the signal's number): the jobs in hand
stay leased until their lease ends and are then reaped, so nothing is lost, but they wait out the
lease.

Logs: one line per start, stop and job failure (a job that failed, with its error), on stderr; --json
writes them as JSON objects, one per line, for a log aggregator (a failure's traceback goes in its
"traceback" field). Exit status: 0 after a stop by signal; 1 when the database cannot be reached,
the queue is not installed, the login may not claim, or a worker thread stopped on an error; 2 for
an argument or spec error (a --handler that cannot be imported among them), said without a traceback.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import datetime as dt
import functools
import importlib
import inspect
import json
import logging
import os
import signal
import sys
import threading
import time
import traceback
from typing import Any, Callable

GRACE_SECONDS = 30.0   # how long a stop waits for the jobs being handled (--grace)
HAND_BACK_WAIT = 10.0  # after the grace: how long the exit waits for the rest of the batches to be handed back
MAX_CONCURRENCY = 64
log = logging.getLogger("qgen.worker")


class HandlerNotFound(Exception):
    """--handler does not name a callable that can be imported."""


def load_handler(spec: str) -> Callable[[Any], Any]:
    """The function `package.module:function` (`module:object.attribute` too) names, imported with the
    current folder on sys.path (as `python -m` would); an async function is run to completion per job."""
    module_name, sep, attribute = spec.partition(":")
    if not sep or not module_name or not attribute or any(not part.isidentifier() for part in
                                                          module_name.split(".") + attribute.split(".")):
        raise HandlerNotFound(f"--handler {spec!r} is not of the form package.module:function")
    if os.getcwd() not in sys.path:
        sys.path.insert(0, os.getcwd())
    try:
        target: Any = importlib.import_module(module_name)
    except ModuleNotFoundError as exc:
        missing = exc.name or ""
        if missing and (module_name == missing or module_name.startswith(missing + ".")):
            raise HandlerNotFound(f"--handler {spec!r}: no module named {missing!r} (looked in the current folder "
                                  "and on PYTHONPATH)") from None
        raise HandlerNotFound(f"--handler {spec!r}: importing {module_name} failed{_where(exc)}: "
                              f"{_one_line(exc)}") from None
    except Exception as exc:  # the module's own code failed as it was imported
        where = _where(exc)
        raise HandlerNotFound(f"--handler {spec!r}: importing {module_name} failed{where}: {_one_line(exc)}") from None
    for part in attribute.split("."):
        if not hasattr(target, part):
            raise HandlerNotFound(f"--handler {spec!r}: {module_name} has no {attribute!r}")
        target = getattr(target, part)
    if not callable(target):
        raise HandlerNotFound(f"--handler {spec!r}: {attribute} is a {type(target).__name__}, not a function")
    if inspect.iscoroutinefunction(target):
        coroutine = target

        @functools.wraps(coroutine)
        def run_to_completion(job: Any) -> Any:
            return asyncio.run(coroutine(job))

        return run_to_completion
    return target  # type: ignore[no-any-return]


def _one_line(exc: BaseException) -> str:
    return f"{type(exc).__name__}: {' '.join(str(exc).split())}"


def _where(exc: BaseException) -> str:
    if isinstance(exc, SyntaxError) and exc.filename:
        return f" ({exc.filename}:{exc.lineno})"
    frames = traceback.extract_tb(exc.__traceback__)
    return f" ({frames[-1].filename}:{frames[-1].lineno})" if frames else ""


# ---------------------------------------------------------------------------------------------
# Logging: one line per record


class _TextFormatter(logging.Formatter):
    """One line per record: a failure's traceback is left out (its error is in the message)."""

    def __init__(self) -> None:
        super().__init__("%(asctime)s %(levelname)s %(threadName)s %(name)s: %(message)s")

    def formatException(self, ei: Any) -> str:
        return ""

    def format(self, record: logging.LogRecord) -> str:
        return " ".join(super().format(record).split("\n"))


class _JsonFormatter(logging.Formatter):
    """One JSON object per record: time (UTC, ISO 8601), level, logger, thread, message, the event's
    fields (event, queue, ...) and a failure's traceback."""

    def format(self, record: logging.LogRecord) -> str:
        entry: dict[str, Any] = {
            "time": dt.datetime.fromtimestamp(record.created, dt.timezone.utc).isoformat(timespec="milliseconds"),
            "level": record.levelname.lower(), "logger": record.name, "thread": record.threadName,
            "message": record.getMessage(),
        }
        entry.update(getattr(record, "qgen", {}))
        if record.exc_info and record.exc_info[1] is not None:
            entry["error"] = _one_line(record.exc_info[1])
            entry["traceback"] = "".join(traceback.format_exception(*record.exc_info))
        return json.dumps(entry, default=str)


def _configure_logging(as_json: bool) -> None:
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(_JsonFormatter() if as_json else _TextFormatter())
    root = logging.getLogger()
    for old in list(root.handlers):
        root.removeHandler(old)
    root.addHandler(handler)
    root.setLevel(logging.WARNING)
    logging.getLogger("qgen").setLevel(logging.INFO)


def _event(level: int, message: str, **fields: Any) -> None:
    log.log(level, message, extra={"qgen": fields})


# ---------------------------------------------------------------------------------------------
# The process


class _Pool:
    """--concurrency threads, each running run_worker on its own client until `stop` is set."""

    def __init__(self, url: str, spec: Any, queue: str, handler: Callable[[Any], Any], args: argparse.Namespace):
        self.url, self.spec, self.queue, self.handler, self.args = url, spec, queue, handler, args
        self.stop = threading.Event()
        self.errors: list[str] = []
        self.stats: list[Any] = []
        self._lock = threading.Lock()
        self.threads = [threading.Thread(target=self._work, args=(i,), name=f"worker-{i + 1}", daemon=True)
                        for i in range(args.concurrency)]

    def _work(self, index: int) -> None:
        from qgen.client import QueueClient
        from qgen.client.maintenance import MAINTAIN_EVERY
        from qgen.client.worker import run_worker

        client = None
        try:
            client = QueueClient(self.url, self.spec, self.queue)
            stats = run_worker(client, self.handler, batch_size=self.args.batch_size, stop_when_empty=False,
                               stop=self.stop, poll_interval=self.args.poll_interval,
                               maintain_every=MAINTAIN_EVERY if index == 0 else None)
            with self._lock:
                self.stats.append(stats)
        except Exception as exc:
            why = _explain(exc, f"{self.spec.schema}.{self.queue}")
            with self._lock:
                self.errors.append(why)
            _event(logging.ERROR, f"worker thread stopped: {why}; stopping the others", event="error", error=why)
            self.stop.set()
        finally:
            if client is not None:
                with contextlib.suppress(Exception):
                    client.close()

    def alive(self) -> list[threading.Thread]:
        return [t for t in self.threads if t.is_alive()]

    def totals(self) -> dict[str, int]:
        with self._lock:
            found = list(self.stats)
        return {name: sum(getattr(s, name) for s in found) for name in _TOTALS}


_TOTALS = ("processed", "failed", "dead_lettered", "released", "lease_lost", "cancelled", "outcome_unknown")


def _explain(exc: BaseException, where: str) -> str:
    from qgen.client import NotInstalled, PermissionDenied

    if isinstance(exc, NotInstalled):
        return (f"{where} is not installed in this database (or takes other arguments): install the spec first "
                "(install.sql, or alembic upgrade head)")
    if isinstance(exc, PermissionDenied):
        return f"this login may not work {where}: grant it the consumer role ({_one_line(exc)})"
    return _one_line(exc)


def cmd_worker(args: argparse.Namespace) -> int:
    from qgen.cli.dburl import URL_ENV, DatabaseUnavailable, connect, shown
    from qgen.client.worker import hand_backs_done
    from qgen.spec.load import load_spec

    spec = load_spec(args.spec)
    if args.queue_name not in spec.queues:
        return _usage(f"{args.queue_name!r} is not a queue of {args.spec}; accepted: {', '.join(spec.queues)}")
    if spec.queues[args.queue_name].claim != "lease":
        return _usage(f"queue {args.queue_name} has claim: delete; qgen worker works lease queues (a delete-mode "
                      "job is handled inside the transaction of its dequeue)")
    if not 1 <= args.concurrency <= MAX_CONCURRENCY:
        return _usage(f"--concurrency {args.concurrency}: accepted 1 to {MAX_CONCURRENCY}")
    queue = spec.queues[args.queue_name]
    if args.batch_size is not None and not 1 <= args.batch_size <= queue.max_batch_size:
        return _usage(f"--batch-size {args.batch_size}: accepted 1 to {queue.max_batch_size} (the queue's max_batch_size)")
    url = args.url or os.environ.get(URL_ENV)
    if not url:
        return _usage(f"no database: pass --url (e.g. postgresql://USER@HOST:5432/DB) or set {URL_ENV}")
    try:
        handler = load_handler(args.handler)
    except HandlerNotFound as exc:
        return _usage(str(exc))
    _configure_logging(args.json)
    try:  # a URL that cannot work is said at once, not retried as an outage
        connect(url).close()
    except DatabaseUnavailable as exc:
        _event(logging.ERROR, f"not started: {exc}", event="error", error=str(exc))
        return 1

    pool = _Pool(url, spec, args.queue_name, handler, args)
    signals: list[int] = []

    def on_signal(number: int, frame: Any) -> None:
        name = signal.Signals(number).name
        if signals:
            _event(logging.WARNING, f"{name} again: exiting at once; the jobs in hand stay leased until their "
                   "lease ends, then reap releases them", event="exit", signal=name)
            logging.shutdown()
            os._exit(128 + number)
        signals.append(number)
        _event(logging.INFO, f"{name}: stopping: no new claims; finishing the jobs in hand and releasing the "
               f"rest (up to {args.grace:g}s; {name} again exits at once)", event="stopping", signal=name)
        pool.stop.set()

    previous = {s: signal.signal(s, on_signal) for s in (signal.SIGTERM, signal.SIGINT)}
    where = f"{spec.schema}.{args.queue_name}"
    try:
        _event(logging.INFO, f"started: queue {where} at {shown(url)}, handler {args.handler}, {args.concurrency} "
               f"thread(s), batch size {args.batch_size or queue.batch_size}, pid {os.getpid()}", event="start",
               queue=where, handler=args.handler, concurrency=args.concurrency,
               batch_size=args.batch_size or queue.batch_size, pid=os.getpid())
        for thread in pool.threads:
            thread.start()
        while pool.alive() and not pool.stop.is_set():
            pool.stop.wait(0.2)
        deadline = time.monotonic() + args.grace
        while pool.alive() and time.monotonic() < deadline:
            time.sleep(0.05)
        # A handler still running past the grace: the rest of its batch is handed back first (a stop
        # watch does it within a moment of the signal; a few round trips).
        hand_backs_done(HAND_BACK_WAIT)
        running = len(pool.alive())
        totals = pool.totals()
        summary = ", ".join(f"{name.replace('_', ' ')} {count}" for name, count in totals.items())
        if running:
            _event(logging.ERROR, f"stopped after {args.grace:g}s of grace with {running} thread(s) still in a "
                   f"handler: their jobs stay leased until the lease ends, then reap releases them; {summary}",
                   event="stop", still_running=running, **totals)
            return 1
        if pool.errors:
            _event(logging.ERROR, f"stopped on an error: {pool.errors[0]}; {summary}", event="stop",
                   error=pool.errors[0], **totals)
            return 1
        _event(logging.INFO, f"stopped: {summary}", event="stop", **totals)
        return 0
    finally:
        for number, handler_before in previous.items():
            signal.signal(number, handler_before)


def _usage(message: str) -> int:
    print(f"qgen worker: {message}", file=sys.stderr)
    return 2


def _seconds(text: str) -> float:
    from qgen.spec.model import _parse_duration

    try:
        return float(_parse_duration(text))
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def _poll_seconds(text: str) -> float:
    try:
        seconds = float(text)
    except ValueError:
        seconds = -1.0
    if not 0.01 <= seconds <= 3600:
        raise argparse.ArgumentTypeError(f"{text!r}: accepted: seconds from 0.01 to 3600, e.g. 0.5")
    return seconds


def add_command(commands: Any) -> None:
    worker = commands.add_parser(
        "worker", help="run a worker process: claim jobs and hand each to a Python function",
        description="Work one lease queue: claim batches, call the --handler function with each job, complete "
        "it when the function returns, fail it (retried after the backoff, then dead-lettered) when it raises; "
        "leases are extended while a job runs, and maintain runs every few seconds. --concurrency threads, each "
        "with its own connection. SIGTERM or SIGINT stops claiming, finishes the jobs being handled, releases "
        "the batch's jobs not started (ready at once, the attempt not counted) and exits 0; a second signal "
        "exits at once (the jobs in hand stay leased until their lease ends, then reap releases them). The login needs "
        "the consumer role. docs/operations.md has a systemd unit and a container example.")
    worker.add_argument("spec", help="the spec file (YAML)")
    worker.add_argument("queue_name", metavar="QUEUE", help="the queue to work (claim: lease)")
    worker.add_argument("--url", help="the database URL (default: $QGEN_DATABASE_URL), e.g. "
                        "postgresql://USER@HOST:5432/DB or mssql+pyodbc://USER:PASS@HOST:1433/DB")
    worker.add_argument("--handler", required=True, metavar="MODULE:FUNCTION",
                        help="the function that handles one job (package.module:function, imported with the "
                        "current folder on the path); it is given a qgen Job (id, payload, attempts, ...); an async "
                        "function is run to completion per job")
    worker.add_argument("--concurrency", type=int, default=1, metavar="N",
                        help=f"worker threads, each with its own connection (default 1, at most {MAX_CONCURRENCY})")
    worker.add_argument("--batch-size", type=int, metavar="N",
                        help="jobs per claim (default: the queue's batch_size)")
    worker.add_argument("--poll-interval", type=_poll_seconds, default=1.0, metavar="SECONDS",
                        help="how long an idle thread waits for work before it claims again (default 1)")
    worker.add_argument("--grace", type=_seconds, default=GRACE_SECONDS, metavar="DURATION",
                        help=f"how long a stop waits for the jobs being handled (default {GRACE_SECONDS:g}s); "
                        "past it the process exits 1 and those jobs are reaped when their lease ends")
    worker.add_argument("--json", action="store_true", help="log JSON objects, one per line, for a log aggregator")
    worker.set_defaults(func=cmd_worker)
