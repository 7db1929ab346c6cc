"""Babelfish for PostgreSQL as the tests' T-SQL engine: detecting it, and the one place where the SQL
the harness sends is rewritten around its gaps.

Babelfish (../shared/babelfish, GAPS.md there) is not SQL Server. The product's SQL is written for
SQL Server and never changed to suit Babelfish: where one of its gaps blocks a statement the harness
sends, the statement is rewritten here, into one SQL Server itself would not need, and each rewrite
names its gap (B1, B2, ... as GAPS.md numbers them). The rewrites apply only when the server is
Babelfish (`is_babelfish`: @@VERSION), never on a real SQL Server. Where no rewrite can serve, a
test is marked `@pytest.mark.babelfish_gap("Bn", "why")` and skips on Babelfish with that reason.

`rewrite(batch)` -> the batches to send instead (a CREATE OR ALTER becomes two); `REWRITTEN` counts
what was rewritten, per gap (tests/conftest.py prints it at the end of a run).
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import re
import tempfile
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Iterator, Optional

# Gap ids (GAPS.md) and what each means for the tests; B14.. are found by this project (README).
GAPS = {
    "B1": "CREATE OR ALTER PROCEDURE/VIEW/FUNCTION is not supported",
    "B2": "WAITFOR DELAY is not supported",
    "B3": "UPDATE/DELETE through a CTE fails",
    "B4": "an UPDATE that assigns a variable (SET @v = col) fails when it ends with ;",
    "B5": "GRANT EXECUTE ON TYPE:: and GRANT VIEW DEFINITION ON OBJECT:: are refused",
    "B6": "sys.indexes.name holds an internal name (index + table + md5)",
    "B7": "SET NOEXEC ON is accepted and ignored",
    "B8": "sys.identity_columns returns a row for every identity column of that name in the schema",
    "B9": "no SQL Server Agent",
    "B10": "table and query hints are ignored: locking is PostgreSQL's, not SQL Server's",
    "B11": "a cached plan can fail on its second execution for some UPDATE ... FROM ... OUTPUT shapes",
    "B12": "a table-valued parameter from Microsoft's ODBC driver fails (8058 / 16901)",
    "B13": "ALTER DATABASE ... SET is not supported",
    # Found by this project's tests, not (yet) in GAPS.md:
    "B14": "a datetime2 parameter sent by Microsoft's ODBC driver loses its fractional seconds",
    "B15": "OPENJSON ... WITH (c nvarchar(max) '$.k') returns a JSON string value still escaped (\\\" stays)",
    "B16": "CREATE LOGIN ... CHECK_POLICY = OFF is refused",
    "B17": "SET TRANSACTION ISOLATION LEVEL REPEATABLE READ / SERIALIZABLE is refused (unless mapped to PostgreSQL's)",
    "B18": "permission denied comes as error 33557097, not 229/230",
    "B19": "an INSERT that a unique index refuses for one row does not burn identity values as SQL Server's does",
    "B20": "sys.dm_tran_session_transactions, sys.dm_exec_requests and other DMVs are missing",
    "B21": "no ownership chaining: a procedure's caller needs rights on what it reaches (tables, other procedures)",
    "B22": "CURRENT_TRANSACTION_ID() is missing",
    "B23": "each call takes far longer than on SQL Server (tens to hundreds of ms), too slow for a test's sub-second timing",
    "B24": "HASHBYTES over an nvarchar hashes its UTF-8 bytes, not UTF-16LE as SQL Server does (and CAST AS varbinary gives one byte a character)",
    "B25": "SET TRANSACTION ISOLATION LEVEL to another level inside an open transaction, after its first statement, "
           "fails and aborts the transaction (PostgreSQL's rule)",
    "B26": "a module's EXECUTE AS OWNER (SELF, a user) is 'not currently supported'",
    "B27": "sp_getapplock ignores @DbPrincipal (a lock taken as one principal blocks another's) and returns -999, "
           "not -1, for a lock not granted within @LockTimeout",
    "B28": "a named default constraint cannot be dropped by its name (ALTER TABLE ... DROP CONSTRAINT [name]: 3728)",
    "B32": "a lock not granted within SET LOCK_TIMEOUT raises 33557097 ('canceling statement due to lock timeout'), "
           "not 1222, and ends the whole transaction (SQL Server ends the statement only)",
    "B29": "the dbo schema is owned by the db_owner role (SQL Server: the dbo user), so install refuses schema: dbo (50022)",
    "B30": "DATALENGTH of an nvarchar value counts its UTF-8 bytes, not two per UTF-16 code unit; a conversion's "
           "refusal (a number past int's range, a string not a time) comes as 33557097",
    "B31": "OPENJSON ... WITH (c nvarchar(max) '$.k') cuts the value to 4000 characters",
    "B33": "sys.sql_expression_dependencies is empty (and sys.parameters missing): no module's use of another "
           "object can be found, and a call of a dropped procedure is not refused",
    "B34": "OUTPUT ... INTO a table that has a trigger is accepted (SQL Server refuses it: 332; 331 for a foreign key "
           "or CHECK on it)",
    "B37": "two sessions creating or dropping databases or logins at once fail one with 'tuple concurrently updated' "
           "(33557097): SQL Server serialises them itself",
    "B35": "a call that races a DROP PROCEDURE and CREATE PROCEDURE of its procedure (B1's rewrite of CREATE OR ALTER) "
           "fails with 'cache lookup failed for function' (33557097); SQL Server's CREATE OR ALTER keeps the object, "
           "and a call waits for it",
    "B36": "an ODBC call escape {CALL p (?, ...)} with parameters, which Microsoft's ODBC driver sends as "
           "sp_prepexecrpc, is refused ('SP_PREPEXECRPC not supported yet', 16901)",
}

REWRITTEN: Counter = Counter()
# B18: the error number Babelfish gives every PostgreSQL error it has no T-SQL number for (a permission
# refusal among them): tests/behaviour/helpers.py tells a refusal there by PostgreSQL's words.
BABELFISH_UNMAPPED = 33557097


@contextlib.contextmanager
def server_ddl(url: str, babelfish: bool) -> Iterator[None]:
    """B37: on Babelfish, one process at a time creates or drops a database or a login on the server
    `url` names (the test processes of one run, and other runs on the machine, take turns through a
    lock file); on SQL Server nothing is held."""
    if not babelfish:
        yield
        return
    key = hashlib.sha1(url.split("@")[-1].split("/")[0].encode()).hexdigest()[:16]
    with open(Path(tempfile.gettempdir()) / f"qgen-babelfish-ddl-{key}.lock", "a") as held:
        fcntl.flock(held, fcntl.LOCK_EX)
        REWRITTEN["B37"] += 1
        try:
            yield
        finally:
            fcntl.flock(held, fcntl.LOCK_UN)


def is_babelfish(connection: Any) -> bool:
    """Is the server behind this DB-API connection Babelfish (not SQL Server)?"""
    cursor = connection.cursor()
    try:
        version = cursor.execute("SELECT @@VERSION").fetchone()[0]
    finally:
        cursor.close()
    return str(version).startswith("Babelfish")


# ---------------------------------------------------------------------------------------------
# A scanner that knows T-SQL's strings, quoted names and comments, so rewrites never look inside them


def _code_mask(sql: str, keep_strings: bool = False) -> str:
    """sql with every string literal (unless keep_strings), [quoted name] body and comment replaced by
    spaces (same length), so that a regex or a parenthesis count over the mask sees only code."""
    out = list(sql)
    i, n = 0, len(sql)
    while i < n:
        c = sql[i]
        if sql.startswith("--", i):
            j = sql.find("\n", i)
            j = n if j < 0 else j
        elif sql.startswith("/*", i):
            j = sql.find("*/", i + 2)
            j = n if j < 0 else j + 2
        elif c == "'":
            j = i + 1
            while j < n and not (sql[j] == "'" and not sql.startswith("''", j)):
                j += 2 if sql.startswith("''", j) else 1
            j += 1
            if keep_strings:
                i = j
                continue
        elif c == "[":
            j = i + 1
            while j < n and not (sql[j] == "]" and not sql.startswith("]]", j)):
                j += 2 if sql.startswith("]]", j) else 1
            for k in range(i + 1, min(j, n)):
                out[k] = "x"  # a quoted name stays a word, its brackets kept
            i = j + 1
            continue
        else:
            i += 1
            continue
        for k in range(i, min(j, n)):
            if out[k] != "\n":
                out[k] = " "
        i = j
    return "".join(out)


def _closing(mask: str, open_at: int) -> int:
    """The index of the parenthesis closing the one at open_at."""
    depth = 0
    for i in range(open_at, len(mask)):
        if mask[i] == "(":
            depth += 1
        elif mask[i] == ")":
            depth -= 1
            if depth == 0:
                return i
    raise ValueError("unbalanced parentheses")


def _statement_end(mask: str, start: int) -> int:
    """The index of the ; ending the statement that starts at start (parentheses balanced), or len."""
    depth = 0
    for i in range(start, len(mask)):
        if mask[i] == "(":
            depth += 1
        elif mask[i] == ")":
            depth -= 1
        elif mask[i] == ";" and depth == 0:
            return i
    return len(mask)


# ---------------------------------------------------------------------------------------------
# The rewrites, one per gap


@dataclass(frozen=True)
class Rewrite:
    gap: str
    apply: Callable[[str], Optional[list[str]]]  # the batches to send instead, or None: not applicable


_CREATE_OR_ALTER = re.compile(r"\bCREATE\s+OR\s+ALTER\s+(PROCEDURE|PROC|VIEW|FUNCTION|TRIGGER)\s+"
                              r"((?:\[(?:[^\]]|\]\])+\]|\w+)(?:\.(?:\[(?:[^\]]|\]\])+\]|\w+))?)", re.IGNORECASE)


def _b1_create_or_alter(batch: str) -> Optional[list[str]]:
    """B1: CREATE OR ALTER X name -> DROP X IF EXISTS name; then CREATE X name (a batch of its own)."""
    mask = _code_mask(batch)
    match = _CREATE_OR_ALTER.search(mask)
    if not match:
        return None
    kind = {"PROC": "PROCEDURE"}.get(match.group(1).upper(), match.group(1).upper())
    name = batch[match.start(2):match.end(2)]
    created = batch[:match.start()] + f"CREATE {match.group(1)} " + batch[match.start(2):]
    return [f"DROP {kind} IF EXISTS {name};", created]


_WAITFOR = re.compile(r"\bWAITFOR\s+DELAY\s+(N?'(\d\d):(\d\d):(\d\d)(?:\.(\d{1,3}))?')\s*;?", re.IGNORECASE)


def _b2_waitfor(batch: str) -> Optional[list[str]]:
    """B2: WAITFOR DELAY 'hh:mm:ss.fff' -> a loop that waits on the clock for as long."""
    found = list(_WAITFOR.finditer(_code_mask(batch, keep_strings=True)))
    if not found:
        return None
    out, last = [], 0
    for number, match in enumerate(found):
        text = batch[match.start(1):match.end(1)]
        h, m, s, frac = re.match(r"N?'(\d\d):(\d\d):(\d\d)(?:\.(\d{1,3}))?'", text).groups()
        ms = ((int(h) * 60 + int(m)) * 60 + int(s)) * 1000 + int((frac or "0").ljust(3, "0"))
        var = f"@bbf$until{number}"
        out.append(batch[last:match.start()])
        out.append(f"BEGIN DECLARE {var} datetime2(7); SET {var} = DATEADD(millisecond, {ms}, SYSUTCDATETIME()); "
                   f"WHILE SYSUTCDATETIME() < {var} SET {var} = {var}; END;")
        last = match.end()
    out.append(batch[last:])
    return ["".join(out)]


_CTE_DML = re.compile(r";?\s*\bWITH\s+(\[\w+\])\s+AS\s*\(", re.IGNORECASE)


def _b3_cte_dml(batch: str) -> Optional[list[str]]:
    """B3: ;WITH [c] AS (SELECT TOP (n) cols FROM t WITH (...) WHERE ... ORDER BY ...) UPDATE [c] SET ...
    (or DELETE FROM [c] ...) -> UPDATE t SET ... WHERE [id] IN (SELECT TOP (n) [id] FROM t ... ORDER BY ...)."""
    changed = False
    while True:
        mask = _code_mask(batch)
        for match in _CTE_DML.finditer(mask):
            cte = match.group(1)
            close = _closing(mask, match.end() - 1)
            after = re.match(r"\s*(UPDATE|DELETE\s+FROM)\s+" + re.escape(cte) + r"\s", mask[close + 1:], re.IGNORECASE)
            if after:
                break
        else:
            return [batch] if changed else None
        inner = batch[match.end():close]
        inner_mask = mask[match.end():close]
        select = re.match(r"\s*SELECT\s+TOP\s*\(", inner_mask, re.IGNORECASE)
        top_close = _closing(inner_mask, select.end() - 1)
        source = re.search(r"\bFROM\s+((?:\[\w+\]\.)?\[\w+\])", inner_mask[top_close:], re.IGNORECASE)
        table = inner[top_close + source.start(1):top_close + source.end(1)]
        subquery = (inner[:top_close + 1] + " [id]\n" + inner[top_close + source.start():]).strip()
        dml_start = close + 1 + after.start(1)
        end = _statement_end(mask, dml_start)
        option = re.search(r"\bOPTION\s*\(", mask[dml_start:end], re.IGNORECASE)
        body_end = dml_start + option.start() if option else end
        verb = "UPDATE" if after.group(1).upper() == "UPDATE" else "DELETE FROM"
        body = batch[close + 1 + after.end():body_end].rstrip()
        body = re.sub(re.escape(cte) + r"\.", table + ".", body)
        has_where = re.search(r"\bWHERE\b", _code_mask(body), re.IGNORECASE)
        where = (" AND" if has_where else "\nWHERE") + f" [id] IN ({subquery})"
        head = batch[:match.start()]
        batch = (head + ("\n;" if not head.rstrip().endswith(";") else "\n") + f"{verb} {table} {body}{where}\n"
                 + batch[body_end:])
        changed = True


_ASSIGNING_UPDATE = re.compile(r"\bUPDATE\s+[^;]*?\bSET\s+@[\w$]+\s*=", re.IGNORECASE)


def _b4_assigning_update(batch: str) -> Optional[list[str]]:
    """B4: UPDATE t SET @v = col, ... WHERE ...; -> the same without its ; (a newline ends it)."""
    mask = _code_mask(batch)
    ends = []
    for match in _ASSIGNING_UPDATE.finditer(mask):
        end = _statement_end(mask, match.start())
        if end < len(batch) and batch[end] == ";":
            ends.append(end)
    if not ends:
        return None
    for end in reversed(ends):
        batch = batch[:end] + "\n" + batch[end + 1:]
    return [batch]


_REFUSED_GRANT = re.compile(r"^[ \t]*GRANT\s+(?:EXECUTE\s+ON\s+TYPE::|VIEW\s+DEFINITION\s+ON\s+OBJECT::)[^;\n]*;?[ \t]*$",
                            re.IGNORECASE | re.MULTILINE)


def _b5_grants(batch: str) -> Optional[list[str]]:
    """B5: the GRANTs Babelfish refuses are left out (the rest of the batch runs)."""
    if not _REFUSED_GRANT.search(batch):
        return None
    return [_REFUSED_GRANT.sub("", batch)]


_INDEX_BY_NAME = re.compile(r"(sys\.indexes\s+(?:AS\s+\[?\w+\]?\s+)?WHERE\s+)\[?name\]?\s*=\s*N'(\w+)'(\s+AND\s+\[?object_id\]?\s*=\s*"
                            r"OBJECT_ID\(N'(?:\w+\.)?(\w+)'\))", re.IGNORECASE)


def _b6_index_names(batch: str) -> Optional[list[str]]:
    """B6: sys.indexes WHERE [name] = N'ix' AND [object_id] = OBJECT_ID(N's.t') -> the internal name
    Babelfish stores: the first 31 characters of ix + t, then 32 hex digits (a PostgreSQL name: 63 bytes)."""
    if not _INDEX_BY_NAME.search(batch):
        return None
    return [_INDEX_BY_NAME.sub(lambda m: f"{m.group(1)}[name] LIKE N'{(m.group(2) + m.group(4))[:31]}' + REPLICATE(N'_', 32){m.group(3)}",
                               batch)]


_VERIFY_INDEXES = re.compile(r"\)\s*AS\s*\[(\w+)\]\(\[table\],\s*\[name\],\s*\[shape\]\)\s*INNER\s+JOIN\s+sys\.indexes\s+AS\s+"
                             r"\[(\w+)\]\s+ON\s+[^\n]*?\[\2\]\.\[name\]\s*=\s*\[\1\]\.\[name\]", re.IGNORECASE)
_HAS_FILTER = re.compile(r"\[(\w+)\]\.\[has_filter\]\s*=\s*1", re.IGNORECASE)


def _b6_verify_index_shapes(batch: str) -> Optional[list[str]]:
    """B6: verify's index-shape check joins the rendered (table, name, shape) rows to sys.indexes by
    name, and reads has_filter: on Babelfish the join finds nothing (internal names), so the check
    passed whatever the index was. The join takes the internal name instead (as _b6_index_names), and
    has_filter becomes whether PostgreSQL's own catalog holds a predicate for that index (sys.indexes
    says 0 for every index there), so the check compares the real uniqueness, keys, INCLUDE and filter."""
    match = _VERIFY_INDEXES.search(batch)
    if not match:
        return None
    rows, index = match.group(1), match.group(2)
    join = re.compile(r"\[" + index + r"\]\.\[name\]\s*=\s*\[" + rows + r"\]\.\[name\]", re.IGNORECASE)
    batch = join.sub(f"[{index}].[name] LIKE LEFT([{rows}].[name] + [{rows}].[table], 31) + REPLICATE(N'_', 32)", batch)
    return [_HAS_FILTER.sub(lambda m: (
        f"EXISTS (SELECT 1 FROM pg_catalog.pg_index AS [bbf$px] INNER JOIN pg_catalog.pg_class AS [bbf$pc] "
        f"ON [bbf$pc].[oid] = [bbf$px].[indexrelid] WHERE [bbf$px].[indrelid] = [{m.group(1)}].[object_id] "
        f"AND [bbf$pc].[relname] = [{m.group(1)}].[name] AND [bbf$px].[indpred] IS NOT NULL)"), batch)]


_IDENTITY_LOOKUP = re.compile(r"CONVERT\(bigint,\s*\[last_value\]\)(?P<rest>[^()]*?)\s*FROM\s+sys\.identity_columns\s+WHERE\s+"
                              r"\[object_id\]\s*=\s*OBJECT_ID\((?P<table>N'[^']+')\)\s+AND\s+\[name\]\s*=\s*N'[^']+'",
                              re.IGNORECASE)


def _b8_identity_columns(batch: str) -> Optional[list[str]]:
    """B8: SELECT CONVERT(bigint, [last_value]) ... FROM sys.identity_columns WHERE [object_id] =
    OBJECT_ID(N't') AND [name] = N'c' (a row per same-named identity column of the schema there:
    error 512) -> SELECT CONVERT(bigint, IDENT_CURRENT(N't')) ..., the same table's last value."""
    if not _IDENTITY_LOOKUP.search(batch):
        return None
    return [_IDENTITY_LOOKUP.sub(lambda m: f"CONVERT(bigint, IDENT_CURRENT({m.group('table')})){m.group('rest')}", batch)]


