"""The parent side of the concurrency tests: start child processes, follow their reports, and
never leave one running (every process started is killed, by its own pid, when the test ends)."""

from __future__ import annotations

import collections
import os
import signal
import threading
import multiprocessing
import queue as queue_module
import time
from typing import Any, Callable

from tests.concurrency.procs import Target
from tests.support.backends import QueueEnv, mssql_connection_string


def target(env: QueueEnv, queue: str) -> Target:
    """How a child process reaches the database and the queue this test installed."""
    backend = env.backend
    if env.dialect == "postgres":
        conninfo = backend.url
    else:
        conninfo = mssql_connection_string(backend.url, backend.database)
    return Target(env.dialect, conninfo, str(env.installed.path), queue)


class Fleet:
    """Child processes (spawn start method) that report on one results queue."""

    def __init__(self, ledger_dir: str):
        self.ctx = multiprocessing.get_context("spawn")
        self.ledger_dir = ledger_dir
        self.results = self.ctx.Queue()
        self.go = self.ctx.Event()
        self.procs: dict[str, Any] = {}
        self.reports: dict[str, list[tuple]] = collections.defaultdict(list)
        self.expected_dead: set[str] = set()

    def event(self) -> Any:
        return self.ctx.Event()

    def start(self, function: Callable, name: str, target: Target, **kwargs: Any) -> Any:
        process = self.ctx.Process(target=function, name=name, daemon=True,
                                   args=(target, name, self.ledger_dir, self.results, self.go), kwargs=kwargs)
        process.start()
        self.procs[name] = process
        return process

    @staticmethod
    def set(event: Any, timeout: float = 10) -> None:
        """Set a multiprocessing Event, failing if set() does not return: it waits for every process
        waiting on the event to wake, and one killed while it waited never does (a worker's stop
        watch once waited on it, and CI hung here after the victims were killed)."""
        setter = threading.Thread(target=event.set, daemon=True)
        setter.start()
        setter.join(timeout)
        assert not setter.is_alive(), f"Event.set() did not return in {timeout}s: a killed process was waiting on it"

    def kill(self, process: Any, timeout: float = 30) -> None:
        """SIGKILL a child that reported ("blocked", ...), once it has flushed that report (its
        .flushed file): the results queue's write lock is shared by every child, and a child killed
        between writing a report and releasing that lock leaves it held, so no other child's report
        ever arrives (seen in CI: fresh workers never 'ready')."""
        flushed = os.path.join(self.ledger_dir, f"{process.name}.flushed")
        give_up = time.monotonic() + timeout
        while not os.path.exists(flushed):
            assert time.monotonic() < give_up, f"{process.name} did not flush its report in {timeout}s"
            time.sleep(0.05)
        self.expected_dead.add(process.name)
        os.kill(process.pid, signal.SIGKILL)

    def wait_for(self, kind: str, count: int, timeout: float) -> list[tuple]:
        """Collect reports until `count` of `kind` came in. A child's error fails the test at once,
        with its traceback; so does a child that died without reporting, or the timeout."""
        give_up = time.monotonic() + timeout
        while len(self.reports[kind]) < count:
            try:
                report = self.results.get(timeout=0.2)
            except queue_module.Empty:
                finished = {n for n, _, *_ in self.reports["done"]}
                for name, process in self.procs.items():
                    if (process.exitcode is not None and name not in finished
                            and name not in self.expected_dead):
                        # it may have reported just before exiting: read what is left first
                        try:
                            while True:
                                self._file(self.results.get(timeout=0.5))
                        except queue_module.Empty:
                            pass
                        if name not in {n for n, _, *_ in self.reports["done"]}:
                            raise AssertionError(f"{name} exited with {process.exitcode} without reporting") from None
                if time.monotonic() > give_up:
                    raise AssertionError(f"waited {timeout}s for {count} {kind!r} reports, got "
                                         f"{len(self.reports[kind])}: {dict(self.reports)}") from None
                continue
            self._file(report)
        return self.reports[kind]

    def _file(self, report: tuple) -> None:
        kind, name = report[0], report[1]
        if kind == "error":
            raise AssertionError(f"{name} failed:\n{report[2]}")
        self.reports[kind].append(report[1:])

    def stats(self) -> dict[str, dict]:
        return {name: stats for name, stats in self.reports["done"]}

    def join(self, timeout: float = 30) -> None:
        for process in self.procs.values():
            process.join(timeout)

    def close(self) -> None:
        for process in self.procs.values():
            if process.is_alive():
                process.kill()  # SIGKILL to this child's own pid
            process.join(10)
        self.results.close()
        self.results.join_thread()
