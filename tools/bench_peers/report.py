"""The peers bench's summary: medians over rounds, ratios against qgen, and the text and plot of them.

A ratio is the median over rounds of (peer / qgen) taken within each round, so a machine that
drifts between rounds moves both sides of each ratio together. For jobs/s a ratio above 1 means
the peer was faster; for latency, above 1 means the peer was slower.
"""

from __future__ import annotations

import statistics
from pathlib import Path
from typing import Any, Optional

import tools.bench_peers as peers
from qgen.bench.database import BenchError
from qgen.cli.tables import table

BASES = ("qgen-lease", "qgen-delete", "qgen-delete-tx")


def _median(values: list[Optional[float]]) -> Optional[float]:
    values = [v for v in values if v is not None]
    return round(statistics.median(values), 2) if values else None


def _value(run: dict[str, Any], what: str) -> Optional[float]:
    return run["latency_ms"][what] if what in ("p50", "p99") else run["jobs_per_second"]


def summarise(report: dict[str, Any]) -> dict[str, Any]:
    """The report with `summary` (per measure and system: medians, every round's value, verdicts,
    load) and `ratios` (per measure, peer and qgen variant)."""
    cells: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for run in report["runs"]:
        cells.setdefault((run["measure"], run["system"]), []).append(run)
    summary = []
    for (measure, system), runs in cells.items():
        entry = {"measure": measure, "system": system, "rounds": len(runs),
                 "jobs_per_second": _median([r["jobs_per_second"] for r in runs]),
                 "per_round": [r["jobs_per_second"] for r in runs],
                 "verified": all(r.get("exactly_once", r.get("all_stored")) for r in runs),
                 "duplicates": sum(r.get("duplicates", 0) for r in runs), "lost": sum(r.get("lost", 0) for r in runs),
                 "redeliveries": sum(r.get("redeliveries", 0) for r in runs),
                 "load_before": _median([r["load_before"] for r in runs]),
                 "load_after": _median([r["load_after"] for r in runs])}
        if measure == "mixed":
            entry.update(enqueued=_median([r["enqueued"] for r in runs]),
                         p50_ms=_median([r["latency_ms"]["p50"] for r in runs]),
                         p99_ms=_median([r["latency_ms"]["p99"] for r in runs]))
        summary.append(entry)
    return {**report, "summary": summary, "ratios": _ratios(report["runs"])}


