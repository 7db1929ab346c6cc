"""The T-SQL gate itself: each gate catches what it should, at the right script line:column, and
passes the T-SQL qgen relies on. Hand-written samples only; rendered scripts are checked elsewhere."""

from __future__ import annotations

import os

import pytest

from tools.tsql_gate.gate import (
    Finding,
    ParserUnavailable,
    check_scripts,
    claim_range_lock_findings,
    deploy_findings,
    filtered_claim_findings,
    ensure_parser,
    filtered_index_findings,
    own_findings,
    parse_batches,
    procedure_session_findings,
    rerun_findings,
    session_findings,
    sqlfluff_findings,
    sqlparser_findings,
    transaction_guard_findings,
)

pytestmark = pytest.mark.tsql_gate


def _unavailable(reason: str) -> None:
    """A missing gate is a failure in CI (it must not silently stop checking), a skip elsewhere."""
    if os.environ.get("CI"):
        pytest.fail(f"{reason} (CI is set, so this fails instead of skipping)", pytrace=False)
    pytest.skip(reason)


@pytest.fixture(scope="module")
def parser() -> None:
    try:
        ensure_parser()
    except ParserUnavailable as exc:
        _unavailable(f"Microsoft T-SQL parser harness unavailable (tools/tsql_parser/build.sh): {exc}")


@pytest.fixture(scope="module")
def sqlfluff() -> None:
    try:
        import sqlfluff  # noqa: F401
    except ImportError:
        _unavailable("sqlfluff is not installed")


def at(text: str, needle: str, nth: int = 1) -> tuple[int, int]:
    """1-based (line, column) of the nth occurrence of needle in text."""
    pos = -1
    for _ in range(nth):
        pos = text.index(needle, pos + 1)
    return text.count("\n", 0, pos) + 1, pos - (text.rfind("\n", 0, pos) + 1) + 1


def where(findings: list[Finding], gate: str) -> list[tuple[int, int]]:
    return [(f.line, f.column) for f in findings if f.gate == gate]


# --------------------------------------------------------------------------------------------------
# Samples

QUEUE_OBJECTS = """\
-- Queue objects in the shapes qgen renders.
CREATE TABLE dbo.job_queue (
    id bigint IDENTITY(1, 1) NOT NULL,
    state tinyint NOT NULL CONSTRAINT df_job_queue_state DEFAULT (0),
    payload nvarchar(max) NULL,
    CONSTRAINT pk_job_queue PRIMARY KEY CLUSTERED (id) WITH (FILLFACTOR = 90, DATA_COMPRESSION = PAGE)
);
GO
CREATE NONCLUSTERED INDEX ix_job_queue_state ON dbo.job_queue (state) INCLUDE (payload) WITH (FILLFACTOR = 80);
GO
IF TYPE_ID(N'dbo.id_list') IS NULL
    CREATE TYPE dbo.id_list AS TABLE
    (
        [ordinal] int NOT NULL,
        id bigint NOT NULL,
        PRIMARY KEY ([ordinal])
    );
GO
CREATE TYPE dbo.name_list AS TABLE (name nvarchar(128) NOT NULL PRIMARY KEY);
GO
CREATE OR ALTER VIEW dbo.job_queue_pending
WITH SCHEMABINDING
AS
WITH pending AS (SELECT id, state FROM dbo.job_queue WHERE state = 0)
SELECT id, state FROM pending
GO
CREATE OR ALTER VIEW dbo.job_queue_new
AS
SELECT id, state FROM dbo.job_queue WHERE state = 0
WITH CHECK OPTION;
GO
WITH first_in_batch AS (SELECT 1 AS x)
SELECT x FROM first_in_batch;
GO
"""

TAKE_PROCEDURE = """\
CREATE OR ALTER PROCEDURE dbo.job_queue_take
    @batch_size int = 10
AS
BEGIN
    SET NOCOUNT, XACT_ABORT ON;
    SET TRANSACTION ISOLATION LEVEL READ COMMITTED;
    DECLARE @taken TABLE (id bigint NOT NULL);
    BEGIN TRY
        BEGIN TRANSACTION;
        /* WITH nope AS (SELECT 1) /* nested */ is a comment, not a statement */
        ;WITH cte AS (
            SELECT TOP (@batch_size) id, state
            FROM dbo.job_queue WITH (ROWLOCK, READPAST, UPDLOCK)
            WHERE state = 0
            ORDER BY id
        )
        UPDATE cte SET state = 1
        OUTPUT inserted.id INTO @taken (id)
        OPTION (OPTIMIZE FOR (@batch_size = 1));
        SELECT t.id FROM @taken AS t ORDER BY t.id;
        COMMIT TRANSACTION;
    END TRY
    BEGIN CATCH
        IF @@TRANCOUNT > 0 ROLLBACK TRANSACTION;
        RAISERROR('take failed; WITH c AS (', 0, 1) WITH NOWAIT;
        THROW;
    END CATCH
END
GO
"""

PURGE_PROCEDURE = """\
CREATE OR ALTER PROCEDURE [dbo].[job_queue_purge]
    @ids dbo.id_list READONLY,
    @max_rows int
WITH EXECUTE AS OWNER
AS
BEGIN
    SET NOCOUNT, XACT_ABORT ON;
    DECLARE @gone TABLE (id bigint NOT NULL);
    DELETE TOP (@max_rows) FROM dbo.job_queue
    OUTPUT deleted.id INTO @gone (id)
    WHERE id IN (SELECT id FROM @ids);
    SELECT TOP (1) WITH TIES id FROM dbo.job_queue ORDER BY state;
    MERGE dbo.job_queue WITH (HOLDLOCK) AS tgt
    USING @ids AS src ON tgt.id = src.id
    WHEN MATCHED THEN UPDATE SET tgt.state = 2
    WHEN NOT MATCHED THEN INSERT (state) VALUES (0);
    EXEC dbo.job_queue_take @batch_size = 1 WITH RECOMPILE;
    THROW 50001, N'purged; CREATE PROCEDURE x AS', 1;
END
GO
"""

VALID = {
    "queue_objects.sql": QUEUE_OBJECTS,
    "take_procedure.sql": TAKE_PROCEDURE,
    "purge_procedure.sql": PURGE_PROCEDURE,
}

# A typo in the second batch: the parser's batch-relative line must come back as the script line.
SELEC_SECOND_BATCH = """\
CREATE TABLE dbo.t (id int NOT NULL);
GO

CREATE OR ALTER PROCEDURE dbo.p
AS
BEGIN
    SET NOCOUNT ON;
    SELEC 1;
END
GO
"""

MISSING_END = """\
SELECT 1;
GO
CREATE PROCEDURE dbo.p
AS
BEGIN
    IF 1 = 1
    BEGIN
        SELECT 2;
    END
GO
SELECT 3;
GO
"""

CTE_WITHOUT_SEMICOLON = """\
CREATE TABLE dbo.t (id int NOT NULL);
GO
CREATE OR ALTER PROCEDURE dbo.p
AS
BEGIN
    DECLARE @n int = 1
    WITH c AS (SELECT @n AS x)
    SELECT x FROM c;
END
GO
"""

TWO_PROCEDURES = """\
CREATE PROCEDURE dbo.a AS SELECT 1;
GO
CREATE PROCEDURE dbo.b AS SELECT 2;
CREATE PROCEDURE dbo.c AS SELECT 3;
GO
"""

TWO_TYPES = """\
CREATE TYPE dbo.a AS TABLE (id int);
IF TYPE_ID(N'dbo.b') IS NULL
    CREATE TYPE dbo.b AS TABLE (id int);
GO
"""

SET_BEFORE_VIEW = """\
SET QUOTED_IDENTIFIER ON;
CREATE VIEW dbo.v AS SELECT 1 AS x;
GO
"""

SQLFLUFF_UNPARSABLE = """\
SELECT 1;
GO
SELECT a,
    FROM dbo.t;
GO
"""

INVALID = {
    "selec_second_batch.sql": SELEC_SECOND_BATCH,
    "missing_end.sql": MISSING_END,
    "cte_without_semicolon.sql": CTE_WITHOUT_SEMICOLON,
    "two_procedures.sql": TWO_PROCEDURES,
    "two_types.sql": TWO_TYPES,
    "set_before_view.sql": SET_BEFORE_VIEW,
    "sqlfluff_unparsable.sql": SQLFLUFF_UNPARSABLE,
}


@pytest.fixture(scope="module")
def parsed(parser) -> dict[str, list[Finding]]:
    """Microsoft parser over every sample in one mono process."""
    return sqlparser_findings({**VALID, **INVALID})


# --------------------------------------------------------------------------------------------------
# Valid T-SQL passes every gate


@pytest.mark.parametrize("name", sorted(VALID))
def test_valid_script_passes_microsoft_parser(name, parsed):
    assert not parsed[name], "\n".join(map(str, parsed[name]))


@pytest.mark.parametrize("name", sorted(VALID))
def test_valid_script_passes_sqlfluff_and_own_checks(name, sqlfluff):
    findings = sqlfluff_findings(VALID[name], name) + own_findings(VALID[name], name)
    assert not findings, "\n".join(map(str, findings))


def test_check_scripts_runs_all_gates(parser, sqlfluff):
    results = check_scripts({"ok.sql": "SELECT 1;\n", "bad.sql": SET_BEFORE_VIEW})
    assert results["ok.sql"] == []
    assert {f.gate for f in results["bad.sql"]} == {"own", "sqlparser"}
    assert all(f.name == "bad.sql" for f in results["bad.sql"])


