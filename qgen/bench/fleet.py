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

    def total(self, key: str) -> int:
        return sum(int(s.get(key, 0)) for s in self.stats.values())

    def latencies(self) -> list[float]:
        values = array.array("d")
        for s in self.stats.values():
            if "latencies" in s:
                values.frombytes(s["latencies"])
        return sorted(values)


class Fleet:
    """Child processes (spawn) that report on one results queue."""

    def __init__(self) -> None:
        self.ctx = multiprocessing.get_context("spawn")
        self.signals = Signals(go=self.ctx.Event(), results=self.ctx.Queue(),
                               enqueued=self.ctx.Value("q", 0), completed=self.ctx.Value("q", 0))
        self.procs: dict[str, Any] = {}

    def event(self) -> Any:
        return self.ctx.Event()

    def start(self, function: Callable, name: str, target: Target, **options: Any) -> None:
        process = self.ctx.Process(target=function, name=name, daemon=True, args=(target, name, self.signals),
                                   kwargs=options)
        process.start()
        self.procs[name] = process

    def counts(self) -> tuple[int, int]:
        return self.signals.enqueued.value, self.signals.completed.value

    def run(self, progress: Optional[Progress] = None, timeout: float = 900) -> FleetRun:
        """Wait until every child is ready, start them together, follow them until each is done."""
        reports: dict[str, list] = collections.defaultdict(list)
        self._collect(reports, "ready", time.monotonic() + 120)
        self.signals.go.set()
        if progress is not None:
            progress.started = time.monotonic()
        self._collect(reports, "done", time.monotonic() + timeout, progress)
        if progress is not None:
            progress.update(final=True)
        stats = {name: s for name, s in reports["done"]}
        started = min(s["started"] for s in stats.values())
        ended = max(s["ended"] for s in stats.values())
        return FleetRun(stats, ended - started)

    def _collect(self, reports: dict[str, list], kind: str, give_up: float, progress: Optional[Progress] = None) -> None:
        while len(reports[kind]) < len(self.procs):
            if progress is not None:
                progress.update()
            try:
                report = self.signals.results.get(timeout=0.2)
            except queue_module.Empty:
                waiting = {n for n in self.procs} - {r[0] for r in reports[kind]}
                dead = [n for n in waiting if self.procs[n].exitcode is not None]
                if dead and self.signals.results.empty():
                    time.sleep(0.5)  # a last report may still be in the pipe
                    if self.signals.results.empty():
                        raise BenchError(f"{', '.join(sorted(dead))} exited (code {self.procs[dead[0]].exitcode}) "
                                         "without reporting")
                if time.monotonic() > give_up:
                    raise BenchError(f"gave up waiting for {', '.join(sorted(waiting))} to be {kind}")
                continue
            what, name = report[0], report[1]
            if what == "error":
                raise BenchError(f"{name} failed:\n{report[2]}")
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


def read_ledger(folder: str, kind: str) -> collections.Counter:
    """How many times each id appears in the `<name>.<kind>` files of a run."""
    counts: collections.Counter = collections.Counter()
    for entry in os.scandir(folder):
        if entry.name.endswith("." + kind):
            with open(entry.path) as f:
                counts.update(int(line) for line in f if line.strip())
    return counts


@dataclass
class Verdict:
    enqueued: int
    completed: int
    duplicates: int      # completions of a job beyond its first
    lost: int            # enqueued, never completed
    unknown: int         # completed, never enqueued by this run
    redeliveries: int    # claims of a job beyond its first (a lease lost, a job handed out again)
    exactly_once: bool = field(init=False)

    def __post_init__(self) -> None:
        self.exactly_once = self.duplicates == 0 and self.lost == 0 and self.unknown == 0


def verdict(folder: str) -> Verdict:
    enqueued, completed, claimed = (read_ledger(folder, k) for k in ("enqueued", "completed", "claimed"))
    return Verdict(
        enqueued=sum(enqueued.values()),
        completed=sum(completed.values()),
        duplicates=sum(n - 1 for n in completed.values() if n > 1),
        lost=len(set(enqueued) - set(completed)),
        unknown=len(set(completed) - set(enqueued)),
        redeliveries=sum(n - 1 for n in claimed.values() if n > 1),
    )


def percentile(ordered: list[float], p: float) -> Optional[float]:
    """The p-th percentile (nearest rank) of an ascending list; None when empty."""
    if not ordered:
        return None
    rank = max(1, min(len(ordered), int(-(-p * len(ordered) // 100))))
    return ordered[rank - 1]
