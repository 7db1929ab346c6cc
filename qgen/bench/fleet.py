"""The parent side of a bench: start child processes, show progress, collect their reports, and
never leave one running; then read the ledger they wrote."""

from __future__ import annotations

import array
import collections
import multiprocessing
import os
import queue as queue_module
import time
from dataclasses import dataclass, field
from typing import Any, Callable, Optional, TextIO

from qgen.bench.database import BenchError
from qgen.bench.procs import Signals, Target


class Progress:
    """One line on a terminal (redrawn), a line every few seconds elsewhere (CI logs)."""

    def __init__(self, stream: Optional[TextIO], label: str, total: int, read: Callable[[], tuple[int, int]]):
        self.stream, self.label, self.total, self.read = stream, label, total, read
        self.tty = bool(stream) and stream.isatty()
        self.started = time.monotonic()
        self.last = 0.0

    def update(self, final: bool = False) -> None:
        if self.stream is None:
            return
        now = time.monotonic()
        if not final and now - self.last < (0.2 if self.tty else 5.0):
            return
        self.last = now
        enqueued, completed = self.read()
        elapsed = max(now - self.started, 1e-9)
        done = min(1.0, completed / self.total) if self.total else 1.0
        bar = "#" * int(done * 30)
        line = (f"{self.label}: [{bar:<30}] {completed:,}/{self.total:,} done"
                + (f", {enqueued:,} enqueued" if enqueued else "")  # a drain of a pre-filled queue has none
                + f", {completed / elapsed:,.0f}/s, {elapsed:.1f}s")
        if self.tty:
            self.stream.write("\r" + line + ("\n" if final else ""))
        else:
            self.stream.write(line + "\n")
        self.stream.flush()


@dataclass
class FleetRun:
    stats: dict[str, dict]
    seconds: float  # from the first child's start to the last one's end
    started: float = 0.0  # when the parent said go (monotonic, shared by every process)
    lost: dict[str, Optional[int]] = field(default_factory=dict)  # exited without reporting: exit code
    killed: list[str] = field(default_factory=list)  # of those, the ones the parent killed on purpose

    def total(self, key: str) -> int:
        return sum(int(s.get(key, 0)) for s in self.stats.values())

    def latencies(self) -> list[float]:
        values = array.array("d")
        for s in self.stats.values():
            if "latencies" in s:
                values.frombytes(s["latencies"])
        return sorted(values)