_SINGLE_USER = re.compile(r"ALTER\s+DATABASE\s+(\[(?:[^\]]|\]\])+\])\s+SET\s+SINGLE_USER\s+WITH\s+ROLLBACK\s+IMMEDIATE\s*;",
                          re.IGNORECASE)


def _b13_single_user(batch: str) -> Optional[list[str]]:
    """B13: ALTER DATABASE [d] SET SINGLE_USER WITH ROLLBACK IMMEDIATE (before a DROP DATABASE) ->
    KILL every other session in that database."""
    if not _SINGLE_USER.search(batch):
        return None

    def kill(match: re.Match) -> str:
        name = match.group(1)[1:-1].replace("]]", "]").replace("'", "''")
        return ("DECLARE @bbf$kill nvarchar(max) = N''; SELECT @bbf$kill = @bbf$kill + N'KILL ' "
                "+ CAST(session_id AS nvarchar(10)) + N'; ' FROM sys.dm_exec_sessions "
                f"WHERE database_id = DB_ID(N'{name}') AND session_id <> @@SPID; EXEC(@bbf$kill);")

    return [_SINGLE_USER.sub(kill, batch)]


_CHECK_POLICY = re.compile(r"\s*,\s*CHECK_POLICY\s*=\s*OFF\b", re.IGNORECASE)


