"""qgen next to the queues users already know: PgQueuer and procrastinate, on the same PostgreSQL
server, payload and process counts (`python -m tools.bench_peers`, or scripts/bench_peers.sh).

Each system is one module behind the same small interface (tools/bench_peers/system.py):
- qgen_system: qgen itself, three ways (lease, delete claims that commit at once, delete claims
  inside a transaction), through qgen.bench.procs' own workers;
- pgqueuer_system, procrastinate_system: each peer through its own public API;
- node_system: graphile-worker and pg-boss, Node libraries driven through their own APIs by
  tools/bench_peers/node/peer.mjs (installed there by `npm ci`).
The peers are not qgen's dependencies: their modules import them only when a run asks for that
system, so `import tools.bench_peers` works without them (the test suite runs the qgen half).
"""

from __future__ import annotations

import importlib
from typing import Any

from qgen.bench.database import BenchError

# name -> (module, what it needs installed: Python packages, or "node:<npm package>")
SYSTEMS: dict[str, tuple[str, tuple[str, ...]]] = {
    "qgen-lease": ("tools.bench_peers.qgen_system", ()),
    "qgen-delete": ("tools.bench_peers.qgen_system", ()),
    "qgen-delete-tx": ("tools.bench_peers.qgen_system", ()),
    "pgqueuer": ("tools.bench_peers.pgqueuer_system", ("pgqueuer", "asyncpg")),
    "procrastinate": ("tools.bench_peers.procrastinate_system", ("procrastinate", "psycopg_pool")),
    "graphile-worker": ("tools.bench_peers.node_system", ("node:graphile-worker",)),
    "pg-boss": ("tools.bench_peers.node_system", ("node:pg-boss",)),
}
QGEN_SYSTEMS = ("qgen-lease", "qgen-delete", "qgen-delete-tx")
PYTHON_PEERS = ("pgqueuer", "procrastinate")
NODE_PEERS = ("graphile-worker", "pg-boss")
PEERS = PYTHON_PEERS + NODE_PEERS
INSTALL_HINT = ("bash scripts/bench_peers.sh creates .venv-peers with them and runs npm ci in "
                "tools/bench_peers/node; or: pip install pgqueuer procrastinate asyncpg 'psycopg[binary,pool]' "
                "and (Node 20) cd tools/bench_peers/node && npm ci")


def missing_packages(names: tuple[str, ...] = PEERS) -> list[str]:
    """The packages the given systems need that cannot be imported here."""
    missing = []
    for name in names:
        for package in SYSTEMS[name][1]:
            if package.startswith("node:"):
                from tools.bench_peers.node_system import missing as node_missing

                missing += node_missing(name)
                continue
            try:
                importlib.import_module(package)
            except ImportError:
                missing.append(package)
    return sorted(set(missing))


def module(name: str) -> Any:
    """The module that drives system `name` (imports its library)."""
    if name not in SYSTEMS:
        raise BenchError(f"no system {name!r}; accepted: {', '.join(SYSTEMS)}")
    missing = missing_packages((name,))
    if missing:
        raise BenchError(f"{name} needs {', '.join(missing)}, not installed here: {INSTALL_HINT}")
    return importlib.import_module(SYSTEMS[name][0])