# --------------------------------------------------------------------------------------------------
# Gate 1: Microsoft's parser


def test_syntax_error_is_reported_at_its_script_line(parsed):
    findings = parsed["selec_second_batch.sql"]
    line, column = at(SELEC_SECOND_BATCH, "SELEC 1")
    assert line == 8
    assert Finding("selec_second_batch.sql", line, column, "sqlparser", "Incorrect syntax near 'SELEC'.") in findings


def test_missing_end_is_reported_at_the_end_of_its_batch(parsed):
    # The batch ends on the inner END (line 9, after its last character); the batches around it are fine.
    assert [(f.line, f.column, f.message) for f in parsed["missing_end.sql"]] == [
        (9, 8, "Incorrect syntax near 'End Of File'.")
    ]


def test_typo_first_in_batch_parses_as_a_procedure_call(parser):
    # T-SQL quirk, not a gate bug: a batch may start with a bare procedure call, so `SELEC 1` alone
    # is `EXEC SELEC 1` and parses. The same typo after another statement does not.
    records = parse_batches(["SELEC 1;", "SELECT 1;\nSELEC 1;"])
    assert [(r["batch"], r["line"], r["column"]) for r in records] == [(1, 2, 1)]


def test_parser_works_at_sql_server_2017_level(parser):
    records = parse_batches(
        [
            "CREATE OR ALTER PROCEDURE dbo.p AS SELECT 1;",  # 2016 SP1+ syntax: accepted
            "DROP TABLE IF EXISTS dbo.t;",  # 2016+: accepted
            "SELECT 1 WHERE 1 IS DISTINCT FROM 2;",  # 2022 only: rejected
            "CREATE INDEX ix ON dbo.t (id) WITH (OPTIMIZE_FOR_SEQUENTIAL_KEY = ON);",  # 2019 only: rejected
        ]
    )
    assert {r["batch"] for r in records} == {2, 3}


def test_two_procedures_in_a_batch_are_also_caught_by_the_parser(parsed):
    line, column = at(TWO_PROCEDURES, "CREATE PROCEDURE dbo.c")
    assert [(f.line, f.column, f.message) for f in parsed["two_procedures.sql"]] == [
        (line, column, "Incorrect syntax: 'CREATE PROCEDURE' must be the only statement in the batch.")
    ]


def test_parser_misses_cte_without_semicolon(parsed):
    # Why the own check exists: this parser accepts `DECLARE ... = 1 WITH c AS (...)`, which SQL Server
    # rejects with error 319. (It only trips when the WITH can be read as a table hint, after FROM t.)
    assert parsed["cte_without_semicolon.sql"] == []


def test_parser_misses_two_types_in_a_batch(parsed):
    assert parsed["two_types.sql"] == []


def test_leftover_go_is_reported(parser):
    records = parse_batches(["SELECT 1\nGO\nSELECT 2"])
    assert [r["type"] for r in records] == ["BatchSeparator"]


def test_many_batches_in_one_process_map_back_to_their_scripts(parser):
    scripts = {f"s{i:02}.sql": "SELECT 1;\nGO\nSELECT 2;\nGO\n" for i in range(30)}
    scripts["s17.sql"] = "SELECT 1;\nGO\n\nSELECT 2;\nSELEC 3;\nGO\n"
    results = sqlparser_findings(scripts)
    assert {name for name, findings in results.items() if findings} == {"s17.sql"}
    assert where(results["s17.sql"], "sqlparser") == [(5, 1)]


# --------------------------------------------------------------------------------------------------
# Gate 2: sqlfluff


def test_sqlfluff_reports_unparsable_section(sqlfluff):
    findings = sqlfluff_findings(SQLFLUFF_UNPARSABLE, "x.sql")
    assert where(findings, "sqlfluff") == [at(SQLFLUFF_UNPARSABLE, ",\n    FROM")]
    assert "unparsable" in findings[0].message


def test_sqlfluff_reports_missing_end(sqlfluff):
    findings = sqlfluff_findings(MISSING_END)
    assert where(findings, "sqlfluff") == [at(MISSING_END, "CREATE PROCEDURE")]


def test_sqlfluff_reports_unclosed_bracket(sqlfluff):
    text = "SELECT 1;\nGO\nSELECT (1;\nGO\n"
    assert where(sqlfluff_findings(text), "sqlfluff") == [(3, 8)]


def test_sqlfluff_parses_again_what_differs_from_a_batch_it_parsed_clean(sqlfluff):
    """A batch shaped like one parsed clean (other names, strings, numbers, comments) is skipped; one
    whose tokens differ is parsed, even where a comment's quote or a string's "--" would confuse a
    reader that did not scan left to right, and its finding is at its line in the script."""
    clean = "SELECT [a], N'x -- y' FROM [t] WHERE [n] = 1; -- it's fine\nGO\n"
    assert sqlfluff_findings(clean) == []
    assert sqlfluff_findings(clean.replace("[a]", "[b]").replace("= 1", "= 20")) == []
    broken = "SELECT 1;\nGO\nSELECT [b], N'z -- y' FROM [t] WHERE [n] = 1 , ; -- it's fine\nGO\n"
    assert where(sqlfluff_findings(broken), "sqlfluff") == [at(broken, ", ;")]
    quoted = "SELECT [a], N'x -- y' FROM [t] WHERE [n] = 1; -- it's\n, 'fine'\nGO\n"
    assert where(sqlfluff_findings(quoted), "sqlfluff"), "the comment ends at its line: ', ' is code"


def test_sqlfluff_does_not_template(sqlfluff):
    assert sqlfluff_findings("SELECT N'{{ not jinja }}' AS x;\n") == []


# --------------------------------------------------------------------------------------------------
# Gate 3: own checks


def test_cte_without_semicolon_is_reported_at_its_with():
    findings = own_findings(CTE_WITHOUT_SEMICOLON, "c.sql")
    assert where(findings, "own") == [at(CTE_WITHOUT_SEMICOLON, "WITH c AS")]
    assert "';'" in findings[0].message


def test_second_procedure_in_batch_is_reported():
    findings = own_findings(TWO_PROCEDURES)
    assert where(findings, "own") == [at(TWO_PROCEDURES, "CREATE PROCEDURE dbo.c")]
    assert "shares a GO batch" in findings[0].message


def test_second_type_in_batch_is_reported_but_a_guarded_type_is_fine():
    # CREATE TYPE may follow IF (SQL Server allows it; qgen guards its table types so), but one per batch.
    assert where(own_findings(TWO_TYPES), "own") == [at(TWO_TYPES, "CREATE TYPE dbo.b")]
    assert own_findings("IF TYPE_ID(N'dbo.b') IS NULL\n    CREATE TYPE dbo.b AS TABLE (id int);\n") == []


def test_statement_before_view_is_reported():
    findings = own_findings(SET_BEFORE_VIEW)
    assert where(findings, "own") == [(2, 1)]
    assert "first statement" in findings[0].message


@pytest.mark.parametrize(
    "sql",
    [
        "SELECT * FROM dbo.t WITH (NOLOCK)\nSELECT 1",
        "UPDATE dbo.t WITH (ROWLOCK, READPAST, UPDLOCK) SET x = 1\nSELECT 1",
        "RAISERROR('x', 0, 1) WITH NOWAIT\nSELECT 1",
        "RAISERROR('x', 10, 1) WITH LOG\nSELECT 1",
        "SELECT TOP (1) WITH TIES a FROM dbo.t ORDER BY a\nSELECT 1",
        "EXEC dbo.p WITH RECOMPILE\nSELECT 1",
        "EXEC dbo.p WITH RESULT SETS ((id int))\nSELECT 1",
        "CREATE INDEX ix ON dbo.t (a) WITH (FILLFACTOR = 80, DATA_COMPRESSION = PAGE)\nSELECT 1",
        "ALTER TABLE dbo.t WITH CHECK ADD CONSTRAINT ck CHECK (a > 0)\nSELECT 1",
        "SELECT a FROM dbo.t GROUP BY a WITH ROLLUP\nSELECT 1",
        "SELECT j.id FROM OPENJSON(@j) WITH (id int '$.id') AS j\nSELECT 1",
        "CREATE VIEW dbo.v WITH SCHEMABINDING AS SELECT a FROM dbo.t\nWITH CHECK OPTION",
        "CREATE VIEW dbo.v WITH SCHEMABINDING, VIEW_METADATA AS (SELECT 1 AS x)",
        "CREATE VIEW dbo.v AS\nWITH c AS (SELECT 1 AS x) SELECT x FROM c",
        "CREATE PROCEDURE dbo.p WITH EXECUTE AS OWNER AS\nWITH c AS (SELECT 1 AS x) SELECT x FROM c",
        "CREATE PROCEDURE dbo.p WITH RECOMPILE, ENCRYPTION AS SELECT 1",
        "CREATE PROCEDURE dbo.p WITH NATIVE_COMPILATION, SCHEMABINDING AS BEGIN ATOMIC WITH "
        "(TRANSACTION ISOLATION LEVEL = SNAPSHOT, LANGUAGE = N'us_english') SELECT 1 END",
        "CREATE FUNCTION dbo.f (@a int) RETURNS int WITH RETURNS NULL ON NULL INPUT AS BEGIN RETURN @a END",
        "WITH c AS (SELECT 1 AS x) SELECT x FROM c",
        "SELECT 1;\nWITH c AS (SELECT 1 AS x) SELECT x FROM c",
        "SELECT 1\n;WITH c (x) AS (SELECT 1) SELECT x FROM c",
        "SELECT 1;\n-- comment\nWITH [my cte] AS (SELECT 1 AS x) SELECT x FROM [my cte]",
        "SELECT 1;\nWITH XMLNAMESPACES ('urn:x' AS x) SELECT 1",
        "SELECT 'a; WITH c AS (' AS s, [WITH c AS (] AS b, \"WITH d AS (\" AS q\n/* ; WITH e AS ( */",
        "SELECT 1 -- WITH c AS (SELECT 1)\nSELECT 2",
        "CREATE TABLE #t (a int)\nALTER TABLE #t ADD b int\nCREATE TABLE dbo.x (a int)",
        "IF TYPE_ID(N'dbo.tt') IS NULL\n    CREATE TYPE dbo.tt AS TABLE (a int)",
        "CREATE TRIGGER tr ON DATABASE FOR CREATE_PROCEDURE AS SELECT 1\nDISABLE TRIGGER tr ON DATABASE",
        "IF SCHEMA_ID(N's') IS NULL EXEC(N'CREATE SCHEMA [s] AUTHORIZATION [dbo];')",
    ],
)
def test_own_check_passes(sql):
    assert own_findings(sql) == []