def _b16_check_policy(batch: str) -> Optional[list[str]]:
    """B16: CREATE LOGIN ... WITH PASSWORD = N'...', CHECK_POLICY = OFF -> without CHECK_POLICY."""
    if not re.search(r"\bCREATE\s+LOGIN\b", batch, re.IGNORECASE) or not _CHECK_POLICY.search(batch):
        return None
    return [_CHECK_POLICY.sub("", batch)]


_CURRENT_TRANSACTION_ID = re.compile(r"\bCURRENT_TRANSACTION_ID\(\s*\)", re.IGNORECASE)


def _b22_current_transaction_id(batch: str) -> Optional[list[str]]:
    """B22: CURRENT_TRANSACTION_ID() -> CONVERT(bigint, txid_current()), PostgreSQL's id of the same
    transaction (one value per transaction, as SQL Server's; what a test compares is only which
    statements shared one)."""
    if not _CURRENT_TRANSACTION_ID.search(_code_mask(batch)):
        return None
    mask = _code_mask(batch)
    out, last = [], 0
    for match in _CURRENT_TRANSACTION_ID.finditer(mask):
        out += [batch[last:match.start()], "CONVERT(bigint, txid_current())"]
        last = match.end()
    return ["".join(out + [batch[last:]])]


_APPLOCK_CALL = re.compile(r"\bEXEC(?:UTE)?\s+(@[\w$]+)\s*=\s*(?:sys\.)?sp_getapplock\b", re.IGNORECASE)


