"""python -m tools.bench_peers: qgen next to PgQueuer and procrastinate (scripts/bench_peers.sh runs it
from a venv of its own that holds the peers)."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import tools.bench_peers as peers
from qgen.bench.database import BenchError


def parse(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m tools.bench_peers", description=__doc__)
    parser.add_argument("--url", default="postgresql://postgres@127.0.0.1:5432/postgres",
                        help="maintenance database: each system's scratch database is created (and dropped) from it")
    parser.add_argument("--rounds", type=int, help="rounds; every system runs every measure once a round (3)")
    parser.add_argument("--seconds", type=float, help="each enqueue measurement's length (5); the mixed run's "
                        "producers run twice as long")
    parser.add_argument("--rate", type=float, help="the mixed run's offered load, jobs/s for both producers (500)")
    parser.add_argument("--rows", help="drain sizes per batch, e.g. 1:2000,10:5000,100:10000")
    parser.add_argument("--systems", default=",".join(peers.SYSTEMS),
                        help=f"comma-separated, from: {', '.join(peers.SYSTEMS)}")
    parser.add_argument("--quick", action="store_true", help="tiny sizes and one round (unless --rounds): a smoke test")
    parser.add_argument("--json", type=Path, help="write the report here")
    parser.add_argument("--plot", type=Path, help="draw the ratios here (needs matplotlib)")
    parser.add_argument("--quiet", action="store_true", help="no line per measurement on stderr")
    return parser.parse_args(argv)


def options_from(args: argparse.Namespace):
    from tools.bench_peers.run import PeerOptions

    given = {}
    if args.rounds is not None:
        given["rounds"] = args.rounds
    if args.seconds is not None:
        given.update(seconds=args.seconds, mixed_seconds=2 * args.seconds)
    if args.rate is not None:
        given["rate"] = args.rate
    if args.rows:
        try:
            given["rows"] = {int(b): int(n) for b, n in (part.split(":") for part in args.rows.split(","))}
        except ValueError:
            raise BenchError(f"--rows {args.rows!r}: expected BATCH:ROWS,..., e.g. 1:2000,10:5000,100:10000") from None
    given["systems"] = tuple(s.strip() for s in args.systems.split(",") if s.strip())
    unknown = [s for s in given["systems"] if s not in peers.SYSTEMS]
    if unknown:
        raise BenchError(f"--systems: unknown {', '.join(unknown)}; accepted: {', '.join(peers.SYSTEMS)}")
    return PeerOptions.quick(url=args.url, **given) if args.quick else PeerOptions(url=args.url, **given)


def main(argv: list[str]) -> int:
    args = parse(argv)
    try:
        from tools.bench_peers.report import peers_text, summarise
        from tools.bench_peers.run import run_peers

        report = summarise(run_peers(options_from(args), None if args.quiet else sys.stderr))
        print(peers_text(report))
        if args.json:
            args.json.write_text(json.dumps(report, indent=2) + "\n")
        if args.plot:
            from tools.bench_peers.report import plot_ratios

            plot_ratios(report, args.plot)
    except BenchError as exc:
        print(f"qgen peers bench: {exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("qgen peers bench: interrupted; its scratch databases were dropped", file=sys.stderr)
        return 130
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
