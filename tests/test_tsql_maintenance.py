"""What only a SQL Server can show about the T-SQL maintenance procedures, checked on the rendered
scripts of every spec (no SQL Server runs here; the PostgreSQL side of the same guarantees is shown
live in tests/behaviour/test_purge_batches.py and test_maintain.py), and shown failing on templates
broken on purpose:

- purge and purge_batch delete with DELETE TOP (...) WITH (ROWLOCK, READPAST) only, under a pinned
  READ COMMITTED (READPAST raises error 650 under SERIALIZABLE or SNAPSHOT), and refuse a batch
  size above the queue's cap (qgen/spec/locks.py: page locks of wide rows counted) before any delete, so
  no statement can take enough locks to escalate;
- purge refuses to run inside the caller's transaction (where it could not commit per batch)
  before it deletes anything;
- maintain takes its application lock owned by its transaction with no wait, and reads each step's
  result through exactly the OUTPUT parameters that step declares, never with INSERT ... EXEC (inside
  which a step's ROLLBACK fails with error 3915 and hides the step's own error)."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from qgen.render.engine import render_spec, templates_dir
from qgen.spec.locks import limits
from qgen.spec.load import load_spec
from tests.behaviour.helpers import BEHAVE
from tests.conftest import COVERAGE_SPECS, EXAMPLES

SPECS = EXAMPLES + COVERAGE_SPECS + [BEHAVE]


def _body(text: str) -> str:
    """The procedure's text without comments and string literals."""
    text = re.sub(r"--[^\n]*", "", text)
    return re.sub(r"N?'(?:[^']|'')*'", "''", text)


def maintenance_problems(rendering, spec) -> list[str]:
    by_name = {item.obj.name: item for item in rendering.objects}
    problems = []
    for item in rendering.objects:
        kind, body, where = item.obj.kind, _body(item.create), f"{item.obj.queue}.{item.obj.kind}"
        if kind in ("purge", "purge_batch"):
            deletes = [m.start() for m in re.finditer(r"\bDELETE\b", body)]
            if not deletes:
                continue
            for delete in re.findall(r"\bDELETE\b[^;]*;", body):
                if not re.match(r"DELETE TOP \(@[\w$]+\) FROM \S+ WITH \(ROWLOCK, READPAST, UPDLOCK\)", delete):
                    problems.append(f"{where}: a delete that is not DELETE TOP (@n) ... WITH (ROWLOCK, READPAST, UPDLOCK): {delete[:80]!r}")
            pin = body.find("SET TRANSACTION ISOLATION LEVEL READ COMMITTED")
            if pin < 0 or pin > deletes[0]:
                problems.append(f"{where}: READ COMMITTED is not pinned before the first READPAST delete")
            # Under lock escalation on every table it deletes from, wide rows' page locks counted
            # (qgen/spec/locks.py): for a lease queue's archive or dead letters well under 4000.
            most = limits(spec, item.obj.queue, "mssql").maintenance_max
            cap = body.find(f"@batch_size > {most}\n")
            if cap < 0 or cap > deletes[0]:
                problems.append(f"{where}: @batch_size is not refused above {most} before the first delete")
            if kind == "purge":
                # inside a transaction or with IMPLICIT_TRANSACTIONS ON: the caller's
                guard = re.search(r"IF \(@@TRANCOUNT > 0 OR \(@@OPTIONS & 2\) = 2\)\s+THROW", body)
                if not guard or guard.start() > deletes[0]:
                    problems.append(f"{where}: purge does not refuse to run inside the caller's transaction before deleting")
        if kind == "maintain":
            lock = re.search(r"EXEC @q\$lock = sys\.sp_getapplock(.*?);", body, re.S)
            if not lock or "@LockOwner = ''" not in lock.group(1) or "@LockTimeout = 0" not in lock.group(1):
                problems.append(f"{where}: no sp_getapplock with @LockOwner and @LockTimeout = 0")
            elif "@LockOwner = 'Transaction'" not in re.sub(r"--[^\n]*", "", item.create):
                problems.append(f"{where}: the application lock is not owned by the transaction")
            if not re.search(r"BEGIN TRANSACTION;\s+EXEC @q\$lock", body):
                problems.append(f"{where}: the application lock is not taken first thing in maintain's transaction")
            # INSERT ... EXEC would turn a step's own error into 3915 (its ROLLBACK is not allowed there).
            if re.search(r"INSERT INTO @[\w$]+ \([^)]*\)\s+EXEC", body):
                problems.append(f"{where}: reads a step with INSERT ... EXEC, where the step's ROLLBACK fails with 3915")
            steps = re.findall(r"EXEC \[\w+\]\.\[(\w+)\](.*?);", body, re.S)
            if not steps:
                problems.append(f"{where}: does not run its steps")
            for called, args in steps:
                passed = re.findall(r"@(\w+) = @[\w$]+ OUTPUT", args)
                declared = re.findall(r"@(\w+) \w+ = NULL OUTPUT", _body(by_name[called].create))
                if passed != declared or "@result_set = 0" not in args:
                    problems.append(f"{where}: EXEC {called} reads {passed} with @result_set = 0, "
                                    f"but {called} has OUTPUT {declared}")
    return problems


