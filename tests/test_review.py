"""The review page (REVIEW.md beside the rendered SQL): golden for every example, kept fresh
by `qgen render --check`, and held to the spec and to the SQL it describes: a changed setting changes
the page, and who may call what is what the rendered grants say."""

from __future__ import annotations

import dataclasses
import re

import pytest

from qgen import dialects
from qgen.cli import main
from qgen.cli.ops import status_row
from qgen.render.engine import render_spec
from qgen.render.review import STATUS_FIELDS, dialect_facts, spec_page
from qgen.spec.load import load_spec, load_spec_text
from tests.conftest import EXAMPLES, ROOT


def page_of(text: str, label: str = "spec.yaml") -> str:
    spec = load_spec_text(text, label)
    return spec_page(spec, label, [render_spec(spec, label, d) for d in spec.dialects])


def section(page: str, queue: str) -> str:
    """The part of the page about one queue (up to the next queue or the next top-level section)."""
    start = page.index(f"## Queue `{queue}`")
    following = [m.start() for m in re.finditer(r"^## ", page[start + 3:], re.M)]
    return page[start:start + 3 + following[0]] if following else page[start:]


def matrix(page: str, dialect_title: str) -> dict[str, tuple[str, str, str]]:
    """procedure -> (producer, consumer, admin) from the page's grants matrix for one dialect."""
    part = page[page.index(f"## Objects on {dialect_title}"):]
    part = part[part.index("### Procedures"):]
    rows = {}
    for line in part.splitlines():
        cells = [c.strip() for c in line.strip("|").split("|")]
        if len(cells) == 6 and cells[0].startswith("`") and cells[3] in ("yes", "no"):
            rows[cells[0].split("`")[1]] = tuple(cells[3:])
        if line.startswith("## ") and rows:
            break
    return rows


@pytest.mark.parametrize("spec_path", EXAMPLES, ids=lambda p: p.stem)
def test_golden_review_page_of_every_example(spec_path):
    spec = load_spec(spec_path)
    page = spec_page(spec, spec_path.name, [render_spec(spec, spec_path.name, d) for d in spec.dialects])
    on_disk = ROOT / "generated" / spec_path.stem / "REVIEW.md"
    assert on_disk.read_text(encoding="utf-8") == page, f"REVIEW.md is stale: run `qgen render examples/{spec_path.name}`"
    # From the page alone: each queue's guarantee in one sentence, and who may call its procedures.
    for name, queue in spec.queues.items():
        guarantee = [line for line in section(page, name).splitlines() if line.startswith("**Guarantee.**")]
        assert len(guarantee) == 1 and guarantee[0].count(". ") == 0, guarantee
        assert guarantee[0].startswith("**Guarantee.** At least once" if queue.claim == "lease" else "**Guarantee.** Exactly once")
    for title in ("SQL Server (T-SQL)", "PostgreSQL"):
        rows = matrix(page, title)
        for name in spec.queues:
            enqueue = spec.queues[name].names.get("enqueue", f"{name}_enqueue")
            dequeue = spec.queues[name].names.get("dequeue", f"{name}_dequeue")
            assert rows[enqueue][0] == "yes" and rows[dequeue][:2] == ("no", "yes"), (title, name)


def test_render_writes_the_page_and_check_keeps_it_fresh(tmp_path, capsys):
    spec = tmp_path / "emails.yaml"
    spec.write_text("queues:\n  emails:\n    payload:\n      address: string(320)\n")
    out = tmp_path / "out"
    assert main(["render", str(spec), "-o", str(out)]) == 0
    page = out / "REVIEW.md"
    assert "## Queue `emails`" in page.read_text()
    assert main(["render", str(spec), "-o", str(out), "--check"]) == 0
    spec.write_text("queues:\n  emails:\n    payload:\n      address: string(320)\n    lease: 7m\n")
    capsys.readouterr()
    assert main(["render", str(spec), "-o", str(out), "--check"]) == 1
    said = capsys.readouterr().out
    assert "REVIEW.md: stale" in said and "+**Guarantee.** At least once: a job is handed to a worker again when its lease (7 min)" in said


