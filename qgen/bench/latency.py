"""How long a job waits for an idle worker: `qgen bench SPEC --experiment latency`.

For each variant of the queue (polling: `wakeup: poll`, workers claiming again every poll interval,
run_worker's default; wake-ups: `wakeup: notify`, workers LISTENing between claims), in a scratch
schema of its own:

1. latency: one producer enqueues at a fixed rate (`rate` jobs/s, one job per call) for `seconds`,
   writing to its ledger the time each enqueue returned (its commit); `workers` worker processes
   run run_worker(stop_when_empty=False) with a handler that only writes the time it was called
   (the claim returned; the job is then completed at once). Enqueue-to-start latency is the
   difference, on the monotonic clock every process shares: p50, p95, p99 and max.
2. idle: with no producer, for `idle_seconds`, the CPU the idle workers cost: the worker processes'
   own (getrusage) and the server processes of their connections (/proc/<pid>/stat of each
   connection's backend pid, pg_backend_pid(); None when the database runs on another host), as a
   percentage of one core.
3. enqueue cost: `producers` processes enqueue one job per call as fast as they can (no worker)
   for `seconds`, into the two variants installed side by side, all switching between them every
   250 ms at the same moments: what NOTIFY at commit costs enqueue throughput.
"""

from __future__ import annotations

import os
import resource
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Optional, TextIO

from qgen.bench.database import BenchDatabase, BenchError, queue_variant, scratch_spec, variant_queue
from qgen.bench.fleet import Fleet, ledger_lines, percentile
from qgen.bench.procs import Signals, Target, _add, _client, _ledger, _run_child, sample_payload
from qgen.cli.tables import table
from qgen.spec.model import Spec
from qgen.client.worker import POLL_INTERVAL, run_worker

VARIANTS = {"polling": "poll", "wake-ups": "notify"}
# The targets with wake-ups (PostgreSQL): p99 at 500 jobs/s with 4 workers, idle CPU.
TARGET_P99_MS, TARGET_IDLE_PERCENT = 20.0, 1.0
TURN = 0.25  # the enqueue-cost measurement: seconds on one variant before switching to the other
SETTLE = 2.0  # seconds after the producer is done before the idle period starts (the last jobs)


@dataclass(frozen=True)
class LatencyOptions:
    rate: float = 500.0
    workers: int = 4
    producers: int = 2          # for the enqueue-cost measurement
    seconds: float = 5.0
    idle_seconds: float = 5.0
    batch: int = 10
    poll_interval: float = POLL_INTERVAL
    schema: str = "qgen_bench"
    keep: bool = False


def run_latency(db: BenchDatabase, spec: Spec, queue: str, options: LatencyOptions,
                stream: Optional[TextIO]) -> dict[str, Any]:
    if min(options.rate, options.workers, options.producers, options.seconds, options.idle_seconds, options.batch) <= 0:
        raise BenchError("--rate, --workers, --producers, --seconds, --idle-seconds and --batch must be more than 0")
    variants = []
    for label, wakeup in VARIANTS.items():
        bench_spec = queue_variant(spec, queue, options.schema, "lease", options.batch, wakeup=wakeup)
        _say(stream, f"{label}: {options.rate:g} jobs/s for {options.seconds:g}s to {options.workers} workers, "
                     f"then {options.idle_seconds:g}s idle")
        with db.scratch(bench_spec, "latency", queue, keep=options.keep, replace=True):
            measured = _measure_latency(db, bench_spec, queue, options)
        variants.append({"variant": label, "wakeup": wakeup, **measured})
    _say(stream, f"enqueue flat out, {options.producers} producers, in turns with and without NOTIFY")
    enqueue = _measure_enqueue(db, spec, queue, options)
    for v in variants:
        v["enqueue_per_second"] = enqueue[v["variant"]]
    return {"experiment": "latency", "queue": queue, "rate": options.rate, "workers": options.workers,
            "producers": options.producers, "seconds": options.seconds, "idle_seconds": options.idle_seconds,
            "batch": options.batch, "poll_interval": options.poll_interval, "variants": variants,
            "targets": _targets(variants)}


def _say(stream: Optional[TextIO], line: str) -> None:
    if stream is not None:
        stream.write(line + "\n")
        stream.flush()


