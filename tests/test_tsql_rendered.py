"""Every T-SQL script qgen renders passes the three gates: Microsoft's parser (SQL Server 2017
level), sqlfluff's tsql dialect with no unparsable section, and qgen's own checks. A template
broken on purpose must fail them, so the gate is known to bite."""

from __future__ import annotations

import functools
import re
import shutil

import pytest

from qgen import dialects
from qgen.render.engine import render_spec, templates_dir
from qgen.spec.load import load_spec
from qgen.spec.catalog import ROUTINE_KINDS
from qgen.spec.model import MAX_WAIT_MS, WAIT_STEP_MS, object_name
from tests.conftest import COVERAGE_SPECS, EXAMPLES, require
from tools.tsql_gate.gate import (ParserUnavailable, check_scripts, deploy_findings, ensure_parser, own_findings,
                                     sqlfluff_findings)

pytestmark = pytest.mark.tsql_gate
SPECS = EXAMPLES + COVERAGE_SPECS


@pytest.fixture(scope="module")
def parser() -> None:
    try:
        ensure_parser()
    except ParserUnavailable as exc:
        require(f"Microsoft T-SQL parser unavailable (tools/tsql_parser/build.sh): {exc}")


def rendered(spec_path, templates=None) -> dict[str, str]:
    rendering = render_spec(load_spec(spec_path), spec_path.name, "mssql", templates)
    return {f"{spec_path.stem}/{name}": text for name, text in rendering.files().items()}


@pytest.mark.parametrize("spec_path", SPECS, ids=lambda p: p.stem)
def test_rendered_tsql_passes_every_gate(parser, spec_path):
    spec = load_spec(spec_path)
    scripts = rendered(spec_path)
    findings = check_scripts(scripts)
    problems = [str(f) for found in findings.values() for f in found]
    if spec.sqlserver_version >= 2019:
        # The parser knows SQL Server 2017; the one 2019 option qgen emits is all it may reject.
        assert all("OPTIMIZE_FOR_SEQUENTIAL_KEY" in p for p in problems if "[sqlparser]" in p), problems
        problems = [p for p in problems if "[sqlparser]" not in p]
        assert any("OPTIMIZE_FOR_SEQUENTIAL_KEY = ON" in text for text in scripts.values())
    assert not problems, "\n".join(problems)


def test_default_output_targets_2017_without_newer_syntax():
    scripts = rendered(EXAMPLES[0])
    assert not any("OPTIMIZE_FOR_SEQUENTIAL_KEY" in text for text in scripts.values())


def test_each_module_is_alone_in_its_batch_and_every_batch_ends_with_go():
    for spec_path in SPECS:
        for name, text in rendered(spec_path).items():
            body = "\n".join(line for line in text.splitlines() if not line.startswith("--")).strip()
            if body:
                assert body.endswith("\nGO") or body == "GO", f"{name} does not end its batch with GO"


# The claim as qgen wrote it before the fix: the hints cover only the derived table, the rows changed
# are read through a second, unhinted reference.
JOIN_CLAIM = """{% macro mssql__claim(q, top, by_job_type=false, from=none) -%}
DELETE [job]
        OUTPUT {{ m.kept_columns(q, "deleted.") }}
        INTO @claimed ({{ m.kept_columns(q) }})
        FROM {{ m.qualified(q.names.table) }} AS [job]
        INNER JOIN
        (
            SELECT TOP ({{ top }}) [id]
            FROM {{ m.qualified(q.names.table) }} WITH (ROWLOCK, READPAST, UPDLOCK)
            ORDER BY {{ m.queue_order(q) }}
        ) AS [next_job] ON [next_job].[id] = [job].[id]
        OPTION (OPTIMIZE FOR ({{ top }} = 1));
{%- endmacro %}
"""


@pytest.mark.parametrize("spec_path", SPECS, ids=lambda p: p.stem)
def test_qgen_check_sees_every_name_the_tsql_creates(spec_path):
    """qgen/render/names.py holds the names it collects to SQL Server's limit and to each other: every
    CREATE and every named CONSTRAINT of the rendered T-SQL must be among them."""
    for item in render_spec(load_spec(spec_path), spec_path.name, "mssql").objects:
        code = "\n".join(line for line in item.create.splitlines() if not line.lstrip().startswith("--"))
        creates = re.findall(r"\bCREATE\s+(?:OR\s+ALTER\s+)?(?!SCHEMA\b)\w+", code) + re.findall(r"\bCONSTRAINT\s+\[", code)
        assert len(dialects.get("mssql").created_names(item.create)) == len(creates), (item.filename, creates)


