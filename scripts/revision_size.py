"""How big a `qgen revision` is for three typical spec changes of a two-queue spec.

Makes, in a scratch Alembic environment (qgen init), revision 1 from BASE and revision 2 from each
change, and prints the files and lines revision 2 writes (its module and its folder), how many
scripts its upgrade and downgrade run, and how many of them belong to the queue the change leaves
alone. Writes nothing in the checkout; needs no database.

    .venv/bin/python scripts/revision_size.py

Measured on this machine, revision 2's module plus folder:

    change                            before (1a3bb3f)        after
    add a nullable column to mail     353 files, 10625 lines   34 files (9.6%), 1702 lines (16.0%)
    change mail's lease and retries   345 files, 10506 lines   12 files (3.5%), 1008 lines (9.6%)
    add a queue (push)                439 files, 13221 lines  104 files (23.7%), 3379 lines (25.6%)

Before, every revision wrote and ran every object of both queues (73-99 scripts per direction and
dialect, 70 of them the unchanged queue's); after, the unchanged queue has no file and no script.
"""

from __future__ import annotations

import json
import sys
import tempfile
from pathlib import Path

from qgen.cli import main as qgen_main
from qgen.migrations.writer import make_revision

BASE = """\
schema: shop
queues:
  mail:
    payload:
      address: string(320)
      subject: string(200)
    lease: 5m
  sms:
    payload:
      phone: string(20)
    lease: 2m
"""

CHANGES = {
    "add a nullable column to mail": (BASE.replace("      subject: string(200)\n",
                                                   "      subject: string(200)\n      note: {type: text, nullable: true}\n"),
                                      "sms"),
    "change mail's lease and retries": (BASE.replace("    lease: 5m\n", "    lease: 10m\n    retry: {max_attempts: 8}\n"), "sms"),
    "add a queue (push)": (BASE + "  push:\n    payload:\n      device: string(100)\n", None),
}


def measure(label: str, changed: str, untouched: str | None) -> dict:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        assert qgen_main(["init", str(root / "project"), "--no-spec"]) == 0
        ini = root / "project" / "alembic.ini"
        (root / "v1.yaml").write_text(BASE, encoding="utf-8")
        (root / "v2.yaml").write_text(changed, encoding="utf-8")
        make_revision(root / "v1.yaml", "v1", ini)
        made = make_revision(root / "v2.yaml", "v2", ini)
        files = [made.path] + [p for p in made.folder.rglob("*") if p.is_file()]
        lines = sum(len(p.read_text(encoding="utf-8").splitlines()) for p in files)
        manifest = json.loads((made.folder / "manifest.json").read_text(encoding="utf-8"))
        scripts = {d: (len(m["upgrade"]), len(m["downgrade"])) for d, m in manifest["dialects"].items()}
        stem = f"_{untouched}_" if untouched else None
        touching = sum(1 for d in manifest["dialects"].values() for step in d["upgrade"] if stem and stem in step)
        files_of_untouched = sum(1 for p in files if stem and stem in p.name)
        return {"change": label, "files": len(files), "lines": lines, "scripts": scripts,
                "untouched_queue_scripts": touching, "untouched_queue_files": files_of_untouched}


def main() -> int:
    print(f"{'change':36} {'files':>6} {'lines':>7}  upgrade/downgrade scripts per dialect   unchanged queue: files, scripts")
    for label, (text, untouched) in CHANGES.items():
        row = measure(label, text, untouched)
        scripts = ", ".join(f"{d} {u}/{dn}" for d, (u, dn) in row["scripts"].items())
        print(f"{row['change']:36} {row['files']:>6} {row['lines']:>7}  {scripts:38} "
              f"{row['untouched_queue_files'] if untouched else '-'}, {row['untouched_queue_scripts'] if untouched else '-'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