def _measure_latency(db: BenchDatabase, spec: Spec, queue: str, options: LatencyOptions) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="qgen-latency-") as ledger, Fleet() as fleet:
        target = Target(db.url, spec, queue, ledger)
        stop, idle_begin, idle_end = fleet.event(), fleet.event(), fleet.event()
        fleet.start(paced_producer, "producer-1", target, rate=options.rate, seconds=options.seconds)
        for w in range(options.workers):
            fleet.start(waiting_worker, f"worker-{w + 1}", target, batch=options.batch,
                        poll_interval=options.poll_interval, stop=stop, idle_begin=idle_begin, idle_end=idle_end)
        phases = _Phases(options.idle_seconds, stop, idle_begin, idle_end)
        run = fleet.run(tick=phases.tick)
        workers = [s for n, s in run.stats.items() if n.startswith("worker-")]
        latencies = _latencies(ledger)
    idle = phases.ended - phases.began if phases.ended else None
    return {
        "enqueued": run.total("enqueued"),
        "started": len(latencies),
        "rate_achieved": round(run.total("enqueued") / options.seconds, 1),
        "latency_ms": {**{f"p{p}": _rounded(percentile(latencies, p)) for p in (50, 95, 99)},
                       "max": _rounded(latencies[-1] if latencies else None)},
        "latencies_ms": [round(v, 3) for v in latencies],
        "idle": _idle_cpu(workers, idle),
        "claims": sum(s["batches"] for s in workers),
        "watermark_corrections": sum(s["watermark_corrections"] for s in workers),
    }


class _Phases:
    """The parent's clock (Fleet.run's tick): once the producer is done and the last jobs had time
    to start, the idle period; after it, stop the workers."""

    def __init__(self, idle_seconds: float, stop: Any, idle_begin: Any, idle_end: Any):
        self.idle_seconds, self.stop, self.idle_begin, self.idle_end = idle_seconds, stop, idle_begin, idle_end
        self.producer_done: Optional[float] = None
        self.began: Optional[float] = None
        self.ended: Optional[float] = None

    def tick(self, fleet: Fleet) -> None:
        now = time.monotonic()
        if self.producer_done is None:
            if "producer-1" in fleet.done or "producer-1" in fleet.lost:
                self.producer_done = now
        elif self.began is None and now - self.producer_done >= SETTLE:
            self.began = now
            self.idle_begin.set()
        elif self.began is not None and self.ended is None and now - self.began >= self.idle_seconds:
            self.ended = now
            self.idle_end.set()
            self.stop.set()


def _latencies(ledger: str) -> list[float]:
    """Enqueue-to-start latency of every job started (ms, ascending): first start minus commit."""
    committed = {job: at for _, job, at in ledger_lines(ledger, "enqueued") if at is not None}
    started: dict[int, float] = {}
    for _, job, at in ledger_lines(ledger, "started"):
        if at is not None and (job not in started or at < started[job]):
            started[job] = at
    return sorted(1000 * (started[job] - committed[job]) for job in started if job in committed)


def _rounded(value: Optional[float]) -> Optional[float]:
    return None if value is None else round(value, 3)


def _idle_cpu(workers: list[dict], seconds: Optional[float]) -> dict[str, Any]:
    """The workers' CPU over the idle period, and their connections' server processes', as % of one core."""
    if not seconds or not workers or any("idle_client_cpu_s" not in s for s in workers):
        return {"seconds": seconds, "client_cpu_s": None, "server_cpu_s": None, "client_percent": None,
                "server_percent": None, "percent_of_one_core": None}
    client = sum(s["idle_client_cpu_s"] for s in workers)
    servers = [s["idle_server_cpu_s"] for s in workers]
    server = None if any(v is None for v in servers) else sum(servers)
    total = client + (server or 0.0)
    return {"seconds": round(seconds, 3), "client_cpu_s": round(client, 4),
            "server_cpu_s": None if server is None else round(server, 4),
            "client_percent": round(100 * client / seconds, 3),
            "server_percent": None if server is None else round(100 * server / seconds, 3),
            "percent_of_one_core": round(100 * total / seconds, 3)}


