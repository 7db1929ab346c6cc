"""The peers bench (tools/bench_peers; scripts/bench_peers.sh runs it in full), end to end at tiny
sizes on the local PostgreSQL. The qgen half always runs: every measure, for each qgen variant, with
the report's shape and the ledger's verdict (every job enqueued is stored; every job drained is
completed exactly once). The peer half needs PgQueuer and procrastinate, which are not qgen's
dependencies: it is skipped, saying how to install them, where they are not importable (CI). The
Node peers (graphile-worker, pg-boss) need node and `npm ci` in tools/bench_peers/node: their smoke
test (one small drain each, through the same measure_once as the bench) is skipped without them.
The numbers themselves are not checked here: only their presence and shape.
"""

from __future__ import annotations

import json
import secrets
import subprocess
import sys

import psycopg
import pytest

import tools.bench_peers as peers
from tools.bench_peers.run import PeerOptions, applies, measures
from tests.conftest import ROOT
from tests.support.pg import ADMIN_URL
from tests.support.run import TOKEN

MISSING = peers.missing_packages(peers.PYTHON_PEERS)
MISSING_NODE = peers.missing_packages(peers.NODE_PEERS)


def run_bench(tmp_path, systems):
    out = tmp_path / "peers.json"
    command = [sys.executable, "-m", "tools.bench_peers", "--quick", "--quiet", "--url", ADMIN_URL,
               "--systems", ",".join(systems), "--json", str(out)]
    result = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stderr
    return json.loads(out.read_text()), result.stdout


def check_shape_and_verdicts(report, systems):
    expected = {(m.key, s) for m in measures(PeerOptions.quick()) for s in systems if applies(m, s)}
    assert {(r["measure"], r["system"]) for r in report["runs"]} == expected
    assert set(report["systems"]) == set(systems) and report["versions"]["qgen"]
    for run in report["runs"]:
        assert run["jobs"] > 0 and run["jobs_per_second"] > 0, run
        assert isinstance(run["load_before"], float) and isinstance(run["load_after"], float)
        if run["measure"].startswith("enqueue"):
            assert run["all_stored"] is True and run["left"] == run["jobs"], run
        else:
            assert (run["exactly_once"], run["duplicates"], run["lost"], run["left"]) == (True, 0, 0, 0), run
    for run in (r for r in report["runs"] if r["measure"] == "mixed"):
        assert 0 <= run["latency_ms"]["p50"] <= run["latency_ms"]["p99"]
    assert all(entry["verified"] for entry in report["summary"])
    with psycopg.connect(ADMIN_URL) as conn:  # its scratch databases are gone
        left = conn.execute("SELECT count(*) FROM pg_database WHERE datname LIKE %s",
                            (f"peers\\_%\\_{report['token']}",)).fetchone()[0]
    assert left == 0


def test_qgen_half_of_the_peers_bench_reports_exactly_once(postgres_server, tmp_path):
    report, text = run_bench(tmp_path, peers.QGEN_SYSTEMS)
    check_shape_and_verdicts(report, peers.QGEN_SYSTEMS)
    assert report["ratios"] == []  # nothing to compare qgen with here
    assert "Ledger verdicts" in text and "qgen-delete-tx" in text


@pytest.mark.skipif(bool(MISSING), reason=f"the peer packages are not installed here ({', '.join(MISSING)}): "
                                           f"{peers.INSTALL_HINT}")
def test_peer_half_of_the_peers_bench_reports_ratios(postgres_server, tmp_path):
    systems = ("qgen-lease", "qgen-delete", "pgqueuer", "procrastinate")
    report, text = run_bench(tmp_path, systems)
    check_shape_and_verdicts(report, systems)
    pairs = {(r["measure"], r["what"], r["peer"], r["base"]) for r in report["ratios"]}
    for peer in peers.PYTHON_PEERS:
        assert ("drain-10", "jobs/s", peer, "qgen-lease") in pairs and ("mixed", "p99", peer, "qgen-delete") in pairs
    assert "pgqueuer / qgen-lease" in text


@pytest.mark.skipif(bool(MISSING_NODE), reason=f"the Node peers are not installed here ({', '.join(MISSING_NODE)}): "
                                                f"{peers.INSTALL_HINT}")
@pytest.mark.parametrize("peer", peers.NODE_PEERS)
def test_node_peer_drains_every_job_exactly_once_through_its_own_api(postgres_server, peer):
    """A pre-filled queue (the peer's batch enqueue) drained by two workers at batch 10 (the
    peer's own worker, in Node): the ledger, written by the Node processes, shows every job
    completed once, and the peer's own tables hold nothing unfinished."""
    from tools.bench_peers.run import Measure, PeerOptions, measure_once, scratch_databases
    from tools.bench_peers.run import EXAMPLE
    from qgen.spec.load import load_spec

    token = f"{TOKEN}{secrets.token_hex(2)}"
    system = peers.module(peer).system(peer, token)
    options = PeerOptions(url=ADMIN_URL, rows={10: 300}, processes=2)
    with scratch_databases(ADMIN_URL, [peer], token) as urls:
        run = measure_once(system, urls[peer], load_spec(EXAMPLE), Measure("drain-10", 10, "drain"), options)
    assert (run["jobs"], run["exactly_once"], run["duplicates"], run["lost"], run["unknown"], run["left"]) == \
        (300, True, 0, 0, 0, 0), run


@pytest.mark.skipif(bool(MISSING_NODE), reason=f"the Node peers are not installed here ({', '.join(MISSING_NODE)}): "
                                                f"{peers.INSTALL_HINT}")
def test_node_peer_fill_returns_every_id_of_a_fill_larger_than_a_pipe_buffer(postgres_server, tmp_path):
    """The bench fills 10,000 jobs before a batch-100 drain: their ids (over 64 KB of text) once
    came back on one stdout line that the Node process's exit cut at the pipe's buffer."""
    from tools.bench_peers.run import EXAMPLE, scratch_databases
    from qgen.bench.procs import Target
    from qgen.spec.load import load_spec

    token = f"{TOKEN}{secrets.token_hex(2)}"
    system = peers.module("graphile-worker").system("graphile-worker", token)
    spec = load_spec(EXAMPLE)
    with scratch_databases(ADMIN_URL, ["graphile-worker"], token) as urls, \
            system.installed(urls["graphile-worker"], spec, 100) as installed:
        ids = system.fill(Target(urls["graphile-worker"], spec, "testq", str(tmp_path)), 15_000)
        assert installed.left() == 15_000
    assert len(ids) == len(set(ids)) == 15_000