@pytest.mark.parametrize(
    ("sql", "needle"),
    [
        ("SELECT 1\nWITH c AS (SELECT 1 AS x) SELECT x FROM c", "WITH"),
        ("DECLARE @x int = 1\nWITH c AS (SELECT 1 AS x) SELECT x FROM c", "WITH"),
        ("SET NOCOUNT ON\nWITH c (x) AS (SELECT 1) SELECT x FROM c", "WITH"),
        ("UPDATE dbo.t SET a = 1\nWITH [c] AS (SELECT 1 AS x) SELECT x FROM [c]", "WITH"),
        ("SELECT 1 -- ;\nWITH c AS (SELECT 1 AS x) SELECT x FROM c", "WITH c"),
        ("SELECT ';' AS s\n/* ; */ WITH c AS (SELECT 1 AS x) SELECT x FROM c", "WITH c"),
        ("DECLARE @x xml = N'<a/>'\nWITH XMLNAMESPACES ('urn:x' AS x) SELECT 1", "WITH"),
        # Stricter than SQL Server may be: qgen puts ';' before every CTE, also right after BEGIN / ELSE.
        ("IF 1 = 1\nBEGIN\n    WITH c AS (SELECT 1 AS x) SELECT x FROM c\nEND", "WITH"),
        ("SELECT 1\nGO\nSELECT 2\nWITH c AS (SELECT 1 AS x) SELECT x FROM c", "WITH"),
        ("SELECT 1\nCREATE VIEW dbo.v AS SELECT 1 AS x", "CREATE"),
        ("SET ANSI_NULLS ON\nCREATE OR ALTER PROCEDURE dbo.p AS SELECT 1", "CREATE"),
        ("CREATE FUNCTION dbo.f () RETURNS int AS BEGIN RETURN 1 END\nCREATE FUNCTION dbo.g () RETURNS int AS BEGIN RETURN 1 END", "CREATE FUNCTION dbo.g"),
        ("SELECT 1\nCREATE TRIGGER tr ON dbo.t AFTER INSERT AS SELECT 1", "CREATE"),
        ("SELECT 1\nCREATE SCHEMA s", "CREATE"),
        ("SELECT 1\nALTER PROC dbo.p AS SELECT 1", "ALTER"),
        ("CREATE TYPE dbo.a FROM int\nCREATE PROCEDURE dbo.p AS SELECT 1", "CREATE PROCEDURE"),
    ],
)
def test_own_check_reports(sql, needle):
    findings = own_findings(sql, "s.sql")
    assert [(f.line, f.column) for f in findings] == [at(sql, needle)], "\n".join(map(str, findings))


# --------------------------------------------------------------------------------------------------
# Gate 3: qgen's semantic rules (tools/tsql_gate/rules.py). Each sample is real T-SQL (the test
# at the end parses them all) and trips only the rule it is listed under.

CLAIM_CTE = ("DECLARE @c TABLE (id int);\n"
             ";WITH c AS (SELECT TOP (10) id, state FROM dbo.q WITH (ROWLOCK, READPAST, UPDLOCK) ORDER BY id)\n"
             "UPDATE c SET state = 1 OUTPUT inserted.id INTO @c (id);")
OLD_CLAIM = ("UPDATE [job] SET state = 1\nOUTPUT inserted.id INTO @c (id)\nFROM dbo.q AS [job]\nINNER JOIN\n"
             "(SELECT TOP (10) id FROM dbo.q WITH (ROWLOCK, READPAST, UPDLOCK) WHERE state = 0 ORDER BY id) AS [n]\n"
             "ON [n].id = [job].id;")

JSON_PROC = ("CREATE PROCEDURE dbo.q_enqueue_json @jobs nvarchar(max)\n"
             "AS\n"
             "BEGIN\n"
             "    DECLARE @b TABLE (ordinal int, code nvarchar(33));\n"
             "    INSERT INTO @b (ordinal, code)\n"
             "    SELECT CAST([a].[key] AS int) + 1, [j].[code]\n"
             "    FROM OPENJSON(@jobs) AS [a]\n"
             "    CROSS APPLY OPENJSON([a].[value]) WITH ([code] nvarchar(WIDTH) 'strict $.code') AS [j];\n"
             "    IF EXISTS (SELECT 1 FROM @b AS [j] WHERE DATALENGTH([j].[code]) > 64)\n"
             "        THROW 50010, N'x', 1;\n"
             "    INSERT INTO dbo.q (code) SELECT code FROM @b;\n"
             "END")


