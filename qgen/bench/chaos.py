"""`qgen bench --chaos`: kill a random worker every few seconds and start another in its place, and,
when asked, restart the database once; then say how long the queue took to recover.

The verdict still comes from the ledger (fleet.verdict): a killed worker's ledger holds every line
it wrote before it died; the jobs it had claimed and not completed come back when their lease
expires and the bench's reaper (a process of its own, calling the queue's reap procedure every
`reap_every` seconds) releases them, and another worker completes them; the jobs its last call was
completing are in doubt and resolved against the queue afterwards.

Recovery, per kill: the time from the kill until every job the killed worker held was completed by
another worker; it is about the lease plus one reap interval. Which jobs it held is asked of the
queue table half a second after the kill (the rows leased under its owner name: its last claim may
have committed after the ledger line it never wrote), not guessed from the ledger. In delete mode
a killed worker's transaction rolls back: it holds nothing.
The database restart (`restart_db`, a shell command run once the producers are done, so that no
enqueue is in flight: an enqueue without a dedupe key whose commit was lost cannot be retried, and
the ledger could not tell whether it committed; and once a job was completed in the three seconds
before, waiting 30 s at most for one, so that it restarts under load): how long the command took, the time from its start
to the first completion after it, and until the completion rate was back to half its rate in the
three seconds before the restart.
"""

from __future__ import annotations

import bisect
import random
import statistics
import subprocess
import threading
import time
from dataclasses import dataclass
from typing import Any, Callable, Optional

from qgen.bench.fleet import Fleet, ledger_lines


@dataclass(frozen=True)
class ChaosOptions:
    every: float = 5.0                # seconds between kills
    restart_db: Optional[str] = None  # a shell command that restarts the database, run once
    seed: Optional[int] = None        # for the choice of victims


class Chaos:
    """Called between the fleet's polls (Fleet.run's tick): kills, replacements, the restart."""

    LOOK_AFTER = 0.5  # seconds after a kill before asking what the victim held (its last call lands)

    RATE_WINDOW = 3.0    # seconds before the restart whose completion rate the report compares with
    RATE_WAIT = 30.0     # how long the restart waits for a completion in that window once the producers are done

    def __init__(self, options: ChaosOptions, producers_done: Any, held_by: Callable[[str], set[int]],
                 ledger: Optional[str] = None):
        self.options = options
        self.ledger = ledger
        self._producers_done_at: Optional[float] = None
        self.producers_done = producers_done
        self.held_by = held_by
        self.rng = random.Random(options.seed)
        self.kills: list[dict[str, Any]] = []
        self.restart: Optional[dict[str, Any]] = None
        self._next: Optional[float] = None
        self._thread: Optional[threading.Thread] = None

    def tick(self, fleet: Fleet) -> None:
        now = time.monotonic()
        if self._next is None:
            self._next = now + self.options.every
        # Once a worker found the queue drained, the run is ending: killing more would only wait for leases.
        for kill in self.kills:
            if "held" not in kill and now >= kill["at"] + self.LOOK_AFTER:
                kill["held"] = self.held_by(kill["worker"])
        finishing = any(name.startswith("worker-") for name in fleet.done)
        if not finishing and now >= self._next:
            alive = fleet.alive("worker")
            if alive:
                victim = self.rng.choice(sorted(alive))
                at = fleet.kill(victim)
                self.kills.append({"worker": victim, "at": at, "replacement": fleet.replace(victim)})
            self._next = now + self.options.every
        if self.options.restart_db and self._thread is None and self._restart_due(now):
            self._thread = threading.Thread(target=self._restart, name="qgen-bench-restart-db", daemon=True)
            self._thread.start()

    def _restart_due(self, now: float) -> bool:
        """Once the producers are done, and the workers are completing jobs (a completion in the last
        RATE_WINDOW seconds): a restart before any completion (a loaded machine, workers still
        starting) would measure a recovery from nothing. Waits at most RATE_WAIT seconds for that."""
        if not self.producers_done.is_set():
            return False
        if self._producers_done_at is None:
            self._producers_done_at = now
        if self.ledger is None or now - self._producers_done_at >= self.RATE_WAIT:
            return True
        return any(at is not None and at >= now - self.RATE_WINDOW for _, _, at in ledger_lines(self.ledger, "completed"))

    def _restart(self) -> None:
        began = time.monotonic()
        try:
            result = subprocess.run(self.options.restart_db, shell=True, capture_output=True, text=True, timeout=300)
            code, output = result.returncode, (result.stdout + result.stderr)[-2000:]
        except subprocess.TimeoutExpired:
            code, output = None, "timed out after 300 s"
        self.restart = {"command": self.options.restart_db, "began": began, "ended": time.monotonic(),
                        "exit_code": code, "output": output.strip()}

    def finish(self, timeout: float = 300) -> None:
        """Wait for a restart still running (the run ended before it did); look up what the last
        victims held."""
        if self._thread is not None:
            self._thread.join(timeout)
        for kill in self.kills:
            kill.setdefault("held", self.held_by(kill["worker"]))


