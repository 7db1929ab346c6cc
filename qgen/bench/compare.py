"""The table of scripts/bench_compare.sh's runs: `python -m qgen.bench.compare OUT_DIR [BEFORE AFTER]`.

Each run is OUT_DIR/<label>-<round>.json (a throughput report) with OUT_DIR/<label>-<round>.load
(the load averages before and after it). Prints, per measure, every run's rows/s, the mean per
label and the last label's mean over the first's; then, per run, the lease targets' ratios (to R1
and R2(b), taken within the run) and the load averages; then the spread of the references between
runs of one label, which is this machine's noise band.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path
from statistics import mean
from typing import Any

from qgen.cli.tables import table

REFERENCE = "R1: single-row UPDATE"


def load_runs(folder: Path) -> dict[str, dict[int, dict[str, Any]]]:
    runs: dict[str, dict[int, dict[str, Any]]] = {}
    for path in sorted(folder.glob("*.json")):
        found = re.fullmatch(r"(.+)-(\d+)", path.stem)
        if not found:
            continue
        report = json.loads(path.read_text())
        load = path.with_suffix(".load")
        report["load"] = " / ".join(load.read_text().split("\n")[:2]).strip(" /") if load.exists() else "?"
        runs.setdefault(found[1], {})[int(found[2])] = report
    return runs


def compare_table(runs: dict[str, dict[int, dict[str, Any]]], labels: list[str]) -> str:
    measures: list[str] = []
    for label in labels:
        for report in runs[label].values():
            measures += [m["measure"] for m in report["measured"] if m["measure"] not in measures]

    def rate(report: dict[str, Any], measure: str) -> float | None:
        return next((m["rows_per_second"] for m in report["measured"] if m["measure"] == measure), None)

    rows = []
    for measure in measures:
        cells: list[Any] = [measure]
        means = []
        for label in labels:
            values = [rate(r, measure) for _, r in sorted(runs[label].items())]
            cells.append(" / ".join(f"{v:,.0f}" for v in values if v is not None) or "-")
            known = [v for v in values if v is not None]
            means.append(mean(known) if known else None)
        first, last = means[0], means[-1]
        cells.append(f"{last / first:.2f}" if first and last else "-")
        # The same, each run's rate taken over its own R1 first: what the machine's drift between
        # runs (the same for every measure of a run, to a first approximation) does not move.
        relative = []
        for label in labels:
            pairs = [(rate(r, measure), rate(r, REFERENCE)) for r in runs[label].values()]
            known = [v / ref for v, ref in pairs if v and ref]
            relative.append(mean(known) if known else None)
        cells.append(f"{relative[-1] / relative[0]:.2f}" if relative[0] and relative[-1] else "-")
        rows.append(cells)
    text = table(["measure", *(f"{label} (runs)" for label in labels), f"{labels[-1]} / {labels[0]}",
                  "the same, over each run's R1"], rows)
    targets = []
    for label in labels:
        for number, report in sorted(runs[label].items()):
            for check in report["targets"]:
                if check["target"].startswith("lease"):
                    targets.append([f"{label} {number}", check["target"], f"{check['ratio']:.2f}", check["needed"],
                                    report["load"]])
    text += "\n\n" + table(["run", "target", "ratio", "needed", "load average (1, 5, 15 min) before / after"],
                           targets)
    spread = []
    for measure in measures:
        if measure.startswith("R"):
            for label in labels:
                seen = [v for v in (rate(r, measure) for r in runs[label].values()) if v]
                if len(seen) > 1:
                    spread.append([measure, label, f"{max(seen) / min(seen):.2f}"])
    if spread:
        text += "\n\n" + table(["reference", "label", "highest / lowest run"], spread)
    return text


def main(argv: list[str]) -> int:
    folder = Path(argv[0])
    runs = load_runs(folder)
    labels = argv[1:] or sorted(runs)
    print(compare_table(runs, labels))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