def _b27_applock_answer(batch: str) -> Optional[list[str]]:
    """B27: sp_getapplock answers -999 where SQL Server answers -1 (the lock was not granted within
    @LockTimeout: another session holds it). EXEC @r = sp_getapplock ...; -> the same, then
    IF @r = -999 SET @r = -1; so the caller's own handling of -1 (maintain: skipped) is what runs.
    Babelfish's application locks are PostgreSQL's advisory locks, real across sessions, so a test of
    one maintain at a time shows qgen's logic there; @DbPrincipal stays ignored (a lock taken as
    public still blocks the owner's: that test stays marked)."""
    mask = _code_mask(batch)
    found = list(_APPLOCK_CALL.finditer(mask))
    if not found:
        return None
    for match in reversed(found):
        end = _statement_end(mask, match.start())
        if end >= len(batch):
            raise ValueError("B27: an sp_getapplock call without its closing ;")
        var = match.group(1)
        batch = batch[:end + 1] + f" IF {var} = -999 SET {var} = -1;" + batch[end + 1:]
    return [batch]


_EXECUTE_AS_OWNER = re.compile(r"\bWITH\s+EXECUTE\s+AS\s+OWNER\s*\n", re.IGNORECASE)
# What the B26 rewrite leaves in a procedure's text in place of its clause: chain_ownership (B21) reads
# it back from sys.sql_modules and lets that procedure ask who it runs as (it runs as its owner).
RUNS_AS_OWNER = "/* bbf$B26: WITH EXECUTE AS OWNER */"