BREAKAGES = {
    # template, what to replace, with what, the gate that must catch it, words of its finding
    "syntax error": ("dequeue.sql.j2", "        ORDER BY {{ m.queue_order(q) }};\n    END TRY",
                     "        ORDER BY {{ m.queue_order(q) }} WHERE;\n    END TRY", "sqlparser", "Incorrect syntax"),
    "CTE without a semicolon": (
        "peek.sql.j2", "    SELECT TOP (@limit)",
        "    DECLARE @n int = 1\n    WITH [c] AS (SELECT 1 AS [x]) SELECT [x] FROM [c];\n    SELECT TOP (@limit)",
        "own", ";",
    ),
    "two procedures in one batch": ("metrics.sql.j2", "{% block drop %}", "{% block drop %}", "own", "GO batch"),
    "unparsable for sqlfluff": ("purge.sql.j2", " AS [archived], ", " AS AS [archived], ",
                                "sqlfluff", "unparsable"),
    # qgen's semantic rules (tools/tsql_gate/rules.py), one defect each
    "READPAST without READ COMMITTED pinned": ("dequeue.sql.j2", "    {{ m.procedure_start() }}\n", "", "own", "error 650"),
    "claim through a second reference": ("macros.sql.j2", "{#- Complete the lease-mode jobs",
                                         JOIN_CLAIM + "{#- Complete the lease-mode jobs", "own", "do not cover"),
    "OUTPUT without INTO": ("enqueue.sql.j2", "OUTPUT inserted.[id] INTO @q$new ([id])", "OUTPUT inserted.[id]",
                            "own", "error 334"),
    "TOP (@batch_size) without a pinned plan": ("macros.sql.j2", "        OPTION (OPTIMIZE FOR ({{ top }} = 1));", "",
                                                "own", "sniffed"),
    "READPAST read of row versions": ("watermark_move.sql.j2", "WITH (READCOMMITTEDLOCK, READPAST)", "WITH (READPAST)",
                                      "own", "READ_COMMITTED_SNAPSHOT", 4),  # 004: a lease queue's mover
    "a variable used but not declared": ("worker.sql.j2", "FROM @q$claimed;", "FROM @claimed;", "own", "error 137", 0),
    # No worker's path waits on the watermark row; the watermark is not raised past a held row;
    # maintain's applock is not public's (the templates as they were before the fix)
    "a release that waits on the watermark row": (
        "macros.sql.j2", "            FROM {{ m.qualified(q.names.watermark_table) }} AS [w] WITH (ROWLOCK, READPAST, UPDLOCK)",
        "            FROM {{ m.qualified(q.names.watermark_table) }} AS [w]", "own", "watermark wait", 0),
    "a correction that waits on the watermark row": (
        "watermark_correct.sql.j2", "SELECT @q$old = [id] FROM {{ w }} WITH (ROWLOCK, READPAST, UPDLOCK);",
        "SELECT @q$old = [id] FROM {{ w }} WITH (UPDLOCK, HOLDLOCK, ROWLOCK);", "own", "blind watermark", 0),
    "a correction blind to claims in open transactions": (
        "watermark_correct.sql.j2", "[settled] WITH (READCOMMITTEDLOCK, READPAST)", "[settled] WITH (READCOMMITTEDLOCK)",
        "own", "still there", 0),
    "maintain's applock taken as public": ("maintain.sql.j2", ", @DbPrincipal = @q$principal;", ";", "own",
                                          "applock principal"),
    # deployment rules (tools/tsql_gate/gate.py, deploy_findings)
    "a procedure that leaves a session option to the caller": (
        "purge.sql.j2", "    {{ m.procedure_start() }}\n",
        "    SET NOCOUNT, XACT_ABORT ON;\n    SET TRANSACTION ISOLATION LEVEL READ COMMITTED;\n",
        "own", "ANSI_WARNINGS ON", 2),
    # The procedures as they were (enqueue escaped a caller with implicit transactions)
    "a procedure that switches implicit transactions off": (
        "macros.sql.j2", "SET NOCOUNT, XACT_ABORT ON;\n    SET TRANSACTION", "SET NOCOUNT, XACT_ABORT ON;\n    SET IMPLICIT_TRANSACTIONS OFF;\n    SET TRANSACTION",
        "own", "caller transaction: a procedure sets IMPLICIT_TRANSACTIONS"),
    "a caller's transaction read from @@TRANCOUNT alone": (
        "purge.sql.j2", "    IF {{ m.caller_transaction() }}\n", "    IF @@TRANCOUNT > 0\n",
        "own", "caller transaction: @@TRANCOUNT alone", 2),
    "a session option not set": ("script.sql.j2", "QUOTED_IDENTIFIER, ", "", "own", "QUOTED_IDENTIFIER ON"),
    "the session options in the batch of a CREATE": ("script.sql.j2", "{{ batch }}", "", "own", "in a GO batch before this one"),
    "a filtered index without its filter column": ("macros.sql.j2", '+ (["lease_token"] if q.lease else [])', "",
                                                   "own", "filters on LEASE_TOKEN but", 4),
    "a CREATE that fails when run twice": ("lease_index.sql.j2", "IF NOT EXISTS (SELECT 1 FROM sys.indexes WHERE name = N'{{ q.names.lease_index }}'",
                                           "IF 1 = 1 OR EXISTS (SELECT 1 FROM sys.indexes WHERE name = N'{{ q.names.lease_index }}'",
                                           "own", "CREATE NONCLUSTERED is not guarded", 4),
    # The old reap sought the lease index and looked the rows up (index key, then row);
    # complete, fail and extend take the row by its id, then the lease index's key: deadlock 1205
    "a reap that takes the lease index's key before the job's row": (
        "reap.sql.j2", "WITH (ROWLOCK, READPAST, UPDLOCK, INDEX(1), FORCESEEK)\n            WHERE [id] IN (SELECT [id] FROM @q$expired)\n              AND [lease_token] IS NOT NULL AND [lease_expires_at] < @q$now AND [attempts] <",
        "WITH (ROWLOCK, READPAST, UPDLOCK)\n            WHERE [lease_token] IS NOT NULL AND [lease_expires_at] < @q$now AND [attempts] <",
        "own", "lock order: rainfall_events_reap keeps rainfall_events.rainfall_events_lease_ix", 4),
    # The old fail wrote its dead letter by OUTPUT ... INTO the dead-letter table
    "dead letters written by OUTPUT INTO the permanent table": (
        "fail.sql.j2", "        INTO @q$dead ({{ m.kept_columns(q) }})",
        "        INTO {{ m.qualified(q.names.dead_letter_table) }} ({{ m.kept_columns(q) }})", "own",
        "OUTPUT ... INTO a permanent table (rainfall.rainfall_events_dead)", 4),
    "an extend of a whole lease by its token through the lease index": (
        "extend_lease.sql.j2", "WHERE [id] IN (SELECT [id] FROM @q$held) AND [lease_token] = @lease_token;",
        "WHERE [lease_token] = @lease_token;", "own", "lock order", 4),
    "a dequeue that waits inside its claim's transaction": (
        "dequeue.sql.j2", "        COMMIT TRANSACTION;\n        {{ m.wait_for_work(q) }}",
        "        {{ m.wait_for_work(q) }}\n        COMMIT TRANSACTION;", "own", "WAITFOR inside a transaction", 4),
}