@pytest.mark.parametrize("path", SPECS, ids=lambda p: p.stem)
def test_maintenance_procedures_hold_on_sql_server(path):
    rendering = render_spec(load_spec(path), path.name, "mssql")
    kinds = {item.obj.kind for item in rendering.objects}
    assert {"purge", "purge_batch", "maintain"} <= kinds
    assert maintenance_problems(rendering, load_spec(path)) == []


BREAKAGES = {
    "no READPAST": ("mssql/macros.sql.j2", "WITH (ROWLOCK, READPAST, UPDLOCK)\n", "WITH (ROWLOCK, UPDLOCK)\n"),
    "unbounded delete": ("mssql/macros.sql.j2", "DELETE TOP ({{ top }}) FROM", "DELETE FROM"),
    "no isolation pin": ("mssql/purge.sql.j2", "{{ m.procedure_start() }}", "SET NOCOUNT, XACT_ABORT ON;"),
    "no cap": ("mssql/macros.sql.j2", "@batch_size > {{ q.limits.maintenance_max }}", "@batch_size > 2147483646"),
    # Before the fix: one cap for every table, 4000 rows, whatever their width.
    "a cap that ignores wide rows": ("mssql/macros.sql.j2", "@batch_size > {{ q.limits.maintenance_max }}",
                                     "@batch_size > {{ maintenance.max_batch_size }}"),
    "purge in a caller's transaction": ("mssql/purge.sql.j2", "IF {{ m.caller_transaction() }}", "IF 1 = 0"),
    "session-owned lock": ("mssql/maintain.sql.j2", "@LockOwner = 'Transaction'", "@LockOwner = 'Session'"),
    # The parameters come from qgen/spec/contract.py through m.parameters: one more after them.
    "reap has another OUTPUT": ("mssql/reap.sql.j2", '{{ m.parameters(q, "reap", notes=notes) }}\n',
                                '{{ m.parameters(q, "reap", notes=notes) }},\n    @at datetime2 = NULL OUTPUT\n'),
    # Before the fix: a step's result read with INSERT ... EXEC (its ROLLBACK then fails with 3915).
    "a step read with INSERT ... EXEC": ("mssql/maintain.sql.j2",
                                         "            EXEC {{ m.qualified(q.names.watermark_correct) }}\n",
                                         "            INSERT INTO @q$t ([a], [b])\n"
                                         "            EXEC {{ m.qualified(q.names.watermark_correct) }}\n"),
}


@pytest.mark.parametrize("breakage", sorted(BREAKAGES))
def test_a_broken_template_is_caught(tmp_path, breakage):
    relative, old, new = BREAKAGES[breakage]
    broken = tmp_path / "templates"
    shutil.copytree(templates_dir(), broken)
    target: Path = broken / relative
    text = target.read_text(encoding="utf-8")
    assert old in text, f"{relative} no longer contains {old!r}: update this test"
    target.write_text(text.replace(old, new), encoding="utf-8")
    path = EXAMPLES[-1]  # 004: a lease queue (reap, dead letters, processed rows) and a delete-on-complete one
    rendering = render_spec(load_spec(path), path.name, "mssql", templates=broken)
    assert maintenance_problems(rendering, load_spec(path)), f"{breakage} went unnoticed"