RULES_PASS = {
    "declared variables": [
        "CREATE PROCEDURE dbo.p @n int AS\nBEGIN\n    DECLARE @a int = @n;\n    DECLARE @t TABLE (id int);\n    INSERT INTO @t (id) VALUES (@a);\n"
        "    DECLARE @r int;\n    EXEC @r = dbo.other @n = @a, @out = @a OUTPUT;\nEND",
    ],
    "isolation": [
        "CREATE PROCEDURE dbo.p AS\nBEGIN\n    SET NOCOUNT ON;\n    SET TRANSACTION ISOLATION LEVEL READ COMMITTED;\n    "
        + CLAIM_CTE + "\nEND",
        "CREATE PROCEDURE dbo.p AS\nBEGIN\n    SELECT id FROM dbo.q WITH (UPDLOCK) WHERE id = 1;\nEND",
        # Not a procedure: the batch's caller chose the isolation level on purpose.
        "SET TRANSACTION ISOLATION LEVEL READ COMMITTED;\n" + CLAIM_CTE,
        CLAIM_CTE,
    ],
    "locking read": [
        "SELECT TOP (1) id FROM dbo.q WITH (ROWLOCK, READPAST, UPDLOCK) ORDER BY id;",
        "SELECT MIN(j.id) FROM dbo.q AS j WITH (READCOMMITTEDLOCK, READPAST);",
        "UPDATE w SET id = 5 FROM dbo.w AS w WITH (ROWLOCK, READPAST, READCOMMITTEDLOCK) WHERE w.id < 5;",
        "SELECT id FROM dbo.q WITH (NOLOCK);",
    ],
    "second reference": [
        CLAIM_CTE,
        ";WITH c AS (SELECT TOP (10) * FROM dbo.q WITH (ROWLOCK, READPAST, UPDLOCK) ORDER BY id)\n"
        "DELETE FROM c OUTPUT deleted.id INTO @c (id);",
        "UPDATE TOP (10) dbo.q WITH (ROWLOCK, READPAST, UPDLOCK) SET state = 1 WHERE state = 0;",
        "DELETE FROM dbo.q WITH (ROWLOCK, READPAST, UPDLOCK) WHERE id = 1;",
        "UPDATE j SET state = 1 FROM dbo.q AS j WITH (ROWLOCK, READPAST, UPDLOCK) INNER JOIN @ids AS i ON i.id = j.id;",
        # The watermark mover: READPAST on the target itself and on another table.
        "UPDATE [w] SET [id] = COALESCE((SELECT MIN(j.id) FROM dbo.q AS j WITH (READCOMMITTEDLOCK, READPAST)\n"
        "    WHERE j.id >= w.id), 5)\nFROM dbo.w AS [w] WITH (ROWLOCK, READPAST, READCOMMITTEDLOCK) WHERE [w].[id] < 5;",
        # A second statement over rows the first one locked reads no READPAST: not this rule's business.
        "UPDATE [job] SET state = 0 FROM dbo.q AS [job] INNER JOIN @expired AS [e] ON [e].id = [job].id;",
        "UPDATE t SET state = 1 FROM dbo.q AS t\nINNER JOIN (SELECT id FROM dbo.other WITH (READPAST, UPDLOCK)) AS o ON o.id = t.id;",
    ],
    "output into": [
        "INSERT INTO dbo.q (state) OUTPUT inserted.id INTO @new (id) VALUES (1);",
        "DELETE FROM dbo.q OUTPUT deleted.id, deleted.state INTO #gone (id, state) WHERE id = 1;",
        "DELETE FROM @claimed OUTPUT deleted.id;",
        "UPDATE #work SET state = 1 OUTPUT inserted.state;",
        "EXEC dbo.p @x = @y OUTPUT;",
        "CREATE PROCEDURE dbo.p @x int OUTPUT AS SET @x = 1;",
        "MERGE dbo.q AS t USING @s AS s ON t.id = s.id\nWHEN MATCHED THEN DELETE\nOUTPUT $action, deleted.id INTO @log (act, id);",
    ],
    "watermark wait": [
        # fail's lowering skips a held watermark row.
        "CREATE PROCEDURE dbo.q_fail @id bigint AS\nBEGIN\n    SET TRANSACTION ISOLATION LEVEL READ COMMITTED;\n"
        "    UPDATE [w] SET [id] = @id FROM dbo.q_watermark AS [w] WITH (ROWLOCK, READPAST, UPDLOCK) WHERE [w].[id] > @id;\nEND",
        # Not a worker's path: dequeue's rescan and claims have their own rules.
        "CREATE PROCEDURE dbo.q_dequeue AS\nBEGIN\n    UPDATE dbo.q_watermark SET [id] = 0;\nEND",
        "CREATE PROCEDURE dbo.q_complete @id bigint AS\nBEGIN\n    SELECT [id] FROM dbo.q_watermark WITH (NOLOCK);\nEND",
    ],
    "blind watermark": [
        "CREATE PROCEDURE dbo.q_watermark_correct AS\nBEGIN\n    SET TRANSACTION ISOLATION LEVEL READ COMMITTED;\n"
        "    DECLARE @o bigint, @h bigint;\n"
        "    SELECT @o = [id] FROM dbo.q_watermark WITH (ROWLOCK, READPAST, UPDLOCK);\n"
        "    IF @o IS NULL SET @o = (SELECT [id] FROM dbo.q_watermark WITH (UPDLOCK, HOLDLOCK));\n"
        "    SET @h = (SELECT MIN(j.id) FROM dbo.q AS j WITH (NOLOCK) WHERE j.lease_token IS NOT NULL\n"
        "              AND NOT EXISTS (SELECT 1 FROM dbo.q AS s WITH (READCOMMITTEDLOCK, READPAST) WHERE s.id = j.id));\nEND",
        # delete mode: no lease state to judge.
        "CREATE PROCEDURE dbo.q_watermark_correct AS\nBEGIN\n    SELECT MIN(j.id) FROM dbo.q AS j WITH (NOLOCK);\nEND",
    ],
    "applock principal": [
        "EXEC @r = sys.sp_getapplock @Resource = N'x', @LockMode = 'Exclusive', @LockOwner = 'Transaction',\n"
        "    @LockTimeout = 0, @DbPrincipal = @p;",
        "EXEC sp_getapplock N'x', 'Exclusive', 'Transaction', 0, @DbPrincipal = N'dbo';",
    ],
    "broken chain": [
        "CREATE PROCEDURE dbo.q_maintain AS\nBEGIN\n    EXEC [dbo].[q_reap] @batch_size = 10;\n    EXECUTE dbo.q_purge;\nEND",
        # Outside a procedure (an install script's guarded CREATE SCHEMA) the caller is the installer.
        "IF SCHEMA_ID(N'q') IS NULL EXEC(N'CREATE SCHEMA [q] AUTHORIZATION [dbo];');",
        # A module that runs as its owner runs its dynamic SQL as that owner too: no chain to break.
        "CREATE PROCEDURE dbo.q_peek\nWITH EXECUTE AS OWNER\nAS\nBEGIN\n    EXEC sys.sp_executesql N'SELECT id FROM dbo.q';\nEND",
        "CREATE PROCEDURE dbo.q_peek @n int\nWITH RECOMPILE, EXECUTE AS N'qowner'\nAS\nEXEC (N'SELECT id FROM dbo.q');",
        # A session's own temporary table needs no permission.
        "CREATE PROCEDURE dbo.q_x AS\nBEGIN\n    CREATE TABLE #t (id int);\n    TRUNCATE TABLE #t;\nEND",
        "CREATE PROCEDURE dbo.q_purge\nWITH EXECUTE AS OWNER\nAS\nTRUNCATE TABLE dbo.q;",
    ],
    "value limit": [
        # one wider than the column, checked before the insert (templates' param_type, check_values)
        "CREATE PROCEDURE dbo.q_enqueue @code nvarchar(33), @n int = 0\nAS\nBEGIN\n"
        "    IF DATALENGTH(@code) > 64\n        THROW 50010, N'qgen: @code is past its column''s limit.', 1;\n"
        "    INSERT INTO dbo.q (code, n) VALUES (@code, @n);\nEND",
        "CREATE PROCEDURE dbo.q_complete @amount decimal(38, 5) = NULL\nAS\nBEGIN\n"
        "    IF (ABS(@amount) >= 100000000000000000000000000000000 OR @amount <> ROUND(@amount, 4, 1))\n"
        "        THROW 50010, N'x', 1;\n    INSERT INTO dbo.o (amount) VALUES (@amount);\nEND",
        # a check that THROWs from the block it opens
        "CREATE PROCEDURE dbo.q_dequeue @owner nvarchar(129) = NULL\nAS\nBEGIN\n    IF DATALENGTH(@owner) > 256\n"
        "    BEGIN\n        DECLARE @m nvarchar(100) = N'x';\n        THROW 50010, @m, 1;\n    END;\n"
        "    UPDATE dbo.q SET lease_owner = @owner WHERE id = 1;\nEND",
        # only compared (a longer value matches nothing), or max: not judged
        "CREATE PROCEDURE dbo.q_peek @job_type nvarchar(9) = NULL\nAS\nBEGIN\n"
        "    UPDATE dbo.q SET seen = 1 WHERE job_type = @job_type;\n    SELECT id FROM dbo.q WHERE job_type = @job_type;\nEND",
        "CREATE PROCEDURE dbo.q_fail @error nvarchar(max) = NULL\nAS\nBEGIN\n"
        "    DECLARE @e nvarchar(4000) = LEFT(@error, 4000);\n    UPDATE dbo.q SET last_error = @e WHERE id = 1;\nEND",
        # OPENJSON's column one wider than the queue's, checked before the insert
        JSON_PROC.replace("WIDTH", "33"),
    ],
    "plan pinning": [
        "SELECT TOP (@n) id FROM dbo.q WITH (READPAST, UPDLOCK) ORDER BY id OPTION (OPTIMIZE FOR (@n = 1));",
        "SELECT TOP (@n) id FROM dbo.q WITH (READPAST, UPDLOCK) ORDER BY id OPTION (RECOMPILE);",
        "SELECT TOP (@n) id FROM dbo.q WITH (READPAST, UPDLOCK) ORDER BY id OPTION (OPTIMIZE FOR UNKNOWN);",
        "SELECT TOP (@n) id FROM dbo.q WITH (READPAST, UPDLOCK) ORDER BY id OPTION (MAXDOP 1, OPTIMIZE FOR (@n UNKNOWN));",
        "SELECT TOP (@n - @m) id FROM dbo.q WITH (READPAST, UPDLOCK) OPTION (OPTIMIZE FOR (@n = 1, @m = 0));",
        "SELECT TOP (@limit) id FROM dbo.q_pending ORDER BY id;",
        "SELECT TOP (10) id FROM dbo.q WITH (READPAST, UPDLOCK) ORDER BY id;",
    ],
}