@pytest.mark.parametrize("breakage", BREAKAGES)
def test_a_broken_template_fails_the_gate(parser, tmp_path, breakage):
    template, old, new, gate, words, *example = BREAKAGES[breakage]
    broken = tmp_path / "templates"
    shutil.copytree(templates_dir(), broken)
    path = broken / "mssql" / template
    text = path.read_text()
    if breakage == "two procedures in one batch":
        # drop the batch separator after the procedure, so the next object's CREATE shares its batch
        text = text.replace("END;\n{{ batch }}\n{% endblock %}", "END;\n{% endblock %}", 1)
    else:
        assert old in text
        text = text.replace(old, new, 1)
    path.write_text(text)

    spec_path = EXAMPLES[example[0] if example else 1]
    files = rendered(spec_path, broken)
    install = files[f"{spec_path.stem}/install.sql"]
    if breakage == "the session options in the batch of a CREATE":
        # install.sql creates its first object batches after the SET; each object's own file does not
        install = files[f"{spec_path.stem}/02_testq_table.sql"]
    if gate == "own":
        findings = own_findings(install, "install.sql") + deploy_findings(install, "install.sql")
    elif gate == "sqlfluff":
        findings = sqlfluff_findings(install, "install.sql")
    else:
        findings = check_scripts({"install.sql": install})["install.sql"]
        findings = [f for f in findings if f.gate == gate]
    assert findings, f"the {gate} gate let a broken {template} through"
    assert any(words in f.message for f in findings), [str(f) for f in findings]
    # the finding points into the broken object, not somewhere else
    lines = install.splitlines()
    first = findings[0]
    assert 1 <= first.line <= len(lines)
    assert clean_install_findings(spec_path) == ()


