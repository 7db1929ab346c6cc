"""The peers bench's rounds: every measure, every system once per round (the order reversed on
every other round, so no system always runs first or last on a machine that drifts), each system in
a scratch database of its own, and each measurement on freshly installed objects.

Measures (all with the same 400-character payload, example 001's filler):
- enqueue-1, enqueue-100: `processes` producers enqueue for `seconds`, one job per call, or 100
  through the system's batch enqueue; afterwards the database must hold every job enqueued;
- drain-b: `processes` workers drain a queue pre-filled with rows[b] jobs (by the system's own
  batch enqueue) at batch b; the ledger must show every job completed exactly once;
- mixed: 2 producers (one job per call, `rate` jobs/s between them) and 2 workers at batch 10
  for `mixed_seconds`; jobs/s, and the latency from an enqueue's return to its completion.
"""

from __future__ import annotations

import importlib.metadata
import os
import secrets
import tempfile
import urllib.parse
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Optional, TextIO

import tools.bench_peers as peers
from qgen.bench.database import BenchDatabase, BenchError
from qgen.bench.fleet import Fleet, ledger_lines, percentile, verdict, write_ledger
from qgen.bench.load import _AllSet
from tools.bench_peers.system import QUEUE, System
from qgen.bench.procs import Target
from qgen.spec.load import load_spec

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "001_watermark.yaml"  # tools/bench_peers/run.py
MIXED_PRODUCERS = MIXED_WORKERS = 2
MIXED_BATCH = 10
ENQUEUE_BATCH = 100
VERSIONED = ("qgen", "pgqueuer", "procrastinate", "asyncpg", "psycopg", "psycopg-pool")


@dataclass(frozen=True)
class PeerOptions:
    url: str = "postgresql://postgres@127.0.0.1:5432/postgres"
    rounds: int = 3
    seconds: float = 5.0          # each enqueue measurement
    mixed_seconds: float = 10.0   # the mixed run's producing time
    rate: float = 500.0           # the mixed run's offered load, jobs/s (both producers together)
    rows: dict[int, int] = field(default_factory=lambda: {1: 2000, 10: 5000, 100: 10000})  # drain size per batch
    processes: int = 4
    systems: tuple[str, ...] = tuple(peers.SYSTEMS)

    @staticmethod
    def quick(**overrides: Any) -> "PeerOptions":
        """Tiny sizes: a smoke test of every path, not a measurement."""
        small = dict(rounds=1, seconds=1.0, mixed_seconds=2.0, rate=200.0, rows={1: 200, 10: 500, 100: 1000})
        return PeerOptions(**{**small, **overrides})


@dataclass(frozen=True)
class Measure:
    key: str
    batch: int
    kind: str   # enqueue | drain | mixed


def measures(options: PeerOptions) -> list[Measure]:
    found = [Measure("enqueue-1", 1, "enqueue"), Measure(f"enqueue-{ENQUEUE_BATCH}", ENQUEUE_BATCH, "enqueue")]
    found += [Measure(f"drain-{b}", b, "drain") for b in sorted(options.rows)]
    return found + [Measure("mixed", MIXED_BATCH, "mixed")]


def applies(measure: Measure, system: str) -> bool:
    """qgen-delete-tx enqueues exactly as qgen-delete (the same queue): it is measured where it differs."""
    return not (measure.kind == "enqueue" and system == "qgen-delete-tx")


def run_peers(options: PeerOptions, stream: Optional[TextIO]) -> dict[str, Any]:
    missing = peers.missing_packages(tuple(s for s in options.systems if s in peers.PEERS))
    if missing:
        raise BenchError(f"the peers need {', '.join(missing)}, not installed here: {peers.INSTALL_HINT}")
    if options.rounds < 1 or options.processes < 1:
        raise BenchError("--rounds and the process count must each be at least 1")
    token = f"p{os.getpid() % 100000:05d}{secrets.token_hex(2)}"
    if not EXAMPLE.is_file():
        raise BenchError(f"the peers bench runs from a qgen checkout: {EXAMPLE} (example 001's payload) is missing")
    spec = load_spec(EXAMPLE)
    systems = [peers.module(name).system(name, token) for name in options.systems]
    runs: list[dict[str, Any]] = []
    load_start = os.getloadavg()
    with scratch_databases(options.url, [s.name for s in systems], token) as urls:
        for r in range(options.rounds):
            order = systems if r % 2 == 0 else systems[::-1]
            for m in measures(options):
                for system in order:
                    if applies(m, system.name):
                        result = measure_once(system, urls[system.name], spec, m, options)
                        runs.append({"round": r + 1, **result})
                        _say(stream, runs[-1])
    return {"token": token, "options": {**asdict(options), "rows": {str(k): v for k, v in options.rows.items()}},
            "versions": versions(), "cpus": os.cpu_count(), "loadavg_start": load_start,
            "loadavg_end": os.getloadavg(),
            "systems": {s.name: {"guarantee": s.guarantee, "driven": s.driven} for s in systems},
            "runs": runs}


def versions() -> dict[str, Optional[str]]:
    found: dict[str, Optional[str]] = {}
    for name in VERSIONED:
        distribution = "qgen-queues" if name == "qgen" else name  # qgen's distribution name (pyproject)
        try:
            found[name] = importlib.metadata.version(distribution)
        except importlib.metadata.PackageNotFoundError:
            found[name] = None
    from tools.bench_peers.node_system import versions as node_versions

    return {**found, **node_versions()}