class Fleet:
    """Child processes (spawn) that report on one results queue.

    A child that exits without reporting (killed, or crashed without a traceback) does not end the
    run: it is recorded in FleetRun.lost, `on_lost(name)` is called (the load run sets a dead
    producer's done event, and starts a reaper for a dead worker's leases), and the run goes on
    with the others; what it did is in the ledger up to its death. A child that reports an error
    still ends the run. Services (start(service=True): the reaper) run until the work is done and
    are then stopped through `service_stop`."""

    def __init__(self) -> None:
        self.ctx = multiprocessing.get_context("spawn")
        self.signals = Signals(go=self.ctx.Event(), results=self.ctx.Queue(),
                               enqueued=self.ctx.Value("q", 0), completed=self.ctx.Value("q", 0))
        self.service_stop = self.ctx.Event()
        self.procs: dict[str, Any] = {}
        self.recipes: dict[str, tuple[Callable, Target, dict]] = {}
        self.services: set[str] = set()
        self.ready: set[str] = set()
        self.done: set[str] = set()
        self.lost: dict[str, Optional[int]] = {}
        self.killed: list[str] = []
        self.on_lost: Optional[Callable[[str], None]] = None
        self._numbers: collections.Counter = collections.Counter()

    def event(self) -> Any:
        return self.ctx.Event()

    def start(self, function: Callable, name: str, target: Target, service: bool = False, **options: Any) -> None:
        process = self.ctx.Process(target=function, name=name, daemon=True, args=(target, name, self.signals),
                                   kwargs=options)
        process.start()
        self.procs[name] = process
        self.recipes[name] = (function, target, options)
        if service:
            self.services.add(name)
        kind, _, number = name.rpartition("-")
        if number.isdigit():
            self._numbers[kind] = max(self._numbers[kind], int(number))

    def alive(self, prefix: str) -> list[str]:
        """The children named prefix-N that are working (ready, not done, not lost)."""
        return [n for n, p in self.procs.items() if n.startswith(prefix + "-") and n in self.ready
                and n not in self.done and n not in self.lost and p.exitcode is None]

    def kill(self, name: str) -> float:
        """SIGKILL one child; when it happened (monotonic)."""
        at = time.monotonic()
        self.procs[name].kill()
        self.killed.append(name)
        return at

    def replace(self, name: str) -> str:
        """Start a child like `name` (same function and options) under the next free number; its name."""
        function, target, options = self.recipes[name]
        kind = name.rpartition("-")[0]
        self._numbers[kind] += 1
        new = f"{kind}-{self._numbers[kind]}"
        self.start(function, new, target, service=name in self.services, **options)
        return new

    def counts(self) -> tuple[int, int]:
        return self.signals.enqueued.value, self.signals.completed.value

    def run(self, progress: Optional[Progress] = None, timeout: float = 900,
            tick: Optional[Callable[["Fleet"], None]] = None) -> FleetRun:
        """Wait until every child is ready, start them together, follow them until each is done or
        lost (calling tick(fleet) between polls), then stop the services."""
        reports: dict[str, list] = collections.defaultdict(list)
        self._collect_ready(reports, time.monotonic() + 120)
        self.signals.go.set()
        started = time.monotonic()
        if progress is not None:
            progress.started = started
        self._follow(reports, time.monotonic() + timeout, progress, tick)
        if progress is not None:
            progress.update(final=True)
        self.service_stop.set()
        self._follow(reports, time.monotonic() + 60, None, None, services=True)
        stats = {name: s for name, s in reports["done"]}
        work = [s for n, s in stats.items() if n not in self.services] or list(stats.values())
        if not work:
            raise BenchError("every child exited without reporting: " + ", ".join(
                f"{n} (code {c})" for n, c in sorted(self.lost.items())))
        seconds = max(s["ended"] for s in work) - min(s["started"] for s in work)
        return FleetRun(stats, seconds, started, dict(self.lost), list(self.killed))

    def _collect_ready(self, reports: dict[str, list], give_up: float) -> None:
        while len(reports["ready"]) < len(self.procs):
            report = self._next(give_up, "ready", reports)
            if report is not None:
                self._take(report, reports)
            dead = [n for n, p in self.procs.items() if p.exitcode is not None and n not in dict(reports["ready"])]
            if dead and self.signals.results.empty():
                time.sleep(0.5)  # a last report may still be in the pipe
                if self.signals.results.empty():
                    raise BenchError(f"{', '.join(sorted(dead))} exited (code {self.procs[dead[0]].exitcode}) "
                                     "before it was ready")

    def _follow(self, reports: dict[str, list], give_up: float, progress: Optional[Progress],
                tick: Optional[Callable[["Fleet"], None]], services: bool = False) -> None:
        while True:
            if tick is not None:
                tick(self)
            waiting = [n for n in self.procs if (n in self.services) == services
                       and n not in self.done and n not in self.lost]
            if not waiting:
                return
            if progress is not None:
                progress.update()
            report = self._next(give_up, "done", reports, waiting)
            if report is not None:
                self._take(report, reports)
                continue
            exited = [n for n in waiting if self.procs[n].exitcode is not None]
            if exited and self.signals.results.empty():
                time.sleep(0.5)  # a last report may still be in the pipe
                if not self.signals.results.empty():
                    continue
                for name in exited:
                    self.lost[name] = self.procs[name].exitcode
                    if self.on_lost is not None:
                        self.on_lost(name)

    def _next(self, give_up: float, kind: str, reports: dict[str, list], waiting: Optional[list[str]] = None):
        try:
            return self.signals.results.get(timeout=0.2)
        except queue_module.Empty:
            if time.monotonic() > give_up:
                names = waiting if waiting is not None else sorted(set(self.procs) - {n for n, _ in reports[kind]})
                raise BenchError(f"gave up waiting for {', '.join(sorted(names))} to be {kind}") from None
            return None

    def _take(self, report: tuple, reports: dict[str, list]) -> None:
        what, name = report[0], report[1]
        if what == "error":
            raise BenchError(f"{name} failed:\n{report[2]}")
        if what == "done":
            self.done.add(name)
        elif what == "ready":
            self.ready.add(name)
        reports[what].append((name, report[2] if len(report) > 2 else None))

    def close(self) -> None:
        for process in self.procs.values():
            if process.is_alive():
                process.kill()
            process.join(10)
        self.signals.results.close()
        self.signals.results.join_thread()

    def __enter__(self) -> "Fleet":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()