@functools.lru_cache(maxsize=None)
def clean_install_findings(spec_path) -> tuple:
    """Every gate over the example's unbroken install.sql: once per example, not once per breakage
    (sqlfluff over a whole install takes seconds, and 20-odd breakages share five examples)."""
    clean = rendered(spec_path)[f"{spec_path.stem}/install.sql"]
    return tuple(check_scripts({"install.sql": clean})["install.sql"])


def test_every_file_begins_with_the_session_options():
    """install.sql, uninstall.sql and each object's file: the SET batch comes before anything else
    (after the header comments), so a file run on its own from any client creates its objects right."""
    def code(text: str) -> str:
        return "".join(line for line in text.splitlines(keepends=True) if not line.startswith("--"))

    session = code(render_spec(load_spec(EXAMPLES[0]), "x", "mssql").session)
    assert session.startswith("SET ANSI_NULLS, QUOTED_IDENTIFIER") and session.endswith("GO\n")
    for spec_path in SPECS:
        for name, text in rendered(spec_path).items():
            assert code(text).startswith(session), name


def test_uninstall_refuses_before_it_drops_anything_and_drops_only_what_install_made():
    """SQL Server's uninstall.sql: its first batch refuses (RAISERROR, then NOEXEC ON so that sqlcmd
    and SSMS, which go on after an error, run nothing more) while a table holds rows, unless the
    session set qgen.force_uninstall; its last batch sets NOEXEC OFF. It drops a role or the schema
    only when install recorded creating it, and a role only without members."""
    split_batches = dialects.get("mssql").split_batches

    for spec_path in SPECS:
        spec = load_spec(spec_path)
        rendering = render_spec(spec, spec_path.name, "mssql")
        batches = [b for b in split_batches(rendering.uninstall) if any(
            line.strip() and not line.lstrip().startswith("--") for line in b.splitlines())]
        guard = batches[1]
        assert batches[0].rstrip().endswith("SET NUMERIC_ROUNDABORT OFF;"), "the session batch comes first"
        assert "SESSION_CONTEXT(N'qgen.force_uninstall')" in guard and "RAISERROR" in guard and "SET NOEXEC ON" in guard
        tables = [o.name for o in rendering.objects if o.obj.kind in ("table", "dead_letter_table", "archive_table", "outbox_table")
                  for o in [o.obj]]
        # The check and the drops see the same rows: one transaction, begun before the check, whose
        # exclusive table locks hold until the COMMIT after the last drop.
        assert all(f"FROM [{spec.schema}].[{t}] WITH (TABLOCKX, HOLDLOCK)" in guard for t in tables), spec_path.name
        begin, first_check = guard.index("BEGIN TRANSACTION;"), guard.index("IF OBJECT_ID(")
        assert guard.index("SET XACT_ABORT ON;") < begin < first_check
        assert guard.index("ROLLBACK TRANSACTION;") < guard.index("RAISERROR")
        assert "COMMIT" not in "".join(batches[1:-3]) and "BEGIN TRAN" not in "".join(batches[2:])
        assert batches[-3].rstrip().endswith("IF @@TRANCOUNT > 0\n    COMMIT TRANSACTION;"), \
            "the batch after the last drop commits the check's transaction"
        # then the Agent job schedule.sql made goes (after the COMMIT: a login that may not, fails there only)
        assert "EXEC msdb.dbo.sp_delete_job @job_name = @q$job;" in batches[-2]
        assert f"N''qgen maintain '' + DB_NAME() + N''.{spec.schema}''" in batches[-2]
        assert batches[-1].strip().endswith("SET NOEXEC OFF;")
        assert "sp_set_session_context @key = N'qgen.force_uninstall', @value = 1" in rendering.force_uninstall
        roles = next(b for b in batches if "DROP ROLE" in b)
        lines = [line.strip() for line in roles.splitlines()]
        assert sum(line.startswith("DROP ROLE [") for line in lines) == 3
        assert sum(line.startswith("IF EXISTS (SELECT 1 FROM sys.extended_properties") and "qgen.created_role." in line
                   for line in lines) == 3
        assert roles.count("sys.database_role_members") == 3 and roles.count("sp_dropextendedproperty") == 3
        schema = batches[-4]
        assert "DROP SCHEMA" in schema and "N'qgen.created'" in schema and "sys.objects" in schema