def test_a_changed_setting_changes_the_page():
    base = "schema: s\nqueues:\n  mail:\n    payload:\n      address: string(320)\n"
    before = section(page_of(base), "mail")
    assert "its lease (5 min)" in before and "up to 5 claims in all" in before
    assert "10 s, 20 s, 40 s, 80 s before retries" in before
    assert "moved to the dead letters" in before and "Deleted when completed." in before
    assert "Dedupe.** None" in before and "Idle workers poll." in before

    after = section(page_of(base + "    lease: 90s\n    retry: {max_attempts: 3, backoff: {base: 1m, factor: 3, max: 2m}}\n"
                            "    on_complete: archive\n    retention: 2d\n    dedupe: {key: [address], on_duplicate: error}\n"
                            "    wakeup: notify\n    dead_letter: false\n"), "mail")
    assert "its lease (90 s)" in after and "up to 3 claims in all, then it is deleted" in after
    assert "min(2 min, 1 min x 3^(n-1)): 1 min, 2 min before retries" in after
    assert "Moved to `mail_archive`" in after and "archived jobs finished more than 2 days ago" in after
    assert "a key is refused while a job with it is pending or in flight; a duplicate enqueue raises an error" in after
    assert "NOTIFY channel `s.mail_wakeup`" in after
    assert "leased --> [*]: mail_fail on the last attempt (deleted)" in after and "--> dead" not in after

    delete = page_of(base + "    claim: delete\n    on_complete: archive\n")
    assert "Exactly once with the consumer's own transaction" in delete
    assert "pending --> claimed: mail_dequeue deletes it in the caller's transaction" in delete
    assert "claimed --> archived: the caller commits" in delete and "leased" not in section(delete, "mail")
    # Facts that depend on the database: a claim takes over an expired lease only where claims stay
    # in place (PostgreSQL with a watermark), and only SQL Server's dequeue waits for work.
    assert "on PostgreSQL the next claim takes it over itself" in before
    priority = section(page_of(base + "    ordering: priority\n"), "mail")
    assert "takes it over" not in priority and "or the next mail_dequeue" not in priority
    assert "can wait for work" not in page_of("dialects: [postgres]\n" + base)
    # Names the spec overrides are the names the page uses.
    renamed = page_of(base + "    names: {dequeue: GetNextJob}\n")
    assert "pending --> leased: GetNextJob" in renamed and "| `GetNextJob` (function)" in renamed


def test_who_may_call_what_is_read_from_the_rendered_grants():
    """The matrix is the grants script's: a grant the template adds shows up; nothing is kept twice."""
    spec = load_spec(EXAMPLES[4])
    page = spec_page(spec, "x", [render_spec(spec, "x", d) for d in spec.dialects])
    for title in ("PostgreSQL", "SQL Server (T-SQL)"):
        rows = matrix(page, title)
        assert rows["rainfall_events_enqueue"] == ("yes", "no", "yes")
        assert rows["rainfall_events_dequeue"] == ("no", "yes", "yes")
        assert rows["rainfall_events_maintain"] == ("no", "yes", "yes")
        assert rows["rainfall_events_reap"] == ("no", "no", "yes")
        assert rows["rainfall_events_redrive"] == ("no", "no", "yes")

    rendering = render_spec(spec, "x", "postgres")
    extra = 'GRANT EXECUTE ON FUNCTION "rainfall"."rainfall_events_reap" TO "rainfall_producer";\n'
    objects = [dataclasses.replace(item, create=item.create + extra) if item.obj.kind == "grants" else item
               for item in rendering.objects]
    facts = dialect_facts(spec, dataclasses.replace(rendering, objects=objects))
    reap = next(p for p in facts.procedures if p.routine.name == "rainfall_events_reap")
    assert reap.callers == ("rainfall_producer", "rainfall_admin")

    without = page_of("schema: s\ngrants: {enabled: false}\nqueues:\n  q:\n    payload:\n      a: int\n")
    assert "no roles are created and nothing is granted" in without and "| producer |" not in without


@pytest.mark.parametrize("dialect", ["mssql", "postgres"])
@pytest.mark.parametrize("spec_path", EXAMPLES, ids=lambda p: p.stem)
def test_the_page_lists_every_routine_and_index_the_sql_creates(spec_path, dialect):
    """Read back from the scripts, the page's objects are exactly the names the SQL creates (the same
    reading qgen check holds to the databases' limits)."""
    spec = load_spec(spec_path)
    rendering = render_spec(spec, spec_path.name, dialect)
    facts = dialect_facts(spec, rendering)
    created = [name for item in rendering.objects for name in dialects.get(dialect).created_names(item.create)]
    assert {p.routine.name for p in facts.procedures} == {c.name for c in created if c.what in ("procedure", "function")
                                                           and not c.name.endswith("_guard_trigger")}
    assert {i.index.name for i in facts.indexes} >= {c.name for c in created if c.what == "index"}
    for proc in facts.procedures:
        assert all(param.strip() for param in proc.routine.parameters), proc
    # Every index but a primary key names a procedure it serves.
    assert all(i.serves for i in facts.indexes if i.kind.endswith("_index")), facts.indexes


