"""graphile-worker and pg-boss in the peers bench: Node libraries, driven through their own APIs by
tools/bench_peers/node/peer.mjs (its package.json and package-lock.json pin them; scripts/bench_peers.sh
installs them there with `npm ci`, never into qgen's dependencies).

Each of the bench's children (a producer, a worker, the fill) is a Python child of the same fleet
as every other system's, which starts one Node process and relays: "go" (and, in a mixed run,
"producers_done") on its stdin; its JSON lines on stdout ("ready", "progress" counts for the
progress counters, "done", "error"). The Node process writes the ledger itself, in qgen.bench.procs'
format, stamping with CLOCK_MONOTONIC as Python's time.monotonic does, so verdicts and latencies
are read exactly as for the other systems. Its start-up (Node, the library, its connections)
happens before "ready": it is not measured.

- graphile-worker (schema graphile_worker): WorkerUtils.addJob / addJobs; worker: run() with its
  published fast configuration: a local queue of b jobs per fetch, completeJobBatchDelay and
  failJobBatchDelay 0, concurrentJobs = min(b, 24) (it advises a local queue at least as large as
  the concurrency, and published its numbers with 24), a pool of 10 connections; a completion is recorded
  when its batched DELETE returns. A worker stops once the job table is empty (in a mixed run,
  once the producers are done too), then runner.stop().
- pg-boss (schema pgboss, queue "bench"): send / insert; worker: fetch(name, {batchSize: b}) then
  complete(name, ids), in a loop (work() sleeps 0.5 s at least after every fetch, see peer.mjs).
"""

from __future__ import annotations

import contextlib
import json
import os
import queue
import shutil
import subprocess
import threading
import time
from pathlib import Path
from typing import Any, Callable, Iterator, Optional

from qgen.bench.database import BenchError
from qgen.bench.fleet import Fleet
from qgen.bench.payload import sample_payload
from qgen.bench.procs import Signals, Target, _add, _run_child
from qgen.spec.model import Spec
from tools.bench_peers.system import FILL_CHUNK, Installed, PeerSystem, System, fresh_public_schema

NODE_DIR = Path(__file__).resolve().parent / "node"
SCRIPT = NODE_DIR / "peer.mjs"
POOL_SIZE = 10            # each library's default pool size
IDLE_MS = 500             # pg-boss work()'s minimum polling interval
GRAPHILE_CONCURRENCY = 24  # graphile-worker's concurrentJobs at most: the 24 of its published run
START_TIMEOUT = 120


class NodePeerSystem(PeerSystem):
    """A peer whose library runs in Node: installed by its own API (peer.mjs install) into a schema
    of its own in the scratch database, which is dropped before and after each measurement."""

    schema = ""

    @contextlib.contextmanager
    def installed(self, url: str, spec: Spec, batch: int) -> Iterator[Installed]:
        with fresh_public_schema(url), self._fresh_schema(url):
            node(self.name, "install", url=url)
            yield Installed(spec, lambda: int(node(self.name, "unfinished", url=url)["n"]))

    @contextlib.contextmanager
    def _fresh_schema(self, url: str) -> Iterator[None]:
        import psycopg

        def drop() -> None:
            with psycopg.connect(url, autocommit=True) as conn:
                conn.execute(f'DROP SCHEMA IF EXISTS "{self.schema}" CASCADE')

        drop()
        try:
            yield
        finally:
            drop()

    def start_producer(self, fleet: Fleet, target: Target, name: str, **options: Any) -> None:
        fleet.start(node_producer, name, target, system=self.name, **options)

    def start_worker(self, fleet: Fleet, target: Target, name: str, batch: int, producers_done: Any = None) -> None:
        fleet.start(node_consumer, name, target, system=self.name, batch=batch, producers_done=producers_done)

    def fill(self, target: Target, rows: int) -> list[int]:
        ids_file = os.path.join(target.ledger_dir, "fill.ids")
        node(self.name, "fill", **_common(target, "fill"), rows=rows, chunk=FILL_CHUNK, ids_file=ids_file)
        with open(ids_file) as f:
            ids = [int(line) for line in f if line.strip()]
        os.remove(ids_file)
        return ids


class GraphileWorkerSystem(NodePeerSystem):
    schema = "graphile_worker"
    guarantee = ("at least once: a job is locked by its fetch (into the local queue); a worker that dies "
                 "leaves it locked until the lock expires (4 hours) and then it runs again; batched "
                 "completion widens that window to the batch's delay")
    driven = ("WorkerUtils.addJob / addJobs; worker: run() with localQueue.size = b, completeJobBatchDelay 0, "
              f"failJobBatchDelay 0, concurrentJobs min(b, {GRAPHILE_CONCURRENCY}), pool {POOL_SIZE}; "
              "woken by its NOTIFY")


class PgBossSystem(NodePeerSystem):
    schema = "pgboss"
    guarantee = ("at least once: a fetched job is 'active' until completed; one whose worker dies expires "
                 "(expireInSeconds, 15 min by default) and is retried by pg-boss's supervisor")
    driven = ("PgBoss.send(name, data) / insert([{name, data}]); worker: fetch(name, {batchSize: b}) then "
              f"complete(name, ids) in a loop, {IDLE_MS} ms after an empty fetch (no LISTEN: it polls)")


CLASSES = {"graphile-worker": GraphileWorkerSystem, "pg-boss": PgBossSystem}
PACKAGES = {"graphile-worker": "graphile-worker", "pg-boss": "pg-boss"}


def system(name: str, token: str) -> System:
    return CLASSES[name](name, token)