@pytest.mark.parametrize("spec_path", SPECS, ids=lambda p: p.stem)
def test_install_ends_by_checking_that_every_object_exists(spec_path):
    """sqlcmd without -b goes on after a batch that failed (a procedure that does not compile, an
    OPENJSON under compatibility level 130): verify, install's last batch, must then fail naming
    what is missing. Every table, view, procedure, type and index of the catalog is checked."""
    rendering = render_spec(load_spec(spec_path), spec_path.name, "mssql")
    verify = next(item for item in rendering.objects if item.obj.kind == "verify").create
    checked = set(re.findall(r"SET @q\$missing \+= N' [^.]+\.([^']+)';", verify))
    made = {item.obj.name for item in rendering.objects if item.obj.queue}
    assert made and checked == made, sorted(made ^ checked)
    assert "THROW 50020, @q$absent" in verify


@pytest.mark.parametrize("spec_path", SPECS, ids=lambda p: p.stem)
def test_install_refuses_a_schema_owned_by_a_role_before_any_batch_that_creates(spec_path):
    """maintain runs WITH EXECUTE AS OWNER, which cannot impersonate a role: install refuses (50022) a
    schema whose owner is not a user, in its first batch after the session's, before anything is made.
    sqlcmd without -b and SSMS go on after an error: the next batch sets NOEXEC ON on the same
    condition, so no later batch runs, and verify, install's last batch, sets it OFF again. (Babelfish
    ignores NOEXEC, B7: this order is what shows it; tests/test_tsql_install.py runs the refusal.)"""
    split_batches = dialects.get("mssql").split_batches

    rendering = render_spec(load_spec(spec_path), spec_path.name, "mssql")
    batches = split_batches(rendering.install)
    refusal, stop, create = batches[1], batches[2], batches[3]
    code = re.sub(r"N?'(?:[^']|'')*'", "''", "\n".join(line for line in refusal.splitlines() if not line.lstrip().startswith("--")))
    assert "THROW 50022, @q$refused, 1;" in code and not re.search(r"\b(CREATE|ALTER|EXEC)\b", code), code
    owner_check = "[p].[type] NOT IN ('S', 'U', 'E')"
    assert owner_check in refusal and owner_check in stop and stop.rstrip().endswith("SET NOEXEC ON;")
    assert "CREATE SCHEMA" in create and not any("50022" in b or "SET NOEXEC ON" in b for b in batches[3:])
    assert batches[-1].splitlines()[-1] == "SET NOEXEC OFF;" and "THROW 50020" in batches[-2]


@pytest.mark.parametrize("spec_path", SPECS, ids=lambda p: p.stem)
def test_a_waiting_dequeue_is_bounded_and_sleeps_between_its_transactions(parser, spec_path):
    """dequeue's @wait_ms: refused outside 0..MAX_WAIT_MS (50003), which stays well under a 30 s
    client command timeout, and inside the caller's transaction (50005) before anything runs; each
    attempt is its own transaction, and the sleep comes after its COMMIT and before the next BEGIN
    (the gate's own rule checks the same: a WAITFOR inside a transaction the procedure began is a
    finding). No claim starts after the deadline: the loop sleeps only when a whole step fits before
    @wait_ms, and looks at the clock again after the sleep before it claims. The wait block passes
    every gate."""
    assert MAX_WAIT_MS <= 20_000, "a waiting dequeue must end well before ADO.NET's and JDBC's 30 s"
    for item in render_spec(load_spec(spec_path), spec_path.name, "mssql").objects:
        if item.obj.kind != "dequeue":
            continue
        text = item.create
        assert "    @wait_ms int = 0\nAS\n" in text
        checks = text.index(f"IF @wait_ms IS NULL OR @wait_ms < 0 OR @wait_ms > {MAX_WAIT_MS}\n        THROW 50003,")
        refusal = text.index("IF @wait_ms > 0 AND (@@TRANCOUNT > 0 OR (@@OPTIONS & 2) = 2)\n        THROW 50005,")
        label = text.index("    q$attempt:\n        BEGIN TRANSACTION;")
        commit = text.index("COMMIT TRANSACTION;", label)
        fits = text.index(f"AND DATEDIFF(millisecond, @q$began, SYSUTCDATETIME()) + {WAIT_STEP_MS} < @wait_ms\n", commit)
        sleep = text.index("WAITFOR DELAY '00:00:00.050';", fits)
        still = text.index("IF DATEDIFF(millisecond, @q$began, SYSUTCDATETIME()) < @wait_ms\n", sleep)
        again = text.index("GOTO q$attempt;", still)
        result = text.index("FROM @q$claimed\n        ORDER BY", again)
        assert checks < refusal < label < commit < fits < sleep < still < again < result, item.filename
        assert text.count("BEGIN TRANSACTION;") == 1 and text.count("WAITFOR") == 1
        assert check_scripts({item.filename: text})[item.filename] == []