def test_every_procedure_on_a_lifecycle_edge_exists():
    for spec_path in EXAMPLES:
        spec = load_spec(spec_path)
        renderings = [render_spec(spec, spec_path.name, d) for d in spec.dialects]
        page = spec_page(spec, spec_path.name, renderings)
        routines = {p.routine.name for r in renderings for p in dialect_facts(spec, r).procedures}
        for diagram in re.findall(r"```mermaid\n(.*?)```", page, re.S):
            for label in re.findall(r"--> \S+: (.*)", diagram):
                named = [w.strip(",") for w in label.split() if w.strip(",") in routines]
                mentions = [w.strip(",") for w in label.split() if "_" in w and not w.startswith("available")]
                assert set(mentions) <= routines, (spec_path.name, label)
                assert named or "caller" in label or "available_at" in label, (spec_path.name, label)


def test_status_fields_are_what_qgen_status_prints():
    spec = load_spec(EXAMPLES[1])
    row = status_row(spec, "testq", dict.fromkeys(("ready", "scheduled", "in_flight", "expired", "oldest_ready_age_seconds",
                                                  "dead", "completed_last_minute", "archived", "processed", "watermark",
                                                  "watermark_lag", "paused"), 0))
    assert [name for name, _ in STATUS_FIELDS] == [k for k in row if k != "queue"]


# ---------------------------------------------------------------------------------------------
# A revision's page (REVIEW.md in the revision's folder, written by `qgen revision`).

REV1 = """\
schema: s
queues:
  mail:
    payload:
      address: string(320)
    lease: 2m
  sms:
    payload:
      to: string(20)
"""


def revision_pages(tmp_path, *specs: str) -> list[str]:
    """The page of each revision made, in turn, from the specs in an Alembic environment of `qgen init`."""
    from qgen.migrations.writer import make_revision

    assert main(["init", str(tmp_path / "project"), "--no-spec"]) == 0
    pages = []
    for n, text in enumerate(specs):
        path = tmp_path / f"v{n + 1}.yaml"
        path.write_text(text, encoding="utf-8")
        made = make_revision(path, f"step {n + 1}", tmp_path / "project" / "alembic.ini")
        pages.append((made.folder / "REVIEW.md").read_text(encoding="utf-8"))
    return pages


def test_a_revision_page_shows_durations_as_the_spec_writes_them(tmp_path):
    """`lease: 2m -> 3m` reads `2m | 3m`, not `120 | 180` (expire_after, an optional one, alike); a default is shown in the largest whole unit
    (retention 7d); the same time written another way (2m -> 120s) is no change at all."""
    v2 = REV1.replace("lease: 2m", "lease: 3m\n    retention: 36h\n    retry: {backoff: {base: 90}}\n    expire_after: 90m")
    v3 = v2.replace("lease: 3m", "lease: 180s").replace("retention: 36h", "retention: 1d")
    _, second, third = revision_pages(tmp_path, REV1, v2, v3)
    assert "| `queues.mail.lease` | 2m | 3m |" in second
    assert "| `queues.mail.retention` | 7d | 36h |" in second
    assert "| `queues.mail.retry.backoff.base` | 10s | 90 |" in second
    assert "| `queues.mail.expire_after` | none | 90m |" in second, "an optional duration too"
    assert "| `queues.mail.retention` | 36h | 1d |" in third and "queues.mail.lease" not in third


def test_a_revision_page_carries_the_guarantees_of_the_queues_it_changes(tmp_path):
    """What the spec's review page says of a queue (its guarantee, what to schedule and watch) is on the
    revision's page for the queues it changes, in the same words, and only for those."""
    v2 = REV1.replace("lease: 2m", "lease: 3m")
    first, second = revision_pages(tmp_path, REV1, v2)
    spec_side = page_of(v2, "v2.yaml")
    part = second[second.index("## What the queues it changes guarantee"):]
    assert "### Queue `mail`" in part and "`sms" not in part
    mail = section(spec_side, "mail")
    promises = mail[mail.index("**Guarantee.**"):mail.index("### Lifecycle")].strip()
    assert promises in part and "its lease (3 min)" in promises
    assert "### What to schedule\n\nEach queue needs `maintain` to run every few seconds: `mail_maintain`.\n" in part
    watch = spec_side[spec_side.index("`qgen status v2.yaml"):spec_side.index("## Objects on")].strip()
    assert watch in part
    # The first revision installs every queue: the guarantees of each.
    part = first[first.index("## What the queues it changes guarantee"):]
    assert "### Queue `mail`" in part and "### Queue `sms`" in part and "`mail_maintain`, `sms_maintain`" in part
