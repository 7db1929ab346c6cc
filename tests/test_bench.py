"""qgen bench, end to end on the local PostgreSQL, small enough to be quick: the command installs
the queue in a scratch schema, runs its producer and worker processes, and its report says every
job was done exactly once; it refuses a schema that already holds tables; it leaves nothing behind.
The numbers themselves are not checked here (BENCHMARKS.md has them): only their presence and shape.
"""

from __future__ import annotations

import importlib.util
import json
import os
import shlex
import subprocess
import sys

import psycopg
import pytest

from tests.conftest import ROOT
from tests.support.pg import scratch_database
from tests.support.run import named

# Bench roles are named after the bench's schema, and roles belong to the server: this run's own.
SMOKE, TAKEN, KEPT = named("qgen_bench_smoke"), named("taken"), named("qgen_bench_kept")


@pytest.fixture(scope="module")
def bench_url(postgres_server):
    with scratch_database("qgen_bench_test") as url:
        yield url


def bench(url, *args, schema=SMOKE):
    command = [sys.executable, "-m", "qgen.cli", "bench", "--url", url, "--schema", schema, "--quiet", *args]
    return subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=600)


def leftovers(url, schema):
    with psycopg.connect(url) as conn:
        schemas = conn.execute("SELECT count(*) FROM pg_namespace WHERE nspname = %s", (schema,)).fetchone()[0]
        roles = conn.execute("SELECT count(*) FROM pg_roles WHERE rolname LIKE %s", (schema + "\\_%",)).fetchone()[0]
    return schemas, roles


@pytest.mark.parametrize("spec, extra", [
    ("tests/behaviour/specs/behaviour.yaml", ["--queue", "kept", "--batch", "5"]),  # lease, one call per batch
    ("tests/behaviour/specs/behaviour.yaml", ["--queue", "kept", "--lease-complete", "separate", "--enqueue-batch", "20"]),
    ("examples/004_rainfall.yaml", ["--batch", "5"]),                              # an outbox: job by job
    ("examples/001_watermark.yaml", []),                                           # delete, watermark
], ids=["lease", "lease-separate", "lease-outbox", "delete"])
def test_a_small_run_reports_exactly_once(bench_url, tmp_path, spec, extra):
    out = tmp_path / "bench.json"
    result = bench(bench_url, spec, "--producers", "2", "--workers", "3", "--jobs", "300", "--json", str(out), *extra)
    assert result.returncode == 0, result.stderr
    report = json.loads(out.read_text())
    ledger = report["ledger"]
    assert (ledger["enqueued"], ledger["completed"], ledger["duplicates"], ledger["lost"]) == (300, 300, 0, 0)
    assert ledger["exactly_once"] is True
    assert report["enqueued_per_second"] > 0 and report["completed_per_second"] > 0
    latency = report["claim_latency_ms"]
    assert 0 < latency["p50"] <= latency["p95"] <= latency["p99"]
    assert report["claim_calls"] >= 300 / report["options"]["batch"]
    for line in ("enqueued/s", "completed/s", "claim latency p99 (ms)", "re-deliveries", "deadlock retries"):
        assert line in result.stdout
    assert "| exactly once           | yes" in result.stdout
    assert leftovers(bench_url, SMOKE) == (0, 0), "the scratch schema and its roles are dropped"


@pytest.mark.parametrize("run", [[], ["--experiment", "ghosts"], ["--experiment", "throughput"]],
                         ids=["load", "ghosts", "throughput"])
def test_refuses_a_schema_that_holds_tables_and_keeps_them(bench_url, run):
    with psycopg.connect(bench_url, autocommit=True) as conn:
        conn.execute(f"CREATE SCHEMA IF NOT EXISTS {TAKEN}; CREATE TABLE IF NOT EXISTS {TAKEN}.jobs (id int); "
                     f"TRUNCATE {TAKEN}.jobs; INSERT INTO {TAKEN}.jobs VALUES (1)")
    result = bench(bench_url, "examples/001_watermark.yaml", "--jobs", "10", *run, schema=TAKEN)
    assert result.returncode == 1
    assert f"schema {TAKEN} already holds tables" in result.stderr and "--replace" in result.stderr
    assert "Traceback" not in result.stderr
    with psycopg.connect(bench_url) as conn:
        assert conn.execute(f"SELECT count(*) FROM {TAKEN}.jobs").fetchone()[0] == 1