def _measure_enqueue(db: BenchDatabase, spec: Spec, queue: str, options: LatencyOptions) -> dict[str, float]:
    """Jobs/s that `producers` processes enqueue one per call, flat out, into each variant: both
    installed side by side, every producer switching between them every TURN seconds at the same
    moments (the shared monotonic clock), so a machine shared with other work slows both alike."""
    queues = {label: queue if wakeup == "poll" else f"{queue}_{wakeup}" for label, wakeup in VARIANTS.items()}
    both = scratch_spec(spec, options.schema, {queues[label]: variant_queue(spec, queue, "lease", options.batch,
                                                                             wakeup=wakeup)
                                               for label, wakeup in VARIANTS.items()})
    with db.scratch(both, "latency", queue, keep=options.keep, replace=True), \
            tempfile.TemporaryDirectory(prefix="qgen-latency-") as ledger, Fleet() as fleet:
        target = Target(db.url, both, queue, ledger)
        for p in range(options.producers):
            fleet.start(alternating_producer, f"producer-{p + 1}", target, queues=list(queues.values()),
                        first=p * 10_000_000 + 1, seconds=options.seconds)
        run = fleet.run()
    return {label: round(run.total(f"enqueued:{name}") / (options.seconds / len(queues)), 1)
            for label, name in queues.items()}


def _targets(variants: list[dict[str, Any]]) -> list[dict[str, Any]]:
    woken = next(v for v in variants if v["wakeup"] == "notify")
    polled = next(v for v in variants if v["wakeup"] == "poll")
    p99, idle = woken["latency_ms"]["p99"], woken["idle"]["percent_of_one_core"]
    cost = 1 - woken["enqueue_per_second"] / polled["enqueue_per_second"] if polled["enqueue_per_second"] else None
    return [
        {"target": "wake-ups: p99 enqueue-to-start (ms)", "measured": p99, "needed": f"< {TARGET_P99_MS:g}",
         "met": None if p99 is None else p99 < TARGET_P99_MS},
        {"target": "wake-ups: idle workers, % of one core", "measured": idle, "needed": f"< {TARGET_IDLE_PERCENT:g}",
         "met": None if idle is None else idle < TARGET_IDLE_PERCENT},
        {"target": "NOTIFY's cost to enqueue throughput (%)", "measured": None if cost is None else round(100 * cost, 1),
         "needed": "measured", "met": None},
    ]


def latency_table(report: dict[str, Any]) -> str:
    rows = []
    for v in report["variants"]:
        lat, idle = v["latency_ms"], v["idle"]
        rows.append([v["variant"], v["started"], v["rate_achieved"], lat["p50"], lat["p95"], lat["p99"], lat["max"],
                     idle["client_percent"], idle["server_percent"], idle["percent_of_one_core"],
                     v["enqueue_per_second"]])
    text = table(["variant", "jobs", "jobs/s", "p50 ms", "p95 ms", "p99 ms", "max ms", "idle client %",
                  "idle server %", "idle total %", f"enqueue/s ({report['producers']} flat out)"], rows)
    checks = [[t["target"], t["measured"], t["needed"], "-" if t["met"] is None else ("met" if t["met"] else "MISSED")]
              for t in report["targets"]]
    return (f"enqueue-to-start latency at {report['rate']:g} jobs/s, {report['workers']} workers, poll interval "
            f"{report['poll_interval']:g}s; idle CPU over {report['idle_seconds']:g}s\n\n" + text + "\n\n"
            + table(["target", "measured", "needed", ""], checks))


def plot_latency(report: dict[str, Any], path: Path, plt: Any) -> None:
    """The latency distributions (what share of jobs started within x ms), one line per variant."""
    figure, axes = plt.subplots(figsize=(7, 4.5), dpi=110)
    for v in report["variants"]:
        values = [max(x, 0.01) for x in v["latencies_ms"]]
        if values:
            axes.plot(values, [(i + 1) / len(values) for i in range(len(values))], label=v["variant"])
    axes.set_xscale("log")
    axes.set_xlabel("enqueue to start (ms, log scale; 0.01 or less drawn at 0.01)")
    axes.set_ylabel("share of jobs started")
    axes.set_title(f"{report['rate']:g} jobs/s to {report['workers']} workers (poll interval {report['poll_interval']:g}s)")
    axes.grid(True, alpha=0.3)
    axes.legend()
    figure.tight_layout()
    figure.savefig(path)
    plt.close(figure)


# ---------------------------------------------------------------------------------------------
# The child processes (spawn imports them by name)