def _b26_execute_as_owner(batch: str) -> Optional[list[str]]:
    """B26: CREATE PROCEDURE ... WITH EXECUTE AS OWNER AS -> the same with the clause a comment
    (RUNS_AS_OWNER). Babelfish refuses the clause; chain_ownership (B21), run after every install,
    then makes the procedure run as its owner, as the clause says."""
    match = _EXECUTE_AS_OWNER.search(_code_mask(batch))
    if not match:
        return None
    return [batch[:match.start()] + RUNS_AS_OWNER + "\n" + batch[match.end():]]


_MODULE_FINGERPRINT = re.compile(r"WHERE\s+HASHBYTES\('SHA2_256',.*?<>\s*\[r\]\.\[fingerprint\]\s*;", re.S | re.IGNORECASE)
_FINGERPRINT_ROW = re.compile(r"(\(N'(?:[^']|'')+',\s*)0x([0-9A-Fa-f]{64})(\))")
# Babelfish keeps a module's text as sent, but for a table type's name in a declaration or a
# READONLY parameter: DECLARE @b [s].[t]; is held as DECLARE @b [s]. t ; (its brackets dropped).
_TABLE_TYPE_USE = re.compile(r"(@[\w$]+\s+\[(?:[^\]]|\]\])+\]\.)\[((?:[^\]]|\]\])+)\](?=\s*(?:;|READONLY\b))", re.IGNORECASE)
# B24: {fingerprint qgen rendered (UTF-16LE): Babelfish's fingerprint (UTF-8) of the text the harness
# sent in its place}, for every module the harness created (remember_fingerprints, from rewrite).
SENT_FINGERPRINTS: dict[str, str] = {}