@pytest.mark.parametrize("made, probe", [
    ("CREATE FUNCTION {s}.answer() RETURNS int LANGUAGE sql AS 'SELECT 42'", "SELECT {s}.answer()"),
    ("CREATE VIEW {s}.answer AS SELECT 42 AS n", "SELECT n FROM {s}.answer"),
    ("CREATE SEQUENCE {s}.answer START 42", "SELECT last_value FROM {s}.answer"),
], ids=["function", "view", "sequence"])
def test_refuses_a_schema_that_holds_anything_even_with_replace(bench_url, made, probe):
    schema = "held_" + made.split()[1].lower()
    with psycopg.connect(bench_url, autocommit=True) as conn:
        conn.execute(f"DROP SCHEMA IF EXISTS {schema} CASCADE; CREATE SCHEMA {schema}; " + made.format(s=schema))
    for extra in ([], ["--replace"]):
        result = bench(bench_url, "examples/001_watermark.yaml", "--jobs", "10", *extra, schema=schema)
        assert result.returncode == 1, result.stdout
        assert f"schema {schema} already holds tables or other objects" in result.stderr
        assert "did not create it" in result.stderr and "Traceback" not in result.stderr
    with psycopg.connect(bench_url) as conn:
        assert conn.execute(probe.format(s=schema)).fetchone()[0] == 42


def test_replace_never_drops_an_empty_schema_bench_did_not_create(bench_url):
    with psycopg.connect(bench_url, autocommit=True) as conn:
        conn.execute("CREATE SCHEMA IF NOT EXISTS theirs")
    result = bench(bench_url, "examples/001_watermark.yaml", "--jobs", "10", "--replace", schema="theirs")
    assert result.returncode == 1 and "schema theirs already exists, and qgen bench did not create it" in result.stderr
    assert leftovers(bench_url, "theirs")[0] == 1


@pytest.mark.parametrize("schema, words", [
    ("x; drop", "--schema 'x; drop': schema: 'x; drop' is not a safe identifier"),
    ("s" * 60, "grants.producer: "),
    ("pg_scratch", "PostgreSQL reserves schema names that start with pg_"),
], ids=["unsafe", "roles too long", "reserved"])
def test_a_schema_the_spec_could_not_have_is_refused_plainly(bench_url, schema, words):
    result = bench(bench_url, "examples/001_watermark.yaml", "--jobs", "10", schema=schema)
    assert result.returncode == 1 and words in result.stderr, result.stderr
    assert "Traceback" not in result.stderr


def test_keep_leaves_the_queue_and_replace_starts_over(bench_url):
    schema = KEPT
    first = bench(bench_url, "examples/001_watermark.yaml", "--jobs", "50", "--keep", schema=schema)
    assert first.returncode == 0, first.stderr
    assert leftovers(bench_url, schema)[0] == 1
    refused = bench(bench_url, "examples/001_watermark.yaml", "--jobs", "50", schema=schema)
    assert refused.returncode == 1
    again = bench(bench_url, "examples/001_watermark.yaml", "--jobs", "50", "--replace", schema=schema)
    assert again.returncode == 0, again.stderr
    assert leftovers(bench_url, schema) == (0, 0)


