"""The concurrency harness kills a child only once its last report is flushed (Fleet.kill): every child
writes to one results queue under one shared lock, and a child killed between writing its report and
releasing that lock leaves the lock held, so no later report of any child arrives. CI saw it: fresh
workers never reported 'ready' after four victims were killed. A child whose lock release comes a second
late makes the window wide: killed at once, the next report is lost; killed by Fleet.kill, it arrives."""

from __future__ import annotations

import os
import signal

import pytest

from tests.concurrency import procs
from tests.concurrency.harness import Fleet


@pytest.mark.parametrize("kill", ["at once", "Fleet.kill"])
def test_a_report_after_a_killed_child_arrives_only_when_the_kill_waited(kill, tmp_path):
    fleet = Fleet(str(tmp_path))
    try:
        victim = fleet.start(procs.slow_reporter, "victim", None)  # type: ignore[arg-type]
        fleet.start(procs.reporter, "later", None)  # type: ignore[arg-type]
        fleet.wait_for("blocked", 1, timeout=60)
        if kill == "at once":
            fleet.expected_dead.add("victim")
            os.kill(victim.pid, signal.SIGKILL)
        else:
            fleet.kill(victim)
        victim.join(10)
        fleet.go.set()
        if kill == "at once":
            with pytest.raises(AssertionError, match="waited 5s for 1 'ready'"):
                fleet.wait_for("ready", 1, timeout=5)
        else:
            fleet.wait_for("ready", 1, timeout=30)
    finally:
        fleet.close()