RULES_REPORT = {
    # rule: [(sql, where the finding must point, words of its message)]
    "declared variables": [
        ("CREATE PROCEDURE dbo.p @n int AS\nBEGIN\n    DECLARE @q$t TABLE (id int);\n    DELETE FROM @t;\nEND", "@t",
         "error 137"),
        ("CREATE PROCEDURE dbo.p AS\nBEGIN\n    EXEC dbo.other @n = @missing;\nEND", "@missing", "not declared"),
    ],
    "isolation": [
        ("CREATE PROCEDURE dbo.p AS\nBEGIN\n    SET NOCOUNT ON;\n    " + CLAIM_CTE + "\nEND", "READPAST", "error 650"),
        ("CREATE OR ALTER PROCEDURE dbo.p AS\nBEGIN\n    " + CLAIM_CTE
         + "\n    SET TRANSACTION ISOLATION LEVEL READ COMMITTED;\nEND", "READPAST", "READ COMMITTED"),
        ("CREATE PROC dbo.p AS\nSET TRANSACTION ISOLATION LEVEL SERIALIZABLE;\n" + CLAIM_CTE, "READPAST", "error 650"),
        ("CREATE PROCEDURE dbo.p AS\nBEGIN\n    SET TRANSACTION ISOLATION LEVEL READ COMMITTED;\n"
         "    SET TRANSACTION ISOLATION LEVEL SNAPSHOT;\n    " + CLAIM_CTE + "\nEND", "READPAST", "error 650"),
    ],
    "locking read": [
        ("SELECT MIN(j.id) FROM dbo.q AS j WITH (READPAST) WHERE j.state = 0;", "dbo.q", "READ_COMMITTED_SNAPSHOT"),
        ("UPDATE w SET id = 5 FROM dbo.w AS w WITH (ROWLOCK, READPAST) WHERE w.id < 5;", "dbo.w", "locking hint"),
    ],
    "second reference": [
        (OLD_CLAIM, "UPDATE", "do not cover"),
        (OLD_CLAIM.replace("UPDATE [job] SET state = 1\nOUTPUT inserted", "DELETE [job]\nOUTPUT deleted"), "DELETE", "do not cover"),
        (";WITH c AS (SELECT TOP (10) id FROM dbo.q WITH (ROWLOCK, READPAST, UPDLOCK) ORDER BY id)\n"
         "UPDATE dbo.q SET state = 1 FROM dbo.q INNER JOIN c ON c.id = dbo.q.id;", "UPDATE", "updatable CTE"),
        ("UPDATE dbo.q SET state = 1\nWHERE id IN (SELECT TOP (10) id FROM dbo.q WITH (ROWLOCK, READPAST, UPDLOCK) ORDER BY id);",
         "UPDATE", "do not cover"),
        ("DELETE FROM q\nWHERE id IN (SELECT TOP (10) id FROM dbo.q WITH (ROWLOCK, READPAST, UPDLOCK) ORDER BY id);",
         "DELETE", "do not cover"),
    ],
    "output into": [
        ("INSERT INTO dbo.q (state) OUTPUT inserted.id, CAST(1 AS bit) AS [enqueued] VALUES (1);", "OUTPUT", "error 334"),
        ("INSERT INTO dbo.q (state) OUTPUT inserted.id SELECT state FROM @jobs;", "OUTPUT", "INTO a @table"),
        ("DELETE FROM dbo.q OUTPUT deleted.* WHERE id = 1;", "OUTPUT", "error 334"),
        ("UPDATE dbo.q SET state = 1 OUTPUT inserted.id WHERE id = 1;", "OUTPUT", "error 334"),
        ("MERGE dbo.q AS t USING @s AS s ON t.id = s.id\nWHEN MATCHED THEN DELETE\nOUTPUT $action, deleted.id;", "OUTPUT", "error 334"),
        (";WITH c AS (SELECT TOP (1) id FROM dbo.q WITH (READPAST, UPDLOCK) ORDER BY id)\nDELETE FROM c OUTPUT deleted.id;",
         "OUTPUT", "error 334"),
        # The old fail and reap wrote their dead letters so
        ("DELETE FROM dbo.q OUTPUT deleted.id, deleted.state INTO dbo.q_archive (id, state) WHERE id = 1;", "OUTPUT",
         "INTO a permanent table (dbo.q_archive)"),
        ("DELETE FROM [s].[q] OUTPUT deleted.[id], @e, @now INTO [s].[q_dead] ([id], [last_error], [dead_at]) WHERE [id] = @id;",
         "OUTPUT", "fails (331, 332)"),
    ],
    "watermark wait": [
        ("CREATE PROCEDURE dbo.q_fail @id bigint AS\nBEGIN\n    UPDATE dbo.q_watermark SET [id] = @id WHERE [id] > @id;\nEND",
         "dbo.q_watermark", "waits on the watermark row"),
        ("CREATE PROCEDURE [s].[q_reap] AS\nBEGIN\n    UPDATE [w] SET [id] = 1\n"
         "    FROM [s].[q_watermark] AS [w] WITH (UPDLOCK, ROWLOCK) WHERE [w].[id] > 1;\nEND", "[s].[q_watermark]", "READPAST"),
        ("CREATE PROCEDURE dbo.q_extend_lease AS\nBEGIN\n    SELECT [id] FROM dbo.q_watermark WITH (UPDLOCK);\nEND",
         "dbo.q_watermark", "watermark wait"),
    ],
    "blind watermark": [
        ("CREATE PROCEDURE dbo.q_watermark_correct AS\nBEGIN\n    DECLARE @o bigint;\n"
         "    SELECT @o = [id] FROM dbo.q_watermark WITH (UPDLOCK, HOLDLOCK, ROWLOCK);\nEND", "dbo.q_watermark WITH", "READPAST"),
        ("CREATE PROCEDURE dbo.q_watermark_correct AS\nBEGIN\n"
         "    SELECT MIN(j.id) FROM dbo.q AS j WITH (NOLOCK) WHERE j.lease_token IS NULL;\nEND", "dbo.q AS", "still there"),
    ],
    "applock principal": [
        ("EXEC @r = sys.sp_getapplock @Resource = N'x', @LockMode = 'Exclusive', @LockOwner = 'Transaction',\n"
         "    @LockTimeout = 0;", "sp_getapplock", "public"),
        ("BEGIN TRAN;\nEXEC sp_getapplock N'x', 'Exclusive';\nSELECT 1;", "sp_getapplock", "@DbPrincipal"),
    ],
    "broken chain": [
        ("CREATE PROCEDURE dbo.q_purge AS\nBEGIN\n    DECLARE @s nvarchar(200) = N'DELETE FROM dbo.q';\n    EXEC (@s);\nEND",
         "EXEC (@s)", "caller's permissions"),
        ("CREATE PROCEDURE dbo.q_peek AS\nBEGIN\n    EXEC sys.sp_executesql N'SELECT id FROM dbo.q';\nEND",
         "sp_executesql", "EXECUTE alone"),
        # The chain covers SELECT, INSERT, UPDATE, DELETE and EXECUTE: not what needs ALTER on a table.
        ("CREATE PROCEDURE dbo.q_purge AS\nBEGIN\n    TRUNCATE TABLE dbo.q;\nEND", "TRUNCATE", "ALTER"),
        ("CREATE PROCEDURE dbo.q_load AS\nBEGIN\n    SET IDENTITY_INSERT dbo.q ON;\nEND", "SET", "IDENTITY_INSERT"),
        ("CREATE PROCEDURE dbo.q_reseed AS\nDBCC CHECKIDENT (N'dbo.q', RESEED, 0);", "DBCC", "ALTER"),
        ("CREATE PROCEDURE dbo.q_tidy AS\nALTER INDEX ALL ON dbo.q REBUILD;", "ALTER", "ALTER"),
        ("CREATE PROCEDURE dbo.q_tidy AS\nUPDATE STATISTICS dbo.q;", "UPDATE", "ALTER"),
        # EXECUTE AS CALLER is the default: the chain still breaks.
        ("CREATE PROCEDURE dbo.q_peek\nWITH EXECUTE AS CALLER\nAS\nEXEC (N'SELECT id FROM dbo.q');",
         "EXEC (N'SELECT", "caller's permissions"),
    ],
    "value limit": [
        # 002's enqueue before the fix: a 37-character card code was cut to 32
        ("CREATE OR ALTER PROCEDURE [s].[q_enqueue]\n    @card_number nvarchar(32),\n    @n int = 0\nAS\nBEGIN\n"
         "    INSERT INTO [s].[q] ([card_number], [n]) VALUES (@card_number, @n);\nEND", "@card_number", "cuts a longer value"),
        # dequeue's @owner and fail's @error before this rule
        ("CREATE PROCEDURE dbo.q_dequeue @owner nvarchar(128) = NULL\nAS\nBEGIN\n"
         "    UPDATE dbo.q SET lease_owner = @owner, claimed_by = COALESCE(@owner, ORIGINAL_LOGIN()) WHERE id = 1;\nEND",
         "@owner", "DATALENGTH(@owner)"),
        ("CREATE PROCEDURE dbo.q_fail @error nvarchar(4000) = NULL\nAS\nBEGIN\n"
         "    INSERT INTO dbo.q_dead (id, last_error) SELECT id, @error FROM dbo.q WHERE id = 1;\nEND", "@error", "value limit"),
        # a decimal rounds its extra scale; a check after the write is too late
        ("CREATE PROCEDURE dbo.q_complete @amount decimal(36, 4)\nAS\nBEGIN\n    INSERT INTO dbo.o (amount) VALUES (@amount);\n"
         "    IF @amount <> ROUND(@amount, 4, 1)\n        THROW 50010, N'x', 1;\nEND", "@amount", "rounds extra scale"),
        # handed on to another procedure, unchecked
        ("CREATE PROCEDURE dbo.q_worker @owner varchar(128) = NULL\nAS\nBEGIN\n    EXEC dbo.q_dequeue @owner = @owner;\nEND",
         "@owner", "varchar(128)"),
        # a check that does not refuse
        ("CREATE PROCEDURE dbo.q_enqueue @by nvarchar(129) = NULL\nAS\nBEGIN\n    IF DATALENGTH(@by) > 256\n"
         "        PRINT N'long';\n    INSERT INTO dbo.q (enqueued_by) VALUES (@by);\nEND", "@by", "value limit"),
        # a check the parameter's type can never fail: the value was cut to 32 before it ran
        ("CREATE PROCEDURE dbo.q_enqueue @code nvarchar(32)\nAS\nBEGIN\n    IF DATALENGTH(@code) > 64\n"
         "        THROW 50010, N'x', 1;\n    INSERT INTO dbo.q (code) VALUES (@code);\nEND", "@code", "never fail"),
        ("CREATE PROCEDURE dbo.q_complete @amount decimal(36, 4)\nAS\nBEGIN\n    IF @amount <> ROUND(@amount, 4, 1)\n"
         "        THROW 50010, N'x', 1;\n    INSERT INTO dbo.o (amount) VALUES (@amount);\nEND", "@amount", "rounds extra scale"),
        # 002's enqueue_json before the fix: OPENJSON cut the card code to 32 (the check came later)
        (JSON_PROC.replace("WIDTH", "32"), "[code] nvarchar", "OPENJSON"),
    ],
    "plan pinning": [
        ("SELECT TOP (@n) id FROM dbo.q WITH (READPAST, UPDLOCK) ORDER BY id;", "TOP", "OPTIMIZE FOR (@n = 1)"),
        ("INSERT INTO @e (id)\nSELECT TOP (@batch_size) id FROM dbo.q WITH (ROWLOCK, READPAST, UPDLOCK);", "TOP", "sniffed"),
        (CLAIM_CTE.replace("TOP (10)", "TOP (@batch_size)"), "TOP", "@batch_size"),
        ("SELECT TOP (@n) id FROM dbo.q WITH (READPAST, UPDLOCK) OPTION (OPTIMIZE FOR (@other = 1));", "TOP", "@n"),
        ("SELECT TOP (@n - @m) id FROM dbo.q WITH (READPAST, UPDLOCK) OPTION (OPTIMIZE FOR (@n = 1));", "TOP", "TOP (@m)"),
        ("SELECT TOP (@n) id FROM dbo.q WITH (READPAST, UPDLOCK) OPTION (MAXDOP 1);", "TOP", "RECOMPILE"),
    ],
}