def test_the_ghost_experiment_reports_each_variant(bench_url, tmp_path):
    out = tmp_path / "ghosts.json"
    result = bench(bench_url, "examples/001_watermark.yaml", "--experiment", "ghosts", "--rows", "200,400",
                   "--variants", "naive,lease-on,delete-on", "--workers", "2", "--json", str(out))
    assert result.returncode == 0, result.stderr
    report = json.loads(out.read_text())
    variants = {v["variant"]: v for v in report["variants"]}
    assert list(variants) == ["naive", "lease, watermark on", "delete, watermark on"]
    for name, variant in variants.items():
        assert [r["rows"] for r in variant["runs"]] == [200, 400]
        for run in variant["runs"]:
            assert run["exactly_once"] and run["completed"] == run["rows"], (name, run)
            assert run["seconds"] > 0 and run["pages_one_claim"] > 0
    lease = variants["lease, watermark on"]["runs"]
    # the abandoned claim expired and was still done: released by the reaper below the watermark,
    # or (PostgreSQL) taken over by a claim that reached it once its lease had run out
    assert all(r["abandoned"] == r["redeliveries"] == 20 and r["reaped"] <= 20 for r in lease)
    assert {t["variant"] for t in report["targets"]} == {"lease, watermark on", "delete, watermark on"}
    assert "pages per claim at end" in result.stdout
    assert leftovers(bench_url, SMOKE) == (0, 0)


def test_bad_arguments_get_a_clear_error(bench_url):
    result = bench(bench_url, "examples/001_watermark.yaml", "--queue", "nope")
    assert result.returncode == 1
    assert "--queue nope: not a queue of 001_watermark.yaml; accepted: testq" in result.stderr
    no_url = subprocess.run([sys.executable, "-m", "qgen.cli", "bench", "examples/001_watermark.yaml"], cwd=ROOT,
                            capture_output=True, text=True, env={k: v for k, v in os.environ.items()
                                                                 if k != "QGEN_DATABASE_URL"})
    assert no_url.returncode == 1 and "pass --url" in no_url.stderr


def test_the_throughput_matrix_measures_qgen_next_to_its_references(bench_url, tmp_path):
    out = tmp_path / "throughput.json"
    result = bench(bench_url, "examples/001_watermark.yaml", "--experiment", "throughput", "--batches", "1",
                   "--seconds", "0.3", "--workers", "2", "--refill-rows", "500", "--json", str(out))
    assert result.returncode == 0, result.stderr
    report = json.loads(out.read_text())
    measured = {m["measure"]: m for m in report["measured"]}
    assert set(measured) == {
        "R1: single-row UPDATE", "plain INSERT", "enqueue (one job per call)", "enqueue_batch (100 jobs per call)",
        "R2(1): naive delete", "delete claim, commits at once (1)", "delete claim in a transaction (1)",
        "lease claim + complete, one call (1)",
        "lease claim, then complete (1)", "drain and refill 500 (lease, 10)"}
    for name, m in measured.items():
        assert m["rows"] > 0 and m["rows_per_second"] > 0, name
        if "exactly_once" in m:  # the drains: every pre-filled job taken once
            assert m["exactly_once"] and m["duplicates"] == m["lost"] == 0, name
    footprint = measured["lease claim + complete, one call (1)"]["footprint"]
    assert footprint["after_drain"]["updates"] >= measured["lease claim + complete, one call (1)"]["rows"]
    cycle = measured["drain and refill 500 (lease, 10)"]["footprint"]
    assert cycle["after_refill"]["total_bytes"] >= cycle["after_fill"]["total_bytes"] > 0
    # a claim is a HOT update: of the drain's updates (claims only: completions delete), every one
    assert cycle["after_drain"]["hot_updates"] == cycle["after_drain"]["updates"] >= 500
    targets = {t["target"]: t for t in report["targets"]}
    assert set(targets) == {"lease claim + complete (1)", "delete claim (1)", "enqueue (single)", "enqueue_batch (100)",
                            "table after drain and refill"}
    assert targets["lease claim + complete (1)"]["reference"] == "R1"
    for t in targets.values():
        assert t["ratio"] == round(t["measured"] / t["reference_rate"], 2)
    assert report["autovacuum"] in ("on", "off") and f"autovacuum on this server: {report['autovacuum']}" in result.stdout
    assert leftovers(bench_url, SMOKE) == (0, 0)