def recovery(folder: str, chaos: Chaos, started: float, resolved: set[int]) -> dict[str, Any]:
    """What the kills and the restart cost, from the ledger's stamped completions."""
    completions: dict[int, list[tuple[str, float]]] = {}
    stamps: list[float] = []
    for writer, job, at in ledger_lines(folder, "completed"):
        if at is not None:
            completions.setdefault(job, []).append((writer, at))
            stamps.append(at)
    stamps.sort()
    kills = []
    for kill in chaos.kills:
        victim, at = kill["worker"], kill["at"]
        orphans = kill["held"] - resolved
        # when another worker completed each job the victim held (None: nobody did)
        finished = [min((t for w, t in completions.get(j, []) if w != victim), default=None) for j in orphans]
        if not orphans:
            recovered: Optional[float] = 0.0
        elif None in finished:
            recovered = None
        else:
            recovered = round(max(0.0, max(finished) - at), 3)  # type: ignore[type-var]
        kills.append({"worker": victim, "replacement": kill["replacement"], "at_s": round(at - started, 3),
                      "orphaned": len(orphans), "recovered_after_s": recovered})
    times = [k["recovered_after_s"] for k in kills if k["orphaned"] and k["recovered_after_s"] is not None]
    report: dict[str, Any] = {
        "kill_every_s": chaos.options.every,
        "workers_killed": len(kills),
        "replacements_started": len(kills),
        "kills": kills,
        "recovery_s": {"median": round(statistics.median(times), 3) if times else None,
                       "max": round(max(times), 3) if times else None,
                       "never": sum(1 for k in kills if k["orphaned"] and k["recovered_after_s"] is None)},
        "database_restart": None,
    }
    if chaos.restart is not None:
        report["database_restart"] = _restart_report(chaos.restart, stamps, started)
    elif chaos.options.restart_db:
        report["database_restart"] = {"command": chaos.options.restart_db, "ran": False}
    return report


def _restart_report(restart: dict[str, Any], stamps: list[float], started: float) -> dict[str, Any]:
    began, ended = restart["began"], restart["ended"]
    before = [t for t in stamps if began - Chaos.RATE_WINDOW <= t < began]
    rate = len(before) / Chaos.RATE_WINDOW
    after = [t for t in stamps if t >= ended]
    first = after[0] - began if after else None
    back = None
    if rate > 0:
        for i, t in enumerate(after):  # the first second after the restart with half the rate before
            if bisect.bisect_left(after, t + 1.0) - i >= rate / 2:
                back = t - began
                break
    return {"command": restart["command"], "ran": True, "exit_code": restart["exit_code"],
            "at_s": round(began - started, 3), "seconds": round(ended - began, 3),
            "first_completion_after_s": None if first is None else round(first, 3),
            "throughput_back_after_s": None if back is None else round(back, 3),
            "completed_per_second_before": round(rate, 1),
            "output": restart["output"] if restart["exit_code"] != 0 else ""}