def remember_fingerprints(original: str, sent: list[str]) -> None:
    """B24: a batch that creates a module, and what the harness sent instead: the module's rendered
    fingerprint now stands for the fingerprint Babelfish computes over the text it holds (the text
    verify hashes, qgen.dialects.mssql's module_texts, of the batch sent, as Babelfish keeps it), in
    UTF-8 as Babelfish hashes an nvarchar."""
    from qgen.dialects.mssql import MssqlDatabase

    module_fingerprints, module_texts = MssqlDatabase().module_fingerprints, MssqlDatabase().module_texts

    rendered = module_fingerprints(original)
    held = [text for one in sent
            for text in module_texts(_TABLE_TYPE_USE.sub(lambda m: f"{m.group(1)} {m.group(2)} ", one)).values()]
    if len(rendered) != 1 or len(held) != 1:
        return
    SENT_FINGERPRINTS[next(iter(rendered.values()))] = hashlib.sha256(held[0].encode("utf-8")).hexdigest().upper()


def _b24_module_fingerprints(batch: str) -> Optional[list[str]]:
    """B24: verify compares SHA2_256 of each module's text with the fingerprint qgen rendered, which
    hashes the text as SQL Server hashes an nvarchar (UTF-16LE). Babelfish hashes its UTF-8 bytes,
    and the harness's own rewrites (B2-B4, B26) change some modules' texts. Each rendered fingerprint
    in verify's list becomes the one Babelfish computes over the text the harness sent for that
    rendering (SENT_FINGERPRINTS): a module left at another text (an older version, a hand edit)
    still differs, and verify names it. A fingerprint the harness never sent stays as rendered."""
    match = _MODULE_FINGERPRINT.search(batch)
    if not match:
        return None
    head_end = batch.rfind("[fingerprint]", 0, match.start())
    if head_end < 0:
        return None
    head = _FINGERPRINT_ROW.sub(lambda m: f"{m.group(1)}0x{SENT_FINGERPRINTS.get(m.group(2).upper(), m.group(2))}{m.group(3)}",
                                batch[:head_end])
    return [head + batch[head_end:]]


_NVARCHAR_LENGTH_CHECK = re.compile(r"\bDATALENGTH\(([@\w$\[\].]+)\) > (\d+)")


def _b30_datalength(batch: str) -> Optional[list[str]]:
    """B30: qgen's length check of a string(n) value, DATALENGTH(x) > 2n (templates/mssql/macros.sql.j2
    over_limit: UTF-16 bytes on SQL Server), counts UTF-8 bytes on Babelfish, which lets a value of
    up to 2n ASCII characters through to be cut by the insert: checked there as LEN(CONCAT(x, N'.')) - 1
    > n, the characters with trailing spaces (a character outside the BMP counts one here, two on SQL
    Server)."""
    mask = _code_mask(batch)
    if not _NVARCHAR_LENGTH_CHECK.search(mask):
        return None
    out, last = [], 0
    for match in _NVARCHAR_LENGTH_CHECK.finditer(mask):
        expr = batch[match.start(1):match.end(1)]
        out += [batch[last:match.start()], f"LEN(CONCAT({expr}, N'.')) - 1 > {int(match.group(2)) // 2}"]
        last = match.end()
    return ["".join(out + [batch[last:]])]


_NOEXEC = re.compile(r"\bSET NOEXEC (ON|OFF);", re.IGNORECASE)
# The session context key B7's rewrite keeps NOEXEC in, for tests/support/scripts.py's run_batches.
NOEXEC_KEY = "qgen.test.noexec"