def test_chaos_kills_workers_restarts_the_database_and_the_ledger_still_says_exactly_once(throwaway_postgres, tmp_path):
    """--chaos on a PostgreSQL of the test's own (it is restarted): workers are SIGKILLed and
    replaced, the database restarts once, and the run still ends with a verdict from the ledger."""
    server = throwaway_postgres
    with psycopg.connect(server.url(), autocommit=True) as admin:
        admin.execute("CREATE DATABASE chaos")
    out = tmp_path / "chaos.json"
    restart = shlex.join(server.pg_ctl_command("restart", "fast"))
    result = bench(server.url("chaos"), "examples/004_rainfall.yaml", "--producers", "1", "--workers", "3",
                   "--jobs", "3000", "--batch", "5", "--work-ms", "3", "--chaos", "--chaos-every", "0.7",
                   "--lease", "2", "--chaos-seed", "7", "--chaos-restart-db", restart, "--json", str(out))
    assert result.returncode == 0, result.stdout + result.stderr
    report = json.loads(out.read_text())
    ledger, chaos = report["ledger"], report["chaos"]
    assert (ledger["enqueued"], ledger["completed"], ledger["duplicates"], ledger["lost"]) == (3000, 3000, 0, 0)
    assert ledger["exactly_once"] is True
    killed = [k["worker"] for k in chaos["kills"]]
    assert len(killed) >= 2 and chaos["workers_killed"] == len(killed)
    # every process lost was one the chaos killed (a victim may have finished just before its kill)
    assert set(report["lost_processes"]) <= set(killed) and len(report["lost_processes"]) >= 2
    assert all(c == -9 for c in report["lost_processes"].values())
    held = [k for k in chaos["kills"] if k["orphaned"]]
    assert held, "a killed worker held jobs"
    assert all(k["recovered_after_s"] is not None and k["recovered_after_s"] >= 1 for k in held), held
    assert chaos["recovery_s"]["never"] == 0 and chaos["recovery_s"]["max"] >= chaos["recovery_s"]["median"]
    # Each orphaned job came back (released by the bench's reaper, or taken over by a claim once its
    # lease expired: PostgreSQL claims in place), and was delivered again.
    assert report["redeliveries"] >= sum(k["orphaned"] for k in held)
    restarted = chaos["database_restart"]
    assert restarted["ran"] and restarted["exit_code"] == 0 and server.restarts == 0  # the bench restarted it
    # it restarted under load (jobs were being completed before it), and work went on after it
    assert restarted["at_s"] < report["seconds"] and restarted["completed_per_second_before"] > 0
    assert restarted["first_completion_after_s"] is not None
    for line in ("workers killed (SIGKILL)", "recovery after a kill, max (s)", "database restart (s)"):
        assert line in result.stdout
    assert "| exactly once                          | yes" in result.stdout


def test_the_latency_experiment_measures_polling_and_wakeups(bench_url, tmp_path):
    out, plot = tmp_path / "latency.json", tmp_path / "latency.png"
    plotting = importlib.util.find_spec("matplotlib") is not None  # the bench extra; the test extra lacks it
    result = bench(bench_url, "tests/behaviour/specs/behaviour.yaml", "--queue", "kept", "--experiment", "latency",
                   "--rate", "100", "--workers", "2", "--producers", "1", "--seconds", "1", "--idle-seconds", "1",
                   "--json", str(out), *(["--plot", str(plot)] if plotting else []))
    assert result.returncode == 0, result.stderr
    report = json.loads(out.read_text())
    variants = {v["variant"]: v for v in report["variants"]}
    assert list(variants) == ["polling", "wake-ups"] and variants["wake-ups"]["wakeup"] == "notify"
    for name, v in variants.items():
        assert v["enqueued"] > 0 and v["started"] == v["enqueued"], name  # every job's latency was measured
        lat = v["latency_ms"]
        assert lat["p50"] <= lat["p95"] <= lat["p99"] <= lat["max"] and len(v["latencies_ms"]) == v["started"], name
        assert v["idle"]["seconds"] >= 1 and v["idle"]["client_cpu_s"] is not None, name
        assert v["enqueue_per_second"] > 0, name
    assert {t["target"] for t in report["targets"]} == {
        "wake-ups: p99 enqueue-to-start (ms)", "wake-ups: idle workers, % of one core",
        "NOTIFY's cost to enqueue throughput (%)"}
    for words in ("| polling ", "| wake-ups ", "p99 ms", "idle total %", "enqueue/s"):
        assert words in result.stdout
    assert not plotting or plot.stat().st_size > 0
    assert leftovers(bench_url, SMOKE) == (0, 0)