def missing(name: str) -> list[str]:
    """What system `name` needs that is not here: node, or its package under tools/bench_peers/node."""
    if shutil.which("node") is None:
        return ["node"]
    package = NODE_DIR / "node_modules" / PACKAGES[name] / "package.json"
    return [] if package.is_file() else [f"{PACKAGES[name]} (npm, in {NODE_DIR.name}/node_modules)"]


def versions() -> dict[str, Optional[str]]:
    found: dict[str, Optional[str]] = {}
    for package in ("graphile-worker", "pg-boss", "pg"):
        path = NODE_DIR / "node_modules" / package / "package.json"
        found[package] = json.loads(path.read_text())["version"] if path.is_file() else None
    if shutil.which("node"):
        found["node"] = subprocess.run(["node", "--version"], capture_output=True, text=True).stdout.strip()
    return found


def _common(target: Target, name: str) -> dict[str, Any]:
    """What every Node child needs: where, its ledger, and the payload's shape (checked against qgen's)."""
    sample = sample_payload(target.spec, target.queue, 7)
    if len(sample) != 1 or not isinstance(next(iter(sample.values())), str):
        raise BenchError(f"the Node peers build example 001's payload (one string column); got {sample!r}")
    key, text = next(iter(sample.items()))
    expected = "7".rjust(len(text), "x")
    if text != expected:
        raise BenchError(f"payload of job 7 is {text[:20]!r}..., not the right-aligned filler peer.mjs builds")
    return dict(url=target.url, ledger_dir=target.ledger_dir, name=name, payload_key=key, payload_width=len(text),
                pool_size=POOL_SIZE)


def node(system_name: str, role: str, **config: Any) -> dict[str, Any]:
    """Run peer.mjs to its end (install, fill, unfinished); its last JSON line."""
    result = subprocess.run(["node", str(SCRIPT), json.dumps({"system": system_name, "role": role, **config})],
                            cwd=NODE_DIR, capture_output=True, text=True, timeout=600)
    lines = [json.loads(line) for line in result.stdout.splitlines() if line.startswith("{")]
    if result.returncode != 0 or not lines or lines[-1]["event"] == "error":
        said = lines[-1].get("message") if lines else result.stderr.strip()
        raise BenchError(f"{system_name} {role} failed (node exit {result.returncode}): {said}")
    return lines[-1]


class _NodeChild:
    """One running peer.mjs: its JSON lines, read by a thread into a queue."""

    def __init__(self, config: dict[str, Any]):
        self.process = subprocess.Popen(["node", str(SCRIPT), json.dumps(config)], cwd=NODE_DIR,
                                        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1)
        self.lines: "queue.Queue[Optional[dict[str, Any]]]" = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            if line.startswith("{"):
                self.lines.put(json.loads(line))
        self.lines.put(None)

    def send(self, line: str) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(line + "\n")
        self.process.stdin.flush()

    def until(self, event: str, on_progress: Callable[[dict], None], timeout: float) -> dict[str, Any]:
        deadline = time.monotonic() + timeout
        while True:
            try:
                message = self.lines.get(timeout=max(0.0, deadline - time.monotonic()))
            except queue.Empty:
                self.process.kill()
                raise BenchError(f"node gave no {event!r} within {timeout:.0f} s") from None
            if message is None:
                raise BenchError(f"node exited ({self.process.wait()}) before {event!r}")
            if message["event"] == "error":
                raise BenchError(f"node: {message['message']}")
            if message["event"] == "progress":
                on_progress(message)
            elif message["event"] == event:
                return message


def _node_child(config: dict[str, Any], signals: Signals, done: Any = None,
                producers_done: Any = None) -> Callable[[], dict]:
    """prepare/work for qgen.bench.procs._run_child: start node and wait for its ready; the work
    says go, relays progress to the fleet's counters and (mixed run) the producers' end, and waits
    for done."""
    child = _NodeChild(config)

    def progress(message: dict) -> None:
        for key, counter in (("enqueued", signals.enqueued), ("completed", signals.completed)):
            if message.get(key):
                _add(counter, int(message[key]))

    child.until("ready", progress, START_TIMEOUT)

    def work() -> dict:
        child.send("go")
        if producers_done is not None:
            def relay() -> None:
                while not producers_done.is_set():
                    time.sleep(0.02)
                with contextlib.suppress(OSError):
                    child.send("producers_done")
            threading.Thread(target=relay, daemon=True).start()
        final = child.until("done", progress, 900)
        key = "enqueued" if config["role"] == "produce" else "completed"
        if final.get("progress"):
            progress({key: final["progress"]})
        if done is not None:
            done.set()
        child.process.wait(timeout=60)
        return {k: v for k, v in final.items() if k in ("enqueued", "calls")}

    return work


def _producer(target: Target, name: str, signals: Signals, *, system: str, first: int, batch: int = 1,
              seconds: Optional[float] = None, count: Optional[int] = None, rate: Optional[float] = None,
              done: Any = None) -> Callable[[], dict]:
    config = dict(system=system, role="produce", **_common(target, name), first=first, batch=batch,
                  seconds=seconds, count=count, rate=rate)
    return _node_child(config, signals, done=done)


def _consumer(target: Target, name: str, signals: Signals, *, system: str, batch: int,
              producers_done: Any = None) -> Callable[[], dict]:
    config = dict(system=system, role="consume", **_common(target, name), batch=batch,
                  concurrency=min(batch, GRAPHILE_CONCURRENCY), idle_ms=IDLE_MS, mixed=producers_done is not None)
    return _node_child(config, signals, producers_done=producers_done)


def node_producer(target: Target, name: str, signals: Signals, **options: Any) -> None:
    _run_child(_producer, target, name, signals, **options)


def node_consumer(target: Target, name: str, signals: Signals, **options: Any) -> None:
    _run_child(_consumer, target, name, signals, **options)
