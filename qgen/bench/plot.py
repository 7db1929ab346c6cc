"""--plot (needs matplotlib): drain time against rows for each variant of the ghost experiment; the
latency distributions of the latency experiment (qgen/bench/latency.py)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from qgen.bench.database import BenchError


def plot_report(report: dict[str, Any], path: Path) -> None:
    if report.get("experiment") not in ("ghosts", "latency", "claim-cost"):
        raise BenchError("--plot draws the ghost, latency and claim-cost experiments "
                         "(--experiment ghosts | latency | claim-cost)")
    try:
        import matplotlib

        matplotlib.use("Agg")  # a file, no display
        import matplotlib.pyplot as plt
    except ImportError:
        raise BenchError("--plot needs matplotlib: pip install 'qgen-queues[bench]'") from None
    if report["experiment"] == "claim-cost":
        from qgen.bench.claim_cost import plot_claim_cost

        plot_claim_cost(report, path, plt)
        return
    if report["experiment"] == "latency":
        from qgen.bench.latency import plot_latency

        plot_latency(report, path, plt)
        return
    figure, axes = plt.subplots(figsize=(7, 4.5), dpi=110)
    for variant in report["variants"]:
        runs = variant["runs"]
        axes.plot([0] + [r["rows"] for r in runs], [0] + [r["seconds"] for r in runs], marker="o",
                  label=variant["variant"], linestyle="--" if not variant["watermark"] else "-")
    axes.set_xlabel("rows drained (one job per claim, %d workers)" % report["workers"])
    axes.set_ylabel("drain time (s)")
    axes.set_title("Draining a queue while a long reader holds a snapshot")
    axes.grid(True, alpha=0.3)
    axes.legend()
    figure.tight_layout()
    figure.savefig(path)
    plt.close(figure)