@pytest.mark.parametrize(("rule", "sql"), [(rule, sql) for rule, samples in RULES_PASS.items() for sql in samples])
def test_rule_passes(rule, sql):
    assert own_findings(sql) == [], "\n".join(map(str, own_findings(sql)))


@pytest.mark.parametrize(("rule", "sql", "needle", "words"),
                         [(rule, *sample) for rule, samples in RULES_REPORT.items() for sample in samples])
def test_rule_reports(rule, sql, needle, words):
    findings = own_findings(sql, "s.sql")
    assert [(f.line, f.column) for f in findings] == [at(sql, needle)], "\n".join(map(str, findings))
    assert words in findings[0].message


def test_rule_samples_are_t_sql(parser):
    """Every rule sample parses: the rules judge real T-SQL, not made-up shapes."""
    samples = [sql for samples in RULES_PASS.values() for sql in samples]
    samples += [sample[0] for samples in RULES_REPORT.values() for sample in samples]
    records = parse_batches(samples)
    assert [(samples[r["batch"]], r["message"]) for r in records] == []


def test_finding_str():
    assert str(Finding("q.sql", 3, 7, "own", "boom")) == "q.sql:3:7: [own] boom"


# --------------------------------------------------------------------------------------------------
# Gate 3, deployment rules: SET options first, filtered indexes carry their filter columns

SESSION = """\
SET ANSI_NULLS, QUOTED_IDENTIFIER, ANSI_PADDING, ANSI_WARNINGS, ARITHABORT, CONCAT_NULL_YIELDS_NULL ON;
SET NUMERIC_ROUNDABORT OFF;
GO
"""

DEPLOYABLE = SESSION + """\
SET NOCOUNT, XACT_ABORT ON;
DECLARE @x int;
SET @x = 1;
GO
IF OBJECT_ID(N'dbo.job', N'U') IS NULL
BEGIN
    CREATE TABLE dbo.job (id bigint NOT NULL, lease_token uniqueidentifier NULL, processed bit NOT NULL, n int NOT NULL);
    DECLARE @state int = CASE WHEN 1 = 1 THEN 1 ELSE 0 END;
    CREATE INDEX job_n_ux ON dbo.job (n, processed) WHERE processed IN (0, 1) WITH (ONLINE = OFF);
    IF @state = 1
    BEGIN
        CREATE INDEX job_lease_ix ON dbo.job (lease_token) WHERE lease_token IS NOT NULL;
    END;
    CREATE INDEX job_plain_ix ON dbo.job (n DESC) INCLUDE (id);
END;
GO
IF NOT EXISTS (SELECT 1 FROM sys.indexes WHERE name = N'job_claim_ix')
    CREATE NONCLUSTERED INDEX [job_claim_ix] ON [dbo].[job] ([id]) INCLUDE ([lease_token], [processed])
    WHERE [lease_token] IS NULL AND [processed] = 0;
IF INDEXPROPERTY(OBJECT_ID(N'dbo.job'), N'job_negative_ix', N'IndexID') IS NULL
    CREATE INDEX job_negative_ix ON dbo.job (id, n) WHERE n > -1 AND n <> 7;
IF TYPE_ID(N'dbo.id_list') IS NULL
    CREATE TYPE dbo.id_list AS TABLE ([ordinal] int NOT NULL PRIMARY KEY);
GO
CREATE OR ALTER PROCEDURE dbo.job_take
AS
BEGIN
    SET NOCOUNT, XACT_ABORT ON;
    SET TRANSACTION ISOLATION LEVEL READ COMMITTED;
    SET ANSI_WARNINGS, ANSI_PADDING, CONCAT_NULL_YIELDS_NULL, ARITHABORT ON;
    SET NUMERIC_ROUNDABORT OFF;
    CREATE TABLE #taken (id bigint NOT NULL);
    SELECT id FROM #taken;
END;
GO
"""


def test_deployable_script_passes_every_gate(parser, sqlfluff):
    findings = check_scripts({"deployable.sql": DEPLOYABLE})["deployable.sql"]
    assert not findings, "\n".join(map(str, findings))


def test_a_script_that_creates_nothing_needs_no_session():
    assert session_findings("DROP TABLE IF EXISTS dbo.t;\nGO\nEXEC(N'CREATE SCHEMA [s]');\n") == []


def test_create_without_the_session_options_is_reported_at_the_create():
    text = "IF OBJECT_ID(N'dbo.t') IS NULL\n    CREATE TABLE dbo.t (id int NOT NULL);\nGO\n"
    findings = session_findings(text, "t.sql")
    assert where(findings, "own") == [at(text, "CREATE")]
    assert "QUOTED_IDENTIFIER ON" in findings[0].message and "NUMERIC_ROUNDABORT OFF" in findings[0].message


def test_session_options_in_the_same_batch_as_the_create_do_not_count():
    # QUOTED_IDENTIFIER and ANSI_NULLS are fixed when the batch is parsed: a SET inside it is too late.
    text = SESSION.replace("GO\n", "") + "CREATE TABLE dbo.t (id int NOT NULL);\nGO\n"
    assert where(session_findings(text), "own") == [at(text, "CREATE")]


def test_one_missing_option_is_named():
    text = SESSION.replace("QUOTED_IDENTIFIER, ", "") + "CREATE TABLE dbo.t (id int NOT NULL);\nGO\n"
    findings = session_findings(text)
    assert len(findings) == 1 and findings[0].message.endswith("QUOTED_IDENTIFIER ON")


def test_options_set_over_several_batches_count():
    text = ("SET ANSI_NULLS ON;\nGO\nSET QUOTED_IDENTIFIER ON;\nSET ANSI_PADDING ON;\nSET ANSI_WARNINGS ON;\n"
            "SET ARITHABORT ON;\nSET CONCAT_NULL_YIELDS_NULL ON;\nSET NUMERIC_ROUNDABORT OFF;\nGO\n"
            "CREATE TABLE dbo.t (id int NOT NULL);\n")
    assert session_findings(text) == []


def test_an_option_switched_back_is_reported_where_it_is_switched():
    text = DEPLOYABLE + "SET QUOTED_IDENTIFIER OFF;\nGO\nCREATE OR ALTER VIEW dbo.v AS SELECT 1 AS x;\nGO\n"
    findings = session_findings(text)
    assert where(findings, "own") == [at(text, "SET QUOTED_IDENTIFIER OFF")]
    assert "QUOTED_IDENTIFIER OFF" in findings[0].message


@pytest.mark.parametrize(
    ("sql", "missing"),
    [
        ("CREATE NONCLUSTERED INDEX ix ON dbo.t (id) WHERE lease_token IS NULL AND processed = 0;", "LEASE_TOKEN, PROCESSED"),
        ("CREATE INDEX ix ON dbo.t (id) INCLUDE (lease_token) WHERE [lease_token] IS NULL AND [processed] = 0;", "PROCESSED"),
        ("IF NOT EXISTS (SELECT 1 FROM sys.indexes WHERE name = N'ix')\n"
         "    CREATE UNIQUE NONCLUSTERED INDEX [ix] ON [dbo].[t] ([id] DESC) WHERE [state] IN (1, 2) WITH (ONLINE = ON);", "STATE"),
        ("CREATE INDEX ix ON dbo.t (a) WHERE b IS NOT NULL\nSELECT 1", "B"),
    ],
)
def test_filtered_index_without_its_filter_columns_is_reported(sql, missing):
    findings = filtered_index_findings(sql, "ix.sql")
    assert where(findings, "own") == [at(sql, "WHERE", sql.count("WHERE"))]
    assert f"filters on {missing} but" in findings[0].message


CLAIM_INDEX = ("CREATE NONCLUSTERED INDEX [t_claim_ix] ON [dbo].[t] ([id]) INCLUDE ([lease_token], [deferred])\n"
               "    WHERE [lease_token] IS NULL AND [deferred] = 0;\nGO\n")


def claim_sql(where: str) -> str:
    return ("CREATE OR ALTER PROCEDURE dbo.c AS\nBEGIN\n    ;WITH [next_job] AS\n    (\n"
            "        SELECT TOP (@n) [id], [lease_token] FROM [dbo].[t] WITH (ROWLOCK, READPAST, UPDLOCK)\n"
            f"        WHERE {where}\n        ORDER BY [id]\n    )\n"
            "    UPDATE [next_job] SET [lease_token] = NEWID() OPTION (OPTIMIZE FOR (@n = 1));\nEND;\n")