def _paced_producer(target: Target, name: str, signals: Signals, *, rate: float, seconds: float) -> Callable[[], dict]:
    """Enqueue one job per call, the k-th at start + k / rate, for `seconds`; the ledger gets each
    job's id and the time its enqueue returned (committed)."""
    client = _client(target, name)
    fd = _ledger(target, name, "enqueued")

    def work() -> dict:
        started, sent = time.monotonic(), 0
        while True:
            due = started + sent / rate
            if due - started >= seconds:
                break
            if due > time.monotonic():
                time.sleep(due - time.monotonic())
            job = client.enqueue(**sample_payload(target.spec, target.queue, sent + 1)).id
            os.write(fd, f"{job} {time.monotonic():.6f}\n".encode())
            sent += 1
            _add(signals.enqueued, 1)
        client.close()
        return {"enqueued": sent}

    return work


def _waiting_worker(target: Target, name: str, signals: Signals, *, batch: int, poll_interval: float, stop: Any,
                    idle_begin: Any, idle_end: Any) -> Callable[[], dict]:
    """run_worker until `stop`, writing when each job started; its CPU over the idle period."""
    client = _client(target, name)  # connected before go: a client given a URL connects at once
    fd = _ledger(target, name, "started")

    def handle(job: Any) -> None:
        os.write(fd, f"{job.id} {time.monotonic():.6f}\n".encode())
        _add(signals.completed, 1)

    idle: dict[str, Any] = {}
    watcher = threading.Thread(target=_watch_idle, args=(client, idle_begin, idle_end, idle), daemon=True)

    def work() -> dict:
        watcher.start()
        stats = run_worker(client, handle, batch_size=batch, stop_when_empty=False, poll_interval=poll_interval,
                           stop=stop)
        watcher.join(5)
        client.close()
        return {"batches": stats.batches, "watermark_corrections": stats.watermark_corrections,
                "processed": stats.processed, **idle}

    return work


def _watch_idle(client: Any, begin: Any, end: Any, into: dict[str, Any]) -> None:
    begin.wait()
    pids = _backend_pids(client)
    client_before, server_before = _own_cpu(), _server_cpu(pids)
    end.wait()
    client_after, server_after = _own_cpu(), _server_cpu(pids)
    into["idle_client_cpu_s"] = client_after - client_before
    into["idle_server_cpu_s"] = None if None in (server_before, server_after) else server_after - server_before
    into["backend_pids"] = pids


def _backend_pids(client: Any) -> list[int]:
    """The server processes of a worker's connections: its calls' and its LISTEN connection's
    (pg_backend_pid() of each, as libpq reports it)."""
    return [c.info.backend_pid for c in client.connections()]


def _own_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def _server_cpu(pids: list[int]) -> Optional[float]:
    """User + system CPU seconds of these processes (/proc/<pid>/stat), None when one is not on this host."""
    total = 0
    for pid in pids:
        try:
            with open(f"/proc/{pid}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
        except OSError:
            return None
        total += int(fields[11]) + int(fields[12])  # utime, stime: fields 14 and 15 of stat
    return total / os.sysconf("SC_CLK_TCK")


def _alternating_producer(target: Target, name: str, signals: Signals, *, queues: list[str], first: int,
                          seconds: float) -> Callable[[], dict]:
    """Enqueue flat out for `seconds`, one job per call, into queues[k] during the k-th TURN of every
    len(queues) turns of the monotonic clock (which every producer shares: they switch together)."""
    from qgen.client import QueueClient

    clients = [QueueClient(target.url, target.spec, q, owner=name) for q in queues]  # each connects at once

    def work() -> dict:
        counts = [0] * len(queues)
        deadline, n = time.monotonic() + seconds, first
        while (now := time.monotonic()) < deadline:
            k = int(now / TURN) % len(queues)
            clients[k].enqueue(**sample_payload(target.spec, queues[k], n))
            counts[k] += 1
            n += 1
        for client in clients:
            client.close()
        return {f"enqueued:{q}": c for q, c in zip(queues, counts)}

    return work


def alternating_producer(target: Target, name: str, signals: Signals, **options: Any) -> None:
    _run_child(_alternating_producer, target, name, signals, **options)


def paced_producer(target: Target, name: str, signals: Signals, **options: Any) -> None:
    _run_child(_paced_producer, target, name, signals, **options)


def waiting_worker(target: Target, name: str, signals: Signals, **options: Any) -> None:
    _run_child(_waiting_worker, target, name, signals, **options)
