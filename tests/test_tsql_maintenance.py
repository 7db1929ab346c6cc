"""What only a SQL Server can show about the T-SQL maintenance procedures, checked on the rendered
scripts of every spec (no SQL Server runs here; the PostgreSQL side of the same guarantees is shown
live in tests/behaviour/test_purge_batches.py and test_maintain.py), and shown failing on templates
broken on purpose:

- purge and purge_batch delete with DELETE TOP (...) WITH (ROWLOCK, READPAST) only, under a pinned
  READ COMMITTED (READPAST raises error 650 under SERIALIZABLE or SNAPSHOT), and refuse a batch
  size above the queue's cap (qgen/locks.py: page locks of wide rows counted) before any delete, so
  no statement can take enough locks to escalate;
- purge refuses to run inside the caller's transaction (where it could not commit per batch)
  before it deletes anything;
- maintain takes its application lock owned by its transaction with no wait, and every
  INSERT ... EXEC it reads a step's result with names exactly the columns that step's procedure
  returns last (a mismatch fails only at run time on SQL Server, error 213)."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from qgen.render import render_spec, templates_dir
from qgen.locks import limits
from qgen.specload import load_spec
from tests.behaviour.helpers import BEHAVE
from tests.conftest import COVERAGE_SPECS, EXAMPLES

SPECS = EXAMPLES + COVERAGE_SPECS + [BEHAVE]


def _body(text: str) -> str:
    """The procedure's text without comments and string literals."""
    text = re.sub(r"--[^\n]*", "", text)
    return re.sub(r"N?'(?:[^']|'')*'", "''", text)


def _returned_columns(text: str) -> list[str]:
    """The column names of the last result set a procedure returns (its last SELECT ... AS [x], ...;)."""
    selects = re.findall(r"\bSELECT\b((?:(?!\bSELECT\b).)*?);", _body(text), re.S)
    with_aliases = [s for s in selects if re.search(r"\bAS \[\w+\]", s) and "FROM" not in s]
    return re.findall(r"\bAS \[(\w+)\]", with_aliases[-1]) if with_aliases else []


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
            # (qgen/locks.py): for a lease queue's archive or dead letters well under 4000.
            most = limits(spec, item.obj.queue, "mssql").maintenance_max
            cap = body.find(f"@batch_size > {most}\n")
            if cap < 0 or cap > deletes[0]:
                problems.append(f"{where}: @batch_size is not refused above {most} before the first delete")
            if kind == "purge":
                guard = re.search(r"IF @@TRANCOUNT > 0\s+THROW", body)
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
            for columns, called in re.findall(r"INSERT INTO @[\w$]+ \(([^)]*)\)\s+EXEC \[\w+\]\.\[(\w+)\]", body):
                wanted = re.findall(r"\[(\w+)\]", columns)
                returned = _returned_columns(by_name[called].create)
                if wanted != returned:
                    problems.append(f"{where}: INSERT ... EXEC {called} takes {wanted}, but {called} returns {returned}")
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
    # Before issue 15: one cap for every table, 4000 rows, whatever their width.
    "a cap that ignores wide rows": ("mssql/macros.sql.j2", "@batch_size > {{ q.limits.maintenance_max }}",
                                     "@batch_size > {{ maintenance.max_batch_size }}"),
    "purge in a caller's transaction": ("mssql/purge.sql.j2", "IF @@TRANCOUNT > 0", "IF 1 = 0"),
    "session-owned lock": ("mssql/maintain.sql.j2", "@LockOwner = 'Transaction'", "@LockOwner = 'Session'"),
    "reap returns another column": ("mssql/reap.sql.j2", "@q$dead_lettered AS [dead_lettered];",
                                    "@q$dead_lettered AS [dead_lettered], @q$now AS [at];"),
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