# ---------------------------------------------------------------------------------------------
# The ledger


def write_ledger(folder: str, name: str, kind: str, ids: list[int]) -> None:
    """Append ids to `<name>.<kind>`: what the parent itself enqueued, claimed or completed."""
    with open(os.path.join(folder, f"{name}.{kind}"), "a") as f:
        f.write("".join(f"{i}\n" for i in ids))


def ledger_lines(folder: str, kind: str) -> list[tuple[str, int, Optional[float]]]:
    """(writer, id, second field or None) for every line of the `<writer>.<kind>` files of a run:
    the time of a completion, the attempts of a lease-mode claim."""
    lines = []
    for entry in os.scandir(folder):
        if entry.name.endswith("." + kind):
            writer = entry.name[: -len(kind) - 1]
            with open(entry.path) as f:
                for line in f:
                    fields = line.split()
                    if fields:
                        lines.append((writer, int(fields[0]), float(fields[1]) if len(fields) > 1 else None))
    return lines


def read_ledger(folder: str, kind: str) -> collections.Counter:
    """How many times each id appears in the `<name>.<kind>` files of a run."""
    return collections.Counter(i for _, i, _ in ledger_lines(folder, kind))


@dataclass
class Verdict:
    enqueued: int
    completed: int
    duplicates: int      # completions of a job beyond its first
    lost: int            # enqueued, never completed
    unknown: int         # completed, never enqueued by this run
    redeliveries: int    # claims of a job beyond its first (a lease lost, a job handed out again)
    in_doubt: int = 0    # being completed by a call nobody saw end (its worker killed, its connection lost)
    resolved: int = 0    # of those, found gone from the queue afterwards: that call completed them
    exactly_once: bool = field(init=False)

    def __post_init__(self) -> None:
        self.exactly_once = self.duplicates == 0 and self.lost == 0 and self.unknown == 0


def verdict(folder: str, remaining: Optional[set[int]] = None) -> Verdict:
    """The ledger's verdict. Jobs a call was completing when its worker was killed (or its
    connection lost) are in doubt; given `remaining` (the ids the queue still holds unfinished, or
    dead-lettered, once the run is over and nothing is leased), a job in doubt that no other worker
    completed and that is no longer in the queue was completed by that call: every other way out of
    the queue (a release by reap, a rollback) would have handed it to another worker, whose
    completion the ledger would show. Without `remaining`, jobs in doubt stay unresolved."""
    enqueued, completed = (read_ledger(folder, k) for k in ("enqueued", "completed"))
    doubt, resolved = in_doubt(folder, remaining)
    done = set(completed) | resolved
    return Verdict(
        enqueued=sum(enqueued.values()),
        completed=sum(completed.values()) + len(resolved),
        duplicates=sum(n - 1 for n in completed.values() if n > 1),
        lost=len(set(enqueued) - done),
        unknown=len(done - set(enqueued)),
        redeliveries=redeliveries(folder),
        in_doubt=len(doubt),
        resolved=len(resolved),
    )


def redeliveries(folder: str) -> int:
    """Deliveries of a job beyond its first: its claims in the ledger, or (lease mode) the attempts
    its latest claim carried, whichever says more (a claim whose worker died before writing it
    still counted an attempt)."""
    claims: collections.Counter = collections.Counter()
    attempts: dict[int, int] = {}
    for _, job, extra in ledger_lines(folder, "claimed"):
        claims[job] += 1
        if extra is not None:
            attempts[job] = max(attempts.get(job, 0), int(extra))
    return sum(max(n, attempts.get(job, 0)) - 1 for job, n in claims.items())


def in_doubt(folder: str, remaining: Optional[set[int]] = None) -> tuple[set[int], set[int]]:
    """The ids written to `completing` and never to `completed`, and those of them resolved as
    completed (not in `remaining`; none without it): see verdict."""
    doubt = set(read_ledger(folder, "completing")) - set(read_ledger(folder, "completed"))
    return doubt, (doubt - remaining if remaining is not None else set())


def percentile(ordered: list[float], p: float) -> Optional[float]:
    """The p-th percentile (nearest rank) of an ascending list; None when empty."""
    if not ordered:
        return None
    rank = max(1, min(len(ordered), int(-(-p * len(ordered) // 100))))
    return ordered[rank - 1]