@pytest.mark.parametrize("spec_path", SPECS, ids=lambda p: p.stem)
def test_the_admin_role_is_granted_qgens_own_procedures_by_name_and_nothing_schema_wide(spec_path):
    """EXECUTE ON SCHEMA would give the admin role every procedure of a shared schema (or dbo), the
    application's included, present and future: never granted, only each procedure qgen creates
    (and taken back, by upgrade.sql, from an install an older qgen made)."""
    from qgen.spec.catalog import ROUTINE_KINDS
    from qgen.spec.model import role_name

    spec = load_spec(spec_path)
    rendering = render_spec(spec, spec_path.name, "mssql")
    admin = role_name(spec, "admin")
    grants = "\n".join(line for line in rendering.install.splitlines() if line.startswith("GRANT "))
    assert " ON SCHEMA::" not in grants
    assert f"REVOKE EXECUTE ON SCHEMA::[{spec.schema}] FROM [{admin}];" not in rendering.install
    assert f"REVOKE EXECUTE ON SCHEMA::[{spec.schema}] FROM [{admin}];" in rendering.upgrade
    routines = {item.obj.name for item in rendering.objects if item.obj.kind in ROUTINE_KINDS}
    granted = set(re.findall(rf"GRANT EXECUTE ON OBJECT::\[{re.escape(spec.schema)}\]\.\[(\w+)\] TO \[{re.escape(admin)}\];", grants))
    assert granted == routines


@pytest.mark.parametrize("spec_path", SPECS, ids=lambda p: p.stem)
def test_verify_compares_each_module_and_index_with_what_this_install_rendered(spec_path):
    """verify checked only that each object exists: a CREATE OR ALTER that failed (sqlcmd without -b
    goes on) left the old procedure, and IF NOT EXISTS ... CREATE INDEX kept any index of that name.
    It now holds a fingerprint of every procedure and view (its text from its name on, whitespace
    removed) and the shape of every index (unique, keys, includes, filtered or not), and raises 50020
    naming what differs."""
    index_shapes, module_fingerprints = dialects.get("mssql").index_shapes, dialects.get("mssql").module_fingerprints

    rendering = render_spec(load_spec(spec_path), spec_path.name, "mssql")
    verify = next(item.create for item in rendering.objects if item.obj.kind == "verify")
    modules = {item.obj.name for item in rendering.objects if item.obj.kind in ROUTINE_KINDS | {"pending_view"}}
    fingerprints = module_fingerprints(rendering.install)
    assert set(fingerprints) == modules
    for name, fingerprint in fingerprints.items():
        assert f"(N'{name}', 0x{fingerprint})" in verify
    indexes = {item.obj.kind for item in rendering.objects if item.obj.kind.endswith("_index")}
    shapes = index_shapes(rendering.install)
    assert bool(shapes) == bool(indexes)
    for (table, name), shape in shapes.items():
        assert f"(N'{table}', N'{name}', N'{shape}')" in verify
    assert "qgen: installed, but not as this install rendered it:" in verify and "THROW 50020, @q$older" in verify


