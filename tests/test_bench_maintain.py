"""qgen bench --experiment maintain, small: its report's shape, not its numbers (README.md states
those). The full-reap row shows maintain releasing every expired lease, in batches of 1000."""

from __future__ import annotations

import json

from tests.test_bench import bench, bench_url, leftovers  # noqa: F401  (bench_url is a fixture)


def test_the_maintain_experiment_times_each_situation(bench_url, tmp_path):
    out = tmp_path / "maintain.json"
    result = bench(bench_url, "examples/004_rainfall.yaml", "--experiment", "maintain", "--jobs", "500",
                   "--workers", "2", "--json", str(out), schema="qgen_bench_maintain")
    assert result.returncode == 0, result.stderr
    report = json.loads(out.read_text())
    rows = {m["measure"].split(" (")[0]: m for m in report["measured"]}
    assert list(rows) == ["idle", "skipped", "busy", "full reap"]
    assert rows["skipped"]["skipped"] == rows["skipped"]["calls"] > 0
    assert rows["idle"]["skipped"] == 0 and rows["idle"]["calls"] > 0
    assert rows["full reap"]["released"] == 2000 and rows["full reap"]["calls"] == 2
    for row in rows.values():
        assert 0 < row["ms_p50"] <= row["ms_p95"]
    assert "database time per second per queue" in result.stdout
    assert leftovers(bench_url, "qgen_bench_maintain") == (0, 0)