def _b7_noexec(batch: str) -> Optional[list[str]]:
    """B7: Babelfish accepts SET NOEXEC ON and ignores it, so the batches after a guard or a refusal
    that set it run all the same. Each SET NOEXEC also records the setting in the session context,
    where run_batches (tests/support/scripts.py, sending batches as sqlcmd does) reads it after a
    batch that set it, and skips the batches SQL Server would not execute."""
    mask = _code_mask(batch)
    if not _NOEXEC.search(mask):
        return None
    out, last = [], 0
    for match in _NOEXEC.finditer(mask):
        value = 1 if match.group(1).upper() == "ON" else 0
        # One block, so that an IF before it governs both (IF x SET NOEXEC ON;).
        out += [batch[last:match.start()], f"BEGIN {batch[match.start():match.end()]} "
                f"EXEC sys.sp_set_session_context @key = N'{NOEXEC_KEY}', @value = {value}; END;"]
        last = match.end()
    return ["".join(out + [batch[last:]])]


REWRITES = (
    Rewrite("B1", _b1_create_or_alter),
    Rewrite("B7", _b7_noexec),
    Rewrite("B2", _b2_waitfor),
    Rewrite("B3", _b3_cte_dml),
    Rewrite("B4", _b4_assigning_update),
    Rewrite("B5", _b5_grants),
    Rewrite("B6", _b6_index_names),
    Rewrite("B6", _b6_verify_index_shapes),
    Rewrite("B8", _b8_identity_columns),
    Rewrite("B13", _b13_single_user),
    Rewrite("B16", _b16_check_policy),
    Rewrite("B22", _b22_current_transaction_id),
    Rewrite("B24", _b24_module_fingerprints),
    Rewrite("B26", _b26_execute_as_owner),
    Rewrite("B27", _b27_applock_answer),
    Rewrite("B30", _b30_datalength),
)


def rewrite(batch: str) -> list[str]:
    """The batches to send to Babelfish instead of this one, each gap's rewrite applied and counted."""
    batches = [batch]
    for item in REWRITES:
        out: list[str] = []
        for one in batches:
            new = item.apply(one)
            if new is None:
                out.append(one)
            else:
                REWRITTEN[item.gap] += 1
                out.extend(new)
        batches = out
    remember_fingerprints(batch, batches)
    return batches


# ---------------------------------------------------------------------------------------------
# B14: what a client sends


def send_datetimes_as_text(client: Any) -> None:
    """B14: Microsoft's ODBC driver binds a datetime parameter as SQL_TYPE_TIMESTAMP, and Babelfish
    drops its fraction (with or without setinputsizes' precision 27, scale 7), where SQL Server keeps
    it to the 100 ns. The client's datetime parameters go as text instead (ISO 8601, microseconds),
    which the procedures' datetime2 parameters convert exactly; the client's own conversion (to UTC,
    naive) runs first, unchanged. Counted once per client."""
    driver = client._session.driver
    plain = driver.datetime_in
    driver.datetime_in = lambda value: plain(value).isoformat(sep=" ", timespec="microseconds")
    REWRITTEN["B14"] += 1


# ---------------------------------------------------------------------------------------------
# B21: ownership chaining, emulated after the batches that create procedures

_CREATES_PROCEDURE = re.compile(r"\bCREATE\s+(?:OR\s+ALTER\s+)?PROC(?:EDURE)?\b", re.IGNORECASE)
# Where SQL Server itself breaks the chain (dynamic SQL runs with the caller's rights) ...
_DYNAMIC_SQL = re.compile(r"\bEXEC(?:UTE)?\s*\(|\bsp_executesql\b", re.IGNORECASE)
# ... and where it never reaches: it covers SELECT, INSERT, UPDATE, DELETE and EXECUTE, not a statement
# that needs ALTER on a table (but on a #temporary one) or DBCC (the gate's rule 'broken chain' too) ...
_NEEDS_ALTER = re.compile(r"\b(?:TRUNCATE\s+TABLE|SET\s+IDENTITY_INSERT|ALTER\s+(?:TABLE|INDEX)|UPDATE\s+STATISTICS)\s+(?![\s#])"
                          r"|\bDBCC\b", re.IGNORECASE)
# ... and where running as the owner would answer differently from SQL Server's chain, which keeps the
# caller's identity: a procedure that asks who runs it (unless it says EXECUTE AS OWNER: B26). Checked
# live under SECURITY DEFINER: USER_NAME(), USER, CURRENT_USER and SESSION_USER answer dbo there, where
# ORIGINAL_LOGIN(), SUSER_SNAME(), SUSER_NAME() and SYSTEM_USER still answer the caller's login (as on
# SQL Server's chain: qgen's audit columns hold the login either way).
_ASKS_WHO = re.compile(r"\b(?:USER_NAME|USER_ID|SUSER_ID|DATABASE_PRINCIPAL_ID|IS_MEMBER|IS_ROLEMEMBER|"
                       r"HAS_PERMS_BY_NAME)\s*\(|\b(?:CURRENT_USER|SESSION_USER|USER)\b", re.IGNORECASE)