@pytest.mark.parametrize("where", [
    "[lease_token] IS NULL AND [deferred] = 0 AND [id] >= @from",
    "[id] >= @from AND [deferred] = 0 AND [lease_token] IS NULL",  # any order
    "[t].[deferred] = 0 AND [t].[lease_token] IS NULL",  # an alias prefix
])
def test_a_claim_naming_its_filtered_index_filter_passes(where):
    assert filtered_claim_findings(CLAIM_INDEX + claim_sql(where), "c.sql") == []


@pytest.mark.parametrize("where", [
    "[lease_token] IS NULL AND [id] >= @from",  # the bit left out: the index holds no row it needs to know of
    "[lease_token] IS NULL AND [deferred] = @deferred",  # a parameter proves nothing to a cached plan
    "[lease_token] IS NULL AND ([deferred] = 0 OR [id] > 0)",  # not a conjunct
])
def test_a_claim_that_does_not_name_its_filtered_index_filter_is_reported(where):
    sql = CLAIM_INDEX + claim_sql(where)
    findings = filtered_claim_findings(sql, "c.sql")
    assert [(f.line, f.column) for f in findings] == [at(sql, "[dbo].[t] WITH")], "\n".join(map(str, findings))
    assert "names no filtered index's whole filter" in findings[0].message and "t_claim_ix" in findings[0].message


def test_rows_looked_up_by_id_through_a_forced_seek_are_no_claim():
    """reap's expiry reads the rows it found by id, the clustered key forced: no filtered index to name."""
    sql = CLAIM_INDEX + claim_sql("[id] IN (SELECT [id] FROM @ids) AND ([lease_token] IS NULL OR [id] > 0)")
    assert filtered_claim_findings(sql, "c.sql"), "without the forced seek it is judged as a claim"
    forced = sql.replace("WITH (ROWLOCK, READPAST, UPDLOCK)", "WITH (ROWLOCK, READPAST, UPDLOCK, INDEX(1), FORCESEEK)")
    assert filtered_claim_findings(forced, "c.sql") == []


def test_a_claim_on_a_table_without_filtered_indexes_is_not_judged():
    assert filtered_claim_findings(claim_sql("[id] >= @from"), "c.sql") == []


# Example 002's claim read the archive WITH (UPDLOCK, HOLDLOCK) before archiving its
# code, and enqueue read it so before queueing one.
SALE = ("CREATE OR ALTER PROCEDURE dbo.sell AS\nBEGIN\n    ;WITH [next_job] AS\n    (\n"
        "        SELECT TOP (1) [id], [code] FROM [dbo].[codes] WITH (ROWLOCK, READPAST, UPDLOCK) ORDER BY [id]\n    )\n"
        "    DELETE FROM [next_job] OUTPUT deleted.[id], deleted.[code] INTO @c ([id], [code]);\n"
        "    DELETE [c] FROM @c AS [c] WHERE EXISTS (SELECT 1 FROM [dbo].[codes_archive] AS [a] {hint}\n"
        "                                         WHERE [a].[code] = [c].[code]);\n"
        "    INSERT INTO [dbo].[codes_archive] ([id], [code]) SELECT [id], [code] FROM @c;\nEND;\nGO\n")
IMPORT = ("CREATE OR ALTER PROCEDURE dbo.import @code nvarchar(32) AS\nBEGIN\n"
          "    IF NOT EXISTS (SELECT 1 FROM [dbo].[codes_archive] {hint} WHERE [code] = @code)\n"
          "        INSERT INTO [dbo].[codes] ([code]) VALUES (@code);\nEND;\nGO\n")


@pytest.mark.parametrize("hint", ["WITH (UPDLOCK, HOLDLOCK)", "WITH (SERIALIZABLE)"])
@pytest.mark.parametrize("which", ["claim", "enqueue"])
def test_a_range_lock_on_a_table_claims_insert_into_is_reported(hint, which):
    sql = SALE.format(hint=hint if which == "claim" else "WITH (READCOMMITTEDLOCK)") \
        + IMPORT.format(hint=hint if which == "enqueue" else "")
    findings = claim_range_lock_findings(sql, "c.sql")
    needle = "[dbo].[codes_archive] AS [a]" if which == "claim" else "[dbo].[codes_archive] WITH"
    assert [(f.line, f.column) for f in findings] == [at(sql, needle)], "\n".join(map(str, findings))
    assert "claim range lock" in findings[0].message


def test_a_key_read_of_a_table_claims_insert_into_passes_and_a_range_lock_elsewhere_is_not_judged():
    sql = SALE.format(hint="WITH (READCOMMITTEDLOCK)") + IMPORT.format(hint="")
    # the queue table's own range lock in enqueue: no claim inserts into the queue table
    sql += IMPORT.replace("dbo.import", "dbo.import2").format(hint="").replace("[dbo].[codes_archive]", "[dbo].[codes] WITH (UPDLOCK, HOLDLOCK)")
    assert claim_range_lock_findings(sql, "c.sql") == []


@pytest.mark.parametrize(
    ("sql", "needle"),
    [
        ("CREATE TABLE dbo.t (id int NOT NULL);", "CREATE"),
        ("IF OBJECT_ID(N'dbo.t', N'U') IS NOT NULL\n    CREATE TABLE dbo.t (id int NOT NULL);", "CREATE"),
        ("IF EXISTS (SELECT 1 FROM sys.indexes WHERE name = N'ix')\n    CREATE INDEX ix ON dbo.t (a);", "CREATE"),
        # the guard covers the block it opens, not what follows it
        ("IF OBJECT_ID(N'dbo.t', N'U') IS NULL\nBEGIN\n    CREATE TABLE dbo.t (a int);\nEND;\nCREATE INDEX ix ON dbo.t (a);",
         "CREATE INDEX"),
        ("IF TYPE_ID(N'dbo.tt') IS NULL\n    SELECT 1;\nCREATE TYPE dbo.tt AS TABLE (a int);", "CREATE TYPE"),
        ("BEGIN TRANSACTION;\nCREATE ROLE [r];\nCOMMIT;", "CREATE ROLE"),
    ],
)
def test_an_unguarded_create_is_reported(sql, needle):
    findings = rerun_findings(sql, "r.sql")
    assert [(f.line, f.column) for f in findings] == [at(sql, needle)], "\n".join(map(str, findings))
    assert "run twice" in findings[0].message


def test_deploy_findings_runs_every_rule():
    text = "CREATE INDEX ix ON dbo.t (a) WHERE b = 1;\n"
    assert sorted(f.message.split(" ")[0] for f in deploy_findings(text)) == ["CREATE", "CREATE", "filtered"]


PROCEDURE_START = ("    SET NOCOUNT, XACT_ABORT ON;\n"
                   "    SET TRANSACTION ISOLATION LEVEL READ COMMITTED;\n"
                   "    SET ANSI_WARNINGS, ANSI_PADDING, CONCAT_NULL_YIELDS_NULL, ARITHABORT ON;\n"
                   "    SET NUMERIC_ROUNDABORT OFF;\n")


def test_a_procedure_opening_with_every_session_option_passes():
    text = "CREATE OR ALTER PROCEDURE dbo.p @n int = 1\nAS\nBEGIN\n" + PROCEDURE_START + "    DELETE FROM dbo.t;\nEND;\n"
    assert procedure_session_findings(text) == []
    assert procedure_session_findings("CREATE TABLE dbo.t (id int);\nGO\nSET NOCOUNT ON;\n") == []


@pytest.mark.parametrize(
    ("start", "missing"),
    [
        (PROCEDURE_START.replace("XACT_ABORT ON", "XACT_ABORT OFF"), "XACT_ABORT ON"),
        (PROCEDURE_START.replace("READ COMMITTED", "SERIALIZABLE"), "TRANSACTION ISOLATION LEVEL READ COMMITTED"),
        (PROCEDURE_START.replace("    SET NUMERIC_ROUNDABORT OFF;\n", ""), "NUMERIC_ROUNDABORT OFF"),
        # a SET after the first other statement is too late: that statement already ran without it
        (PROCEDURE_START.replace("    SET NUMERIC_ROUNDABORT OFF;\n", "") + "    DELETE FROM dbo.t;\n"
         "    SET NUMERIC_ROUNDABORT OFF;\n", "NUMERIC_ROUNDABORT OFF"),
    ],
)
def test_a_procedure_without_the_same_session_options_is_reported_at_its_create(start, missing):
    text = "GO\nCREATE PROCEDURE dbo.p\nAS\nBEGIN\n" + start + "    DELETE FROM dbo.t;\nEND;\n"
    findings = procedure_session_findings(text, "p.sql")
    assert [(f.line, f.column) for f in findings] == [at(text, "CREATE")], "\n".join(map(str, findings))
    assert missing in findings[0].message and "procedure session" in findings[0].message


