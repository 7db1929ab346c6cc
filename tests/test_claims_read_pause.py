"""Every claim path reads the queue's pause row first (issue 29): a claim that skips it would hand out
jobs from a paused queue. Generated over every spec qgen renders (the examples and every case folder's
spec that renders) and both databases: each procedure that claims (dequeue; the SQL Server in-database
worker, whose claim is its own) names the control table; SQL Server's dequeue checks it on every
attempt (after `q$attempt:`, so a waiting dequeue keeps waiting) and skips to its commit. What each
claim path does while paused is tested on both databases in tests/behaviour/test_pause.py."""

from __future__ import annotations

from pathlib import Path

import pytest

from qgen.render.engine import render_spec
from qgen.spec.load import SpecInvalid, load_spec
from qgen.spec.model import object_name
from tests.conftest import EXAMPLES, ROOT

DIALECTS = ("mssql", "postgres")
CLAIMING = ("dequeue", "worker")


def _specs() -> list[Path]:
    specs = list(EXAMPLES) + sorted((ROOT / "tests" / "specs").glob("*.yaml"))
    specs += sorted(p / "spec.yaml" for p in (ROOT / "tests" / "cases").iterdir()
                    if (p / "spec.yaml").exists() and not (p / "error.txt").exists())
    return specs


def _claiming(spec_path: Path, dialect: str):
    try:
        spec = load_spec(spec_path)
    except SpecInvalid:
        return
    rendering = render_spec(spec, spec_path.name, dialect)
    for item in rendering.objects:
        if item.obj.kind in CLAIMING and item.obj.queue:
            yield spec, item


@pytest.mark.parametrize("dialect", DIALECTS)
@pytest.mark.parametrize("spec_path", _specs(), ids=lambda p: p.parent.name if p.name == "spec.yaml" else p.stem)
def test_every_claim_reads_the_pause_row_before_it_takes_a_job(spec_path, dialect):
    for spec, item in _claiming(spec_path, dialect):
        control = object_name(spec, item.obj.queue, "control_table")
        body = item.create
        if dialect == "postgres" and item.obj.kind == "worker":
            assert object_name(spec, item.obj.queue, "dequeue") in body, "PostgreSQL's worker claims through dequeue"
            continue
        assert f"{control}" in body, f"{spec_path}: {item.filename} never reads {control}"
        if dialect == "mssql" and item.obj.kind == "dequeue":
            # Checked once per attempt (a waiting dequeue keeps waiting), and the claim skipped to the commit.
            attempt, check = body.find("q$attempt:"), body.find(f"{control}")
            assert 0 < attempt < check < body.find("GOTO q$paused;") < body.find("q$paused:") < body.rfind("COMMIT TRANSACTION"), \
                f"{spec_path}: {item.filename} does not check the pause row on every attempt before it claims"