def test_a_lease_only_throughput_run_measures_the_lease_targets_and_their_references(bench_url, tmp_path):
    out = tmp_path / "throughput.json"
    result = bench(bench_url, "examples/001_watermark.yaml", "--experiment", "throughput", "--batches", "1,10",
                   "--seconds", "0.3", "--workers", "2", "--refill-rows", "0", "--lease-only", "--json", str(out))
    assert result.returncode == 0, result.stderr
    report = json.loads(out.read_text())
    measured = {m["measure"]: m for m in report["measured"]}
    assert list(measured) == ["R1: single-row UPDATE", "R2(1): naive delete", "lease claim + complete, one call (1)",
                              "R2(10): naive delete", "lease claim + complete, one call (10)"]
    for name, m in measured.items():
        assert m["rows"] > 0, name
        if "exactly_once" in m:
            assert m["exactly_once"] and m["duplicates"] == m["lost"] == 0, name
    targets = {t["target"]: t["reference"] for t in report["targets"]}
    assert targets == {"lease claim + complete (1)": "R1", "lease claim + complete (10)": "R2(10)"}
    assert leftovers(bench_url, SMOKE) == (0, 0)


def test_the_comparison_of_interleaved_runs_takes_means_and_ratios_within_each_run(tmp_path):
    from qgen.bench.compare import compare_table, load_runs

    def run(label, number, r1, lease, load):
        measured = [{"measure": "R1: single-row UPDATE", "rows_per_second": r1},
                    {"measure": "lease claim + complete, one call (1)", "rows_per_second": lease}]
        targets = [{"target": "lease claim + complete (1)", "ratio": round(lease / r1, 2), "needed": 0.8}]
        (tmp_path / f"{label}-{number}.json").write_text(json.dumps({"measured": measured, "targets": targets}))
        (tmp_path / f"{label}-{number}.load").write_text(f"{load}\n{load + 1}\n")

    run("before", 1, 1000, 400, 2.0)
    run("before", 2, 500, 200, 3.0)
    run("after", 1, 1000, 600, 2.5)
    run("after", 2, 500, 300, 3.5)
    text = compare_table(load_runs(tmp_path), ["before", "after"])
    lease = next(line for line in text.splitlines() if line.startswith("| lease claim + complete, one call (1)"))
    # means 300 and 450; each run over its R1: 0.4 and 0.6
    assert [c.strip() for c in lease.split("|")[2:6]] == ["400 / 200", "600 / 300", "1.50", "1.50"]
    assert "| after 2 " in text and "0.60" in text and "3.5 / 4.5" in text
    spread = [line for line in text.splitlines() if line.startswith("| R1: single-row UPDATE") and "| before" in line]
    assert len(spread) == 1 and "2.00" in spread[0], text


def test_the_chaos_restart_waits_for_workers_completing_jobs(tmp_path, monkeypatch):
    """The restart comes once the producers are done and a job was completed in the last few seconds
    (30 s at most): at a load of 5 it came before any completion, and the run reported a restart
    under no load (CI: completed_per_second_before 0.0)."""
    import threading
    import time

    from qgen.bench.chaos import Chaos, ChaosOptions

    done = threading.Event()
    chaos = Chaos(ChaosOptions(restart_db="true"), done, lambda owner: set(), str(tmp_path))
    now = time.monotonic()
    assert not chaos._restart_due(now)                       # producers still running
    done.set()
    assert not chaos._restart_due(now)                       # no completion yet
    (tmp_path / "worker-1.completed").write_text(f"7 {now - 10:.3f}\n")
    assert not chaos._restart_due(now)                       # only an old one
    (tmp_path / "worker-1.completed").write_text(f"7 {now - 10:.3f}\n8 {now - 1:.3f}\n")
    assert chaos._restart_due(now)                           # the workers are completing jobs
    idle = Chaos(ChaosOptions(restart_db="true"), done, lambda owner: set(), str(tmp_path / "none"))
    (tmp_path / "none").mkdir()
    assert not idle._restart_due(now) and idle._restart_due(now + Chaos.RATE_WAIT)   # not forever
