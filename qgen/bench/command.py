"""`qgen bench`: the command's flow (the arguments are declared in qgen/cli/__init__.py)."""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import Any

from qgen.bench.chaos import ChaosOptions
from qgen.bench.database import BenchDatabase, BenchError, scratch_spec
from qgen.bench.load import LoadOptions, run_load
from qgen.bench.report import load_table
from qgen.spec.load import load_spec

URL_ENV = "QGEN_DATABASE_URL"
LOAD_LEASE = 300   # seconds a bench worker's claim holds its jobs
CHAOS_LEASE = 5    # ... under --chaos: a killed worker's jobs come back after about this long


def cmd_bench(args: argparse.Namespace) -> int:
    try:
        return _bench(args)
    except BenchError as exc:
        print(f"qgen bench: {exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("qgen bench: interrupted; the scratch schema was dropped unless --keep", file=sys.stderr)
        return 130


def _bench(args: argparse.Namespace) -> int:
    url = args.url or os.environ.get(URL_ENV)
    if not url:
        raise BenchError(f"no database: pass --url postgresql://USER@HOST:PORT/DATABASE (or set {URL_ENV})")
    if (args.spec is None) == (args.example is None):
        raise BenchError("give a spec: SPEC (a file) or --example NAME (a spec qgen ships), one of them")
    if args.example is not None:
        from qgen.cli.scaffold import UnknownExample, example_path

        try:
            spec_path = example_path(args.example)
        except UnknownExample as exc:
            raise BenchError(str(exc)) from None
    else:
        spec_path = Path(args.spec)
    spec = load_spec(spec_path)
    queue = args.queue or next(iter(spec.queues))
    if queue not in spec.queues:
        raise BenchError(f"--queue {queue}: not a queue of {spec_path.name}; accepted: {', '.join(spec.queues)}")
    db = BenchDatabase(url)
    if db.dialect not in spec.dialects:
        raise BenchError(f"{spec_path.name} renders for {', '.join(spec.dialects)}, not {db.dialect}")
    stream = None if args.quiet else sys.stderr
    scratch_spec(spec, args.schema)  # a --schema the spec could not have is refused before anything runs
    # Before anything is installed: the experiments re-install their schema between runs.
    db.claim_schema(args.schema, args.replace)
    if args.experiment == "ghosts":
        from qgen.bench.ghosts import GhostOptions, ghost_table, run_ghosts

        report = run_ghosts(db, spec, queue, GhostOptions(
            rows=tuple(args.rows), workers=args.workers, schema=args.schema, keep=args.keep, replace=args.replace,
            variants=tuple(args.variants) if args.variants else None), stream)
        text = ghost_table(report)
    elif args.experiment == "maintain":
        from qgen.bench.maintain_cost import MaintainCostOptions, maintain_table, run_maintain_cost

        report = run_maintain_cost(db, spec, queue, MaintainCostOptions(
            workers=args.workers, rows=args.jobs, schema=args.schema, keep=args.keep, replace=args.replace), stream)
        text = maintain_table(report)
    elif args.experiment == "latency":
        from qgen.bench.latency import LatencyOptions, latency_table, run_latency

        report = run_latency(db, spec, queue, LatencyOptions(
            rate=args.rate, workers=args.workers, producers=args.producers, seconds=args.seconds,
            idle_seconds=args.idle_seconds, batch=args.batch or spec.queues[queue].batch_size, schema=args.schema,
            keep=args.keep), stream)
        text = latency_table(report)
    elif args.experiment == "claim-cost":
        from qgen.bench.claim_cost import ClaimCostOptions, claim_cost_table, run_claim_cost

        report = run_claim_cost(db, spec, queue, ClaimCostOptions(
            sizes=tuple(args.sizes), batches=tuple(args.batches or (1, 10)), modes=tuple(args.modes),
            factors=tuple(args.factors) if args.factors else None, schema=args.schema, keep=args.keep,
            replace=args.replace), stream)
        text = claim_cost_table(report)
    elif args.experiment == "throughput":
        from qgen.bench.throughput import ThroughputOptions, run_throughput, throughput_table

        report = run_throughput(db, spec, queue, ThroughputOptions(
            workers=args.workers, batches=tuple(args.batches or (1, 10, 100)), seconds=args.seconds, schema=args.schema,
            keep=args.keep, replace=args.replace, refill_rows=args.refill_rows, lease_only=args.lease_only), stream)
        text = throughput_table(report)
    else:
        chaos = None
        if args.chaos or args.chaos_restart_db:
            chaos = ChaosOptions(every=args.chaos_every, restart_db=args.chaos_restart_db, seed=args.chaos_seed)
        lease = args.lease if args.lease is not None else (CHAOS_LEASE if chaos else LOAD_LEASE)
        options = LoadOptions(producers=args.producers, workers=args.workers, jobs=args.jobs,
                              batch=args.batch or spec.queues[queue].batch_size,
                              enqueue_batch=args.enqueue_batch, lease_complete=args.lease_complete,
                              lease=lease, reap_every=args.reap_every, work_ms=args.work_ms, chaos=chaos)
        bench_spec = scratch_spec(spec, args.schema)
        with db.scratch(bench_spec, spec_path.name, queue, keep=args.keep, replace=args.replace):
            report = run_load(db, bench_spec, queue, options, stream)
        text = load_table(report)
        if args.keep:
            text += f"\n\nkept schema {bench_spec.schema} (drop it with: qgen bench ... --replace, or DROP SCHEMA)"
    print(text)
    if args.json:
        Path(args.json).write_text(json.dumps(report, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    if args.plot:
        from qgen.bench.plot import plot_report

        plot_report(report, Path(args.plot))
    return 0 if _exactly_once(report) else 3


def _exactly_once(report: Any) -> bool:
    """Every ledger verdict in the report held (a run that lost or duplicated a job exits 3)."""
    if isinstance(report, dict):
        if "exactly_once" in report and report["exactly_once"] is False:
            return False
        return all(_exactly_once(v) for v in report.values())
    if isinstance(report, list):
        return all(_exactly_once(v) for v in report)
    return True


def add_arguments(bench: argparse.ArgumentParser) -> None:
    bench.add_argument("spec", nargs="?", help="the spec file (YAML); or --example NAME")
    bench.add_argument("--example", metavar="NAME", help="measure an example spec qgen ships (e.g. 004_rainfall; "
                       "qgen init --help lists them) instead of a file")
    bench.add_argument("--url", help=f"the database (default: ${URL_ENV}), e.g. postgresql://postgres@127.0.0.1:5432/test")
    bench.add_argument("--queue", help="which queue of the spec (default: the first)")
    bench.add_argument("--producers", type=int, default=2, help="producer processes (default 2)")
    bench.add_argument("--workers", type=int, default=4, help="worker processes (default 4)")
    bench.add_argument("--jobs", type=int, default=20_000, help="jobs to enqueue and drain (default 20,000)")
    bench.add_argument("--batch", type=int, help="claim batch size (default: the queue's batch_size)")
    bench.add_argument("--enqueue-batch", type=int, default=1,
                       help="jobs per enqueue call: 1 uses enqueue, more use enqueue_many (default 1)")
    bench.add_argument("--lease-complete", choices=("with-claim", "separate"), default="with-claim",
                       help="lease mode: complete a batch with the next claim (one call) or in a call of its own (a queue with an outbox completes job by job)")
    bench.add_argument("--lease", type=int, metavar="SECONDS",
                       help=f"lease mode: how long a worker's claim holds its jobs (default {LOAD_LEASE}; "
                       f"{CHAOS_LEASE} with --chaos)")
    bench.add_argument("--work-ms", type=float, default=0.0, metavar="MS",
                       help="the time a worker spends on each job it claimed, as a handler would, while it holds "
                       "the job (default 0: claim and complete only)")
    bench.add_argument("--chaos", action="store_true",
                       help="SIGKILL a random worker every --chaos-every seconds and start a replacement; the ledger "
                       "still gives the verdict, and the report says how long recovery took")
    bench.add_argument("--chaos-every", type=float, default=5.0, metavar="SECONDS",
                       help="--chaos: seconds between kills (default 5)")
    bench.add_argument("--chaos-restart-db", metavar="COMMAND",
                       help="also restart the database once, with this shell command, when the producers are done and "
                       "the workers are completing jobs "
                       "(only for a database you own, e.g. 'sudo pg_ctlcluster 15 main restart'); implies --chaos")
    bench.add_argument("--chaos-seed", type=int, help="--chaos: seed for the choice of victims")
    bench.add_argument("--reap-every", type=float, default=1.0, metavar="SECONDS",
                       help="seconds between the bench reaper's calls to reap, when it runs (with --chaos, or once "
                       "a worker died) (default 1)")
    bench.add_argument("--schema", default="qgen_bench", help="the scratch schema (default qgen_bench)")
    bench.add_argument("--keep", action="store_true", help="keep the scratch schema afterwards")
    bench.add_argument("--replace", action="store_true",
                       help="start over in a scratch schema an earlier bench kept (never one bench did not create)")
    bench.add_argument("--json", metavar="FILE", help="also write the results as JSON")
    bench.add_argument("--quiet", action="store_true", help="no progress bar")
    bench.add_argument("--experiment", choices=("ghosts", "throughput", "maintain", "latency", "claim-cost"),
                       help="ghosts: a drain under a held snapshot; throughput: the targets' matrix; "
                       "maintain: what the built-in maintenance costs per call (idle, skipped, busy, full reap); "
                       "latency: enqueue-to-start latency and idle workers' CPU, polling against wake-ups, and "
                       "what NOTIFY costs enqueue; claim-cost: buffers and time per claim as delayed, backed-off, "
                       "burned-id, lagging-type, in-flight and unvacuumed rows grow behind it")
    bench.add_argument("--rows", type=_int_list, default=[30_000, 60_000],
                       help="ghosts: queue sizes to drain, comma-separated (default 30000,60000)")
    bench.add_argument("--variants", type=lambda s: s.split(","), help="ghosts: which variants (default all)")
    bench.add_argument("--batches", type=_int_list,
                       help="throughput: claim batch sizes (default 1,10,100); claim-cost: (default 1,10)")
    bench.add_argument("--sizes", type=_count_list, default=[0, 1_000, 10_000, 100_000],
                       help="claim-cost: rows of each factor behind the claims, comma-separated (default "
                       "0,1000,10000,100000)")
    bench.add_argument("--factors", type=lambda s: s.split(","),
                       help="claim-cost: which factors (delayed, backed-off, burned, lagging, in-flight, unvacuumed, "
                       "priority; default all)")
    bench.add_argument("--modes", type=lambda s: s.split(","), default=["lease", "delete"],
                       help="claim-cost: claim modes (default lease,delete)")
    bench.add_argument("--seconds", type=float, default=5.0,
                       help="throughput: about how long each measurement runs; latency: how long the producer "
                       "enqueues, and the enqueue-cost run lasts (default 5)")
    bench.add_argument("--rate", type=float, default=500.0,
                       help="latency: jobs per second the producer enqueues, one per call (default 500)")
    bench.add_argument("--idle-seconds", type=float, default=5.0,
                       help="latency: how long the idle workers' CPU is measured, with no producer (default 5)")
    bench.add_argument("--refill-rows", type=_count, default=100_000,
                       help="throughput: jobs in the drain-and-refill cycle that measures table growth "
                       "(default 100000; 0 skips it)")
    bench.add_argument("--lease-only", action="store_true",
                       help="throughput: only R1, R2(b) and the lease claim + complete in one call, per batch size "
                       "(the lease targets; what scripts/bench_compare.sh runs before and after a change)")
    bench.add_argument("--plot", metavar="PNG", help="ghosts: plot drain time against rows; latency: the latency "
                       "distributions; claim-cost: buffers per claim against rows behind it (needs matplotlib)")
    bench.set_defaults(func=cmd_bench)


def _count(text: str) -> int:
    try:
        value = int(text.replace("_", ""))
    except ValueError:
        value = -1
    if value < 0:
        raise argparse.ArgumentTypeError(f"{text!r}: accepted: a whole number, 0 or more")
    return value


def _count_list(text: str) -> list[int]:
    values = [_count(v) for v in text.split(",") if v.strip()]
    if not values:
        raise argparse.ArgumentTypeError(f"{text!r}: accepted: whole numbers, 0 or more, separated by commas")
    return values


def _int_list(text: str) -> list[int]:
    try:
        values = [int(v.replace("_", "")) for v in text.split(",") if v.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r}: accepted: whole numbers separated by commas") from None
    if not values or min(values) < 1:
        raise argparse.ArgumentTypeError(f"{text!r}: accepted: whole numbers of at least 1, separated by commas")
    return values