def test_an_index_shape_lists_included_columns_in_the_order_verify_reads_them():
    """verify aggregates an index's included columns ORDER BY UPPER(name) COLLATE Latin1_General_BIN2,
    the same order on every database collation: the rendered shape must list them so. Sorted by plain
    code point, (JobType, deferred) became "JobType, deferred" while SQL Server (case-insensitive
    collation) read "deferred, JobType", and every install of example 003 failed verify (50020)."""
    index_shapes = dialects.get("mssql").index_shapes

    script = ("CREATE NONCLUSTERED INDEX [ix] ON [s].[t] ([available_at], [id]) "
              "INCLUDE ([JobType], [deferred], [a_1], [a1]) WHERE [deferred] = 1;\n")
    assert index_shapes(script) == {("t", "ix"): "(available_at, id) include (a1, a_1, deferred, JobType) where"}
    verify = (templates_dir() / "mssql" / "verify.sql.j2").read_text()
    assert "WITHIN GROUP (ORDER BY UPPER([c].[name]) COLLATE Latin1_General_BIN2)" in verify


def test_a_module_fingerprint_ignores_what_engines_and_clients_change_and_nothing_else():
    module_fingerprints = dialects.get("mssql").module_fingerprints

    body = "CREATE OR ALTER PROCEDURE [s].[p]\n    @n int = 1\nAS\nBEGIN\n    SELECT @n AS [n];\nEND;\n"
    same = module_fingerprints(body)["p"]
    assert module_fingerprints("-- a comment SQL Server keeps\n" + body)["p"] == same
    assert module_fingerprints(body.replace("CREATE OR ALTER", "CREATE").replace("\n", "\r\n"))["p"] == same
    assert module_fingerprints(body.replace("@n AS", "@n + 1 AS"))["p"] != same
    assert module_fingerprints(body.replace("[n]", "[N]"))["p"] != same


@pytest.mark.parametrize("spec_path", SPECS, ids=lambda p: p.stem)
def test_the_agent_job_runs_every_queues_maintain_even_when_one_fails(spec_path):
    """schedule.sql's job step: each queue's maintain in a TRY/CATCH of its own, so one that fails does
    not skip the queues after it, and a THROW at the end fails the step naming each that failed."""
    spec = load_spec(spec_path)
    schedule = render_spec(spec, spec_path.name, "mssql").files()["schedule.sql"]
    command = schedule[schedule.index("DECLARE @q$command"):schedule.index("BEGIN TRANSACTION;")]
    for queue in spec.queues:
        call = (f"        EXEC [{spec.schema}].[{object_name(spec, queue, 'maintain')}] @more = @q$more OUTPUT, @result_set = 0;\n"
                "        SET @q$rounds += 1;\n        IF @q$more = 0 BREAK;\n    END;\nEND TRY\nBEGIN CATCH\n")
        assert call in command and f"SET @q$failed += N'' {queue}: '' + ERROR_MESSAGE();" in command
    assert command.rstrip().endswith("THROW 50030, @q$message, 1;\nEND;';")


@pytest.mark.parametrize("spec_path", SPECS, ids=lambda p: p.stem)
def test_upgrade_rebuilds_each_claim_index_online_where_the_edition_allows(spec_path):
    """upgrade.sql dropped the old claim index and install.sql built the new one
    offline, claims running without it in between. Now, on Enterprise/Developer (EngineEdition 3)
    and Azure SQL (5, 8), each is rebuilt in place WITH (DROP_EXISTING = ON, ONLINE = ON); other
    editions (no online index operations) keep the drop. docs/migrations.md says what each locks."""
    spec = load_spec(spec_path)
    upgrade = render_spec(spec, spec_path.name, "mssql").upgrade
    for queue, q in spec.queues.items():
        names = [object_name(spec, queue, "claim_index")] + ([object_name(spec, queue, "claim_order_index")]
                                                             if q.job_type else [])
        for name in names:
            if f"WHERE [name] = N'{name}'" not in upgrade:
                continue  # not a queue the [deferred] upgrade concerns
            block = upgrade[upgrade.index(f"WHERE [name] = N'{name}'"):]
            block = block[:block.index("END;")]
            online = block.index("IF CAST(SERVERPROPERTY('EngineEdition') AS int) IN (3, 5, 8)")
            assert block.index(f"CREATE NONCLUSTERED INDEX [{name}]") > online
            assert "WITH (DROP_EXISTING = ON, ONLINE = ON);\n    ELSE\n" in block, block
            assert block.index("ELSE") < block.index(f"DROP INDEX [{name}]"), block
    if "[deferred]" in upgrade:
        assert "ONLINE = ON" in upgrade