def _ratios(runs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    by = {(r["round"], r["measure"], r["system"]): r for r in runs}
    found = []
    for measure in dict.fromkeys(r["measure"] for r in runs):
        for what in (("jobs/s", "p50", "p99") if measure == "mixed" else ("jobs/s",)):
            for peer in peers.PEERS:
                for base in BASES:
                    pairs = [(by[k], by.get((k[0], measure, base))) for k in by if k[1:] == (measure, peer)]
                    values = [_value(p, what) / _value(b, what) for p, b in pairs
                              if b is not None and _value(p, what) and _value(b, what)]
                    if values:
                        found.append({"measure": measure, "what": what, "peer": peer, "base": base,
                                      "ratio": round(statistics.median(values), 5),
                                      "per_round": [round(v, 5) for v in values]})
    return found


def peers_text(report: dict[str, Any]) -> str:
    systems = list(report["systems"])
    summary = {(s["measure"], s["system"]): s for s in report["summary"]}
    measures = list(dict.fromkeys(s["measure"] for s in report["summary"]))
    rounds = report["options"]["rounds"]
    parts = ["Versions: " + ", ".join(f"{k} {v}" for k, v in report["versions"].items() if v),
             f"{report['cpus']} CPUs; load average at start {_load(report['loadavg_start'])}, "
             f"at end {_load(report['loadavg_end'])}",
             "",
             f"Jobs/s, median of {rounds} round(s) (enqueue: jobs stored; drain and mixed: jobs completed)",
             table(["measure"] + systems, [[m] + [_get(summary, m, s, "jobs_per_second") for s in systems]
                                           for m in measures]),
             "",
             "Ratios: median over rounds of peer / qgen within a round (lowest-highest round in brackets); "
             "jobs/s: > 1 the peer is faster; latency: > 1 the peer is slower",
             _ratio_table(report),
             "",
             "Mixed run: 2 producers (one job per call, %g jobs/s offered) and 2 workers at batch 10; latency "
             "from an enqueue's return to its recorded completion (medians over rounds)" % report["options"]["rate"],
             table(["system", "enqueued", "jobs/s", "p50 (ms)", "p99 (ms)"],
                   [[s, _get(summary, "mixed", s, "enqueued"), _get(summary, "mixed", s, "jobs_per_second"),
                     _get(summary, "mixed", s, "p50_ms"),
                     _get(summary, "mixed", s, "p99_ms")] for s in systems if ("mixed", s) in summary]),
             "",
             "1-minute load average before -> after each measurement (medians over rounds)",
             table(["measure"] + systems, [[m] + [_load_cell(summary.get((m, s))) for s in systems]
                                           for m in measures]),
             "",
             _verdict_table(report, summary, measures),
             "",
             "How each system was driven, and what it guarantees:"]
    for name, info in report["systems"].items():
        parts += [f"- {name}: {info['driven']}", f"  guarantee: {info['guarantee']}"]
    return "\n".join(parts)


def _get(summary: dict, measure: str, system: str, key: str) -> Any:
    entry = summary.get((measure, system))
    return entry.get(key) if entry else None


def _load(values: Any) -> str:
    return " / ".join(f"{v:.2f}" for v in values)


def _load_cell(entry: Optional[dict[str, Any]]) -> str:
    return f"{entry['load_before']:.2f} -> {entry['load_after']:.2f}" if entry else "-"


def _ratio_table(report: dict[str, Any]) -> str:
    columns = [(p, b) for p in peers.PEERS for b in BASES
               if any(r["peer"] == p and r["base"] == b for r in report["ratios"])]
    index = {(r["measure"], r["what"], r["peer"], r["base"]): _ratio_cell(r) for r in report["ratios"]}
    rows = list(dict.fromkeys((r["measure"], r["what"]) for r in report["ratios"]))
    return table(["measure"] + [f"{p} / {b}" for p, b in columns],
                 [[m if w == "jobs/s" else f"{m} {w} latency"] + [index.get((m, w, p, b)) for p, b in columns]
                  for m, w in rows])


def _ratio_cell(ratio: dict[str, Any]) -> str:
    """The median ratio to three significant digits, and the range over rounds."""
    values = ratio["per_round"]
    spread = f" ({min(values):.3g}-{max(values):.3g})" if len(values) > 1 else ""
    return f"{ratio['ratio']:.3g}{spread}"


def _verdict_table(report: dict[str, Any], summary: dict, measures: list[str]) -> str:
    rows = []
    for system in report["systems"]:
        entries = [summary[(m, system)] for m in measures if (m, system) in summary]
        checked = [e for e in entries if not e["measure"].startswith("enqueue")]
        rows.append([system, all(e["verified"] for e in entries if e["measure"].startswith("enqueue")),
                     all(e["verified"] for e in checked), sum(e["duplicates"] for e in checked),
                     sum(e["lost"] for e in checked), sum(e["redeliveries"] for e in checked)])
    return ("Ledger verdicts over every run (enqueue: every job enqueued is in the database; drain and mixed: "
            "each job completed once, none lost)\n"
            + table(["system", "enqueue: all stored", "exactly once", "duplicates", "lost", "re-deliveries"], rows))


def plot_ratios(report: dict[str, Any], path: Path) -> None:
    """Bars of peer / qgen (jobs/s) per measure, log scale, one bar per peer and qgen variant."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        raise BenchError("--plot needs matplotlib: pip install 'qgen-queues[bench]'") from None
    ratios = [r for r in report["ratios"] if r["what"] == "jobs/s" and r["base"] != "qgen-delete-tx"]
    measures = list(dict.fromkeys(r["measure"] for r in ratios))
    pairs = list(dict.fromkeys((r["peer"], r["base"]) for r in ratios))
    index = {(r["measure"], r["peer"], r["base"]): r["ratio"] for r in ratios}
    figure, axes = plt.subplots(figsize=(8, 4.5), dpi=110)
    width = 0.8 / max(1, len(pairs))
    for i, (peer, base) in enumerate(pairs):
        axes.bar([x + i * width for x in range(len(measures))], [index.get((m, peer, base), 0) for m in measures],
                 width, label=f"{peer} / {base}")
    axes.axhline(1.0, color="black", linewidth=0.8)
    axes.set_yscale("log")
    axes.set_xticks([x + width * (len(pairs) - 1) / 2 for x in range(len(measures))], measures)
    axes.set_ylabel("jobs/s ratio (peer / qgen; below 1: qgen faster)")
    axes.set_title(f"Peers against qgen, median of {report['options']['rounds']} interleaved rounds")
    axes.grid(True, axis="y", alpha=0.3)
    axes.legend(fontsize=8)
    figure.tight_layout()
    figure.savefig(path)
    plt.close(figure)