@pytest.mark.parametrize(
    ("body", "needle"),
    [
        # every qgen procedure before the fix: its work escaped a caller with implicit transactions
        ("    SET IMPLICIT_TRANSACTIONS OFF;\n    INSERT INTO dbo.t VALUES (1);\n", "SET IMPLICIT_TRANSACTIONS"),
        ("    SET IMPLICIT_TRANSACTIONS ON;\n    INSERT INTO dbo.t VALUES (1);\n", "SET IMPLICIT_TRANSACTIONS"),
        ("    SET ANSI_NULL_DFLT_ON, IMPLICIT_TRANSACTIONS OFF;\n", "SET ANSI_NULL_DFLT_ON"),
        # delete-mode dequeue's and purge's tests before the fix: @@TRANCOUNT 0 read as "commits by itself"
        ("    IF @@TRANCOUNT = 0 AND @at_most_once = 0\n        THROW 50005, N'x', 1;\n", "@@TRANCOUNT"),
        ("    IF @@TRANCOUNT > 0\n        THROW 50004, N'x', 1;\n", "@@TRANCOUNT"),
    ],
)
def test_a_procedure_that_misreads_or_switches_off_the_callers_transaction_is_reported(body, needle):
    text = "CREATE PROCEDURE dbo.p\nAS\nBEGIN\n" + PROCEDURE_START + body + "END;\n"
    findings = procedure_session_findings(text, "p.sql")
    assert [(f.line, f.column) for f in findings] == [at(text, needle)], "\n".join(map(str, findings))
    assert "caller transaction" in findings[0].message


def test_the_callers_transaction_asked_with_implicit_transactions_passes():
    body = ("    IF NOT (@@TRANCOUNT > 0 OR (@@OPTIONS & 2) = 2) AND @at_most_once = 0\n        THROW 50005, N'x', 1;\n"
            "    BEGIN TRANSACTION;\n    INSERT INTO dbo.t VALUES (1);\n    COMMIT TRANSACTION;\n")
    text = "CREATE PROCEDURE dbo.p\nAS\nBEGIN\n" + PROCEDURE_START + body + "END;\n"
    assert procedure_session_findings(text, "p.sql") == []


GUARD = ("IF @@TRANCOUNT = 0\nBEGIN\n    RAISERROR(N'%s', 16, 1, N'stopped');\n    SET NOEXEC ON;\n    RETURN;\nEND;\n")


def test_every_batch_inside_a_transaction_that_spans_batches_opens_with_the_guard():
    text = ("SET XACT_ABORT ON;\nBEGIN TRANSACTION;\nGO\n" + GUARD + "DROP TABLE dbo.a;\nGO\n"
            + GUARD + "IF @@TRANCOUNT > 0\n    COMMIT TRANSACTION;\nGO\nSET NOEXEC OFF;\nGO\n")
    assert transaction_guard_findings(text, "u.sql") == []


@pytest.mark.parametrize(
    "unguarded",
    [
        "DROP TABLE dbo.b;",
        # the guard's block must end the batch: without RETURN the drop after it runs
        "IF @@TRANCOUNT = 0\nBEGIN\n    RAISERROR(N'%s', 16, 1, N'stopped');\nEND;\nDROP TABLE dbo.b;",
        # a guard further down does not keep the statements before it from running
        "DROP TABLE dbo.b;\n" + GUARD,
    ],
)
def test_a_batch_inside_a_transaction_without_the_guard_is_reported(unguarded):
    before = "SET XACT_ABORT ON;\nBEGIN TRANSACTION;\nGO\n" + GUARD + "DROP TABLE dbo.a;\nGO\n"
    text = before + unguarded + "\nGO\n" + GUARD + "COMMIT TRANSACTION;\nGO\nDROP TABLE dbo.after_commit;\nGO\n"
    findings = transaction_guard_findings(text, "u.sql")
    assert [f.line for f in findings] == [before.count("\n") + 1], findings
    assert "transaction guard" in findings[0].message and "line 1" in findings[0].message


def test_a_batch_after_a_guard_of_its_own_is_guarded_and_a_procedure_needs_one():
    begin = "SET XACT_ABORT ON;\nBEGIN TRANSACTION;\nGO\n"
    proc = "CREATE OR ALTER PROCEDURE dbo.p AS\nBEGIN\n    SELECT 1 AS [one];\nEND;\nGO\n"
    end = GUARD + "COMMIT TRANSACTION;\nGO\n"
    assert transaction_guard_findings(begin + GUARD + "GO\n" + proc + GUARD + "GO\n" + "DROP TABLE dbo.a;\nGO\n" + end,
                                      "u.sql") == []
    # a procedure's batch with no guard before it runs in autocommit after a failure
    text = begin + GUARD + "DROP TABLE dbo.a;\nGO\n" + proc + end
    assert [f.line for f in transaction_guard_findings(text, "u.sql")] == [text.index(proc) and text[:text.index(proc)].count("\n") + 1]
    # a guard batch that does more than guard covers only itself
    text = begin + GUARD + "DROP TABLE dbo.a;\nGO\n" + "DROP TABLE dbo.b;\nGO\n" + end
    assert len(transaction_guard_findings(text, "u.sql")) == 1


def test_procedures_and_batches_outside_a_spanning_transaction_need_no_guard():
    text = ("CREATE PROCEDURE dbo.p AS\nBEGIN\n    BEGIN TRANSACTION;\n    COMMIT TRANSACTION;\nEND;\nGO\n"
            "BEGIN TRANSACTION;\nDROP TABLE dbo.a;\nCOMMIT TRANSACTION;\nGO\nDROP TABLE dbo.b;\nGO\n")
    assert transaction_guard_findings(text, "u.sql") == []


# --------------------------------------------------------------------------------------------------
# "lock order" (tools/tsql_gate/locks.py): a job's row and its lease index's key, taken in
# opposite orders by two procedures that hold or end a lease.

LEASE_TABLE = """\
CREATE TABLE [dbo].[q] ([id] bigint NOT NULL, [lease_token] uniqueidentifier NULL, [lease_expires_at] datetime2(3) NULL,
    [attempts] int NOT NULL, CONSTRAINT [q_pk] PRIMARY KEY CLUSTERED ([id]));
GO
CREATE NONCLUSTERED INDEX [q_lease_ix] ON [dbo].[q] ([lease_token]) INCLUDE ([lease_expires_at], [attempts])
    WHERE [lease_token] IS NOT NULL;
GO
"""


def lease_procedure(name: str, body: str) -> str:
    return f"CREATE OR ALTER PROCEDURE [dbo].[q_{name}] @lease_token uniqueidentifier = NULL, @id bigint = NULL\nAS\nBEGIN\n{body}END;\nGO\n"


COMPLETE_BY_ID = lease_procedure("complete", "    UPDATE [dbo].[q] SET [lease_token] = NULL WHERE [id] = @id AND [lease_token] = @lease_token;\n")
REAP_BY_LEASE_INDEX = lease_procedure("reap", (
    "    ;WITH [expired] AS (SELECT TOP (10) [id], [lease_token] FROM [dbo].[q] WITH (ROWLOCK, READPAST, UPDLOCK)\n"
    "        WHERE [lease_token] IS NOT NULL AND [lease_expires_at] < SYSUTCDATETIME())\n"
    "    UPDATE [expired] SET [lease_token] = NULL;\n"))
REAP_BY_ID = lease_procedure("reap", (
    "    DECLARE @ids TABLE ([id] bigint NOT NULL PRIMARY KEY);\n"
    "    INSERT INTO @ids ([id]) SELECT TOP (10) [id] FROM [dbo].[q] WITH (READPAST, READCOMMITTEDLOCK)\n"
    "        WHERE [lease_token] IS NOT NULL AND [lease_expires_at] < SYSUTCDATETIME();\n"
    "    ;WITH [expired] AS (SELECT TOP (10) [id], [lease_token] FROM [dbo].[q] WITH (ROWLOCK, READPAST, UPDLOCK, INDEX(1), FORCESEEK)\n"
    "        WHERE [id] IN (SELECT [id] FROM @ids) AND [lease_token] IS NOT NULL AND [lease_expires_at] < SYSUTCDATETIME())\n"
    "    UPDATE [expired] SET [lease_token] = NULL;\n"))
EXTEND_BY_TOKEN = lease_procedure("extend_lease", (
    "    UPDATE [dbo].[q] SET [lease_expires_at] = SYSUTCDATETIME() WHERE [lease_token] = @lease_token;\n"))


@pytest.mark.parametrize(("second", "needle"), [
    (REAP_BY_LEASE_INDEX, "[dbo].[q] WITH (ROWLOCK, READPAST, UPDLOCK)"),  # the old reap
    (EXTEND_BY_TOKEN, "UPDATE [dbo].[q] SET [lease_expires_at]"),  # a whole lease changed by its token
])
def test_a_lease_index_seek_that_changes_the_row_against_a_change_by_id_is_reported(second, needle):
    sql = LEASE_TABLE + COMPLETE_BY_ID + second
    findings = [f for f in deploy_findings(sql, "l.sql") if "lock order" in f.message]
    assert findings, "the lock-order rule let an inverted pair through"
    assert (findings[-1].line, findings[-1].column) in {at(sql, needle), at(sql, "[dbo].[q]", 4)}, "\n".join(map(str, findings))
    assert all("q_lease_ix" in f.message and "deadlock (1205)" in f.message for f in findings)


def test_a_sweep_that_takes_the_row_by_its_clustered_key_first_passes():
    sql = LEASE_TABLE + COMPLETE_BY_ID + REAP_BY_ID
    assert [f for f in deploy_findings(sql, "l.sql") if "lock order" in f.message] == []


def test_two_readpast_claims_and_plain_reads_are_not_held_to_one_order():
    # a locking read keeps the key it seeks; a plain read keeps nothing; two READPAST statements skip each other
    reader = lease_procedure("dequeue", "    SELECT [id] FROM [dbo].[q] WHERE [lease_token] = @lease_token;\n")
    sql = LEASE_TABLE + REAP_BY_LEASE_INDEX + reader
    assert [f for f in deploy_findings(sql, "l.sql") if "lock order" in f.message] == []