_ASKS_LOGIN = re.compile(r"\b(?:SUSER_SNAME|SUSER_NAME|SUSER_SID)\s*\(|\bSYSTEM_USER\b", re.IGNORECASE)


def creates_procedure(batch: str) -> bool:
    """Does this batch create a procedure (so that chain_ownership must run after it)?"""
    return bool(_CREATES_PROCEDURE.search(_code_mask(batch)))


def chained(definition: str) -> bool:
    """Would SQL Server's ownership chain let a caller with EXECUTE alone run this procedure's body
    with its owner's rights, and answer the same as SECURITY DEFINER does? Not when its body runs
    dynamic SQL (the chain breaks there), runs what the chain does not cover (TRUNCATE TABLE, SET
    IDENTITY_INSERT, ...) or asks who runs it, unless it says EXECUTE AS OWNER."""
    code = _code_mask(definition)
    if RUNS_AS_OWNER in definition:
        # EXECUTE AS OWNER: SQL Server runs all of it as the owner, dynamic SQL included, and answers the
        # owner's login to SUSER_SNAME() etc., which Babelfish's SECURITY DEFINER leaves the caller's.
        return not _ASKS_LOGIN.search(code)
    return not _DYNAMIC_SQL.search(code) and not _NEEDS_ALTER.search(code) and not _ASKS_WHO.search(code)


def chain_ownership(connection: Any, url: str) -> int:
    """B21: Babelfish has no ownership chaining. A login that may only EXECUTE a procedure is refused
    the tables the procedure reads and the procedures it calls, where SQL Server checks no permission
    past the procedure its caller called, all of them having one owner. Emulated: every procedure of
    the connection's database that SQL Server would chain (`chained`) is made SECURITY DEFINER
    through Babelfish's PostgreSQL port (its number read from the server; host, login and password
    from the T-SQL url: Babelfish's login is a PostgreSQL role of the same name), so it runs with its
    owner's rights. The caller still needs EXECUTE on the procedure it calls, and a table or view it
    reads itself is still refused. One thing differs: SQL Server's chain covers rows, not metadata
    (OBJECT_ID, IDENT_CURRENT, sys.tables, sys.identity_columns answer NULL or nothing to a caller with
    no permission on the object), where a SECURITY DEFINER procedure reads the catalog as its owner
    (checked live), so a test of a metadata grant (VIEW DEFINITION, which B5 leaves out anyway)
    shows nothing here and stays marked. Returns how many procedures it changed (each counted as a B21 rewrite)."""
    import psycopg
    from sqlalchemy.engine import make_url

    cursor = connection.cursor()
    try:
        rows = cursor.execute("SELECT [p].[object_id], [m].[definition] FROM sys.procedures AS [p] "
                              "INNER JOIN sys.sql_modules AS [m] ON [m].[object_id] = [p].[object_id]").fetchall()
        port = int(cursor.execute("SELECT current_setting('port')").fetchone()[0])
    finally:
        cursor.close()
    oids = [int(oid) for oid, definition in rows if chained(definition or "")]
    if not oids:
        return 0
    parsed = make_url(url)
    with psycopg.connect(host=parsed.host or "127.0.0.1", port=port, user=parsed.username, password=parsed.password,
                         dbname="babelfish_db", autocommit=True, connect_timeout=10) as pg:
        routines = [row[0] for row in pg.execute("SELECT oid::regprocedure::text FROM pg_catalog.pg_proc "
                                                 "WHERE oid = ANY(%s) AND NOT prosecdef", (oids,))]
        for routine in routines:
            pg.execute(f"ALTER ROUTINE {routine} SECURITY DEFINER")
    REWRITTEN["B21"] += len(routines)
    return len(routines)


def rewrite_as_one(batch: str) -> str:
    """rewrite(), for a caller that sends one batch per statement it was given (SQLAlchemy, Alembic):
    a CREATE that must start its own batch (B1) runs through EXEC after the DROP."""
    first, *rest = rewrite(batch)
    return "\n".join([first] + ["EXEC(N'" + more.replace("'", "''") + "');" for more in rest])


@contextlib.contextmanager
def rewriting_sqlalchemy(url: str) -> Iterator[None]:
    """While open, every statement any SQLAlchemy engine sends to the server `url` names is rewritten
    (rewrite_as_one) when that server is Babelfish; on SQL Server nothing changes."""
    import pyodbc
    from sqlalchemy import event
    from sqlalchemy.engine import Engine

    from qgen.client.connection import mssql_connection_string

    with contextlib.closing(pyodbc.connect(mssql_connection_string(url), autocommit=True)) as conn:
        babelfish = is_babelfish(conn)
    if not babelfish:
        yield
        return

    def before(conn, cursor, statement, parameters, context, executemany):
        return rewrite_as_one(statement), parameters

    event.listen(Engine, "before_cursor_execute", before, retval=True)
    try:
        yield
    finally:
        event.remove(Engine, "before_cursor_execute", before)