class scratch_databases:
    """One empty database per system, named with the run's token; dropped afterwards (only those)."""

    def __init__(self, url: str, names: list[str], token: str):
        self.admin = BenchDatabase(url)
        self.names = {n: f"peers_{n.replace('-', '_')}_{token}" for n in names}
        self.made: list[str] = []

    def __enter__(self) -> dict[str, str]:
        parts = urllib.parse.urlsplit(self.admin.url)
        for database in self.names.values():
            self.admin.execute(f'CREATE DATABASE "{database}"')
            self.made.append(database)
        return {n: urllib.parse.urlunsplit(parts._replace(path="/" + d)) for n, d in self.names.items()}

    def __exit__(self, *exc: Any) -> None:
        for database in self.made:
            self.admin.execute(f'DROP DATABASE IF EXISTS "{database}" WITH (FORCE)')


def measure_once(system: System, url: str, spec: Any, measure: Measure, options: PeerOptions) -> dict[str, Any]:
    load_before = os.getloadavg()[0]
    with system.installed(url, spec, measure.batch) as installed, \
            tempfile.TemporaryDirectory(prefix="qgen-peers-") as ledger, Fleet() as fleet:
        target = Target(url, installed.spec, QUEUE, ledger)
        if measure.kind == "drain":
            write_ledger(ledger, "fill", "enqueued", system.fill(target, options.rows[measure.batch]))
        BenchDatabase(url).checkpoint()
        _start(system, fleet, target, measure, options)
        run = fleet.run()
        left = installed.left()
        result = _outcome(measure, ledger, run.seconds, left)
    return {"measure": measure.key, "system": system.name, **result,
            "load_before": round(load_before, 2), "load_after": round(os.getloadavg()[0], 2)}


def _start(system: System, fleet: Fleet, target: Target, measure: Measure, options: PeerOptions) -> None:
    if measure.kind == "enqueue":
        for p in range(options.processes):
            system.start_producer(fleet, target, f"producer-{p + 1}", first=p * 10_000_000 + 1,
                                  batch=measure.batch, seconds=options.seconds)
    elif measure.kind == "drain":
        for w in range(options.processes):
            system.start_worker(fleet, target, f"worker-{w + 1}", measure.batch)
    else:
        done = [fleet.event() for _ in range(MIXED_PRODUCERS)]
        for p, event in enumerate(done):
            system.start_producer(fleet, target, f"producer-{p + 1}", first=p * 10_000_000 + 1, batch=1,
                                  seconds=options.mixed_seconds, rate=options.rate / MIXED_PRODUCERS, done=event)
        for w in range(MIXED_WORKERS):
            system.start_worker(fleet, target, f"worker-{w + 1}", measure.batch, producers_done=_AllSet(done))


def _outcome(measure: Measure, ledger: str, seconds: float, left: int) -> dict[str, Any]:
    """Jobs/s and the ledger's verdict. An enqueue run has no completions: there every job the
    producers saw enqueued must be in the database (left), and no more."""
    found = verdict(ledger)
    if measure.kind == "enqueue":
        return {"jobs": found.enqueued, "seconds": round(seconds, 3),
                "jobs_per_second": round(found.enqueued / seconds, 1),
                "all_stored": left == found.enqueued, "left": left}
    result = {"jobs": found.completed, "seconds": round(seconds, 3),
              "jobs_per_second": round(found.completed / seconds, 1), "exactly_once": found.exactly_once,
              "duplicates": found.duplicates, "lost": found.lost, "unknown": found.unknown,
              "redeliveries": found.redeliveries, "left": left}
    if measure.kind == "mixed":
        latencies = completion_latencies(ledger)
        result.update(enqueued=found.enqueued, latency_ms={f"p{p}": round(percentile(latencies, p), 2)
                                                           if latencies else None for p in (50, 99)})
    return result


def completion_latencies(ledger: str) -> list[float]:
    """Per job, milliseconds from its enqueue's return to its first recorded completion, ascending."""
    enqueued = {job: at for _, job, at in ledger_lines(ledger, "enqueued") if at is not None}
    completed: dict[int, float] = {}
    for _, job, at in ledger_lines(ledger, "completed"):
        if at is not None and (job not in completed or at < completed[job]):
            completed[job] = at
    return sorted(1000 * (completed[j] - enqueued[j]) for j in completed if j in enqueued)


def _say(stream: Optional[TextIO], run: dict[str, Any]) -> None:
    if stream is None:
        return
    verdict_text = ("all stored" if run.get("all_stored") else "NOT all stored") if "all_stored" in run else \
        ("exactly once" if run["exactly_once"] else f"NOT exactly once ({run['duplicates']} dup, {run['lost']} lost)")
    stream.write(f"round {run['round']} {run['measure']:<12} {run['system']:<15} {run['jobs']:>8,} jobs "
                 f"{run['seconds']:>7.2f} s {run['jobs_per_second']:>10,.0f}/s  {verdict_text}  "
                 f"load {run['load_before']:.2f} -> {run['load_after']:.2f}\n")
    stream.flush()
