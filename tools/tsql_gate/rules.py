"""qgen's own semantic rules for T-SQL: defects that parse fine and that only a SQL Server under
load, under a caller's transaction or with a trigger added would show. Each rule looks at one GO
batch's tokens (tools/tsql_gate/tokens.py) and reports (token, message); tsql_gate.own_findings
turns them into findings at the token's line:column.

* ``isolation``: a procedure that reads WITH (READPAST) must run SET TRANSACTION ISOLATION LEVEL
  READ COMMITTED before it (READPAST raises error 650 under a caller's SERIALIZABLE or SNAPSHOT).
* ``locking read``: READPAST needs a locking hint beside it (UPDLOCK, XLOCK, HOLDLOCK or
  READCOMMITTEDLOCK): under READ_COMMITTED_SNAPSHOT a plain read is a row-version read.
* ``second reference``: an UPDATE/DELETE whose target is one reference to a table while a
  READPAST-hinted reference to the same table sits elsewhere in the statement (a derived table, a
  CTE, a subquery): the hints cover only that other reference, not the rows changed.
* ``output into``: OUTPUT without INTO on a statement that changes a table (not a @table variable
  or #temp table) fails once the table has a trigger (error 334); OUTPUT ... INTO a permanent
  table fails (331, 332) once the table written has a trigger, a foreign key or a CHECK.
* ``wait in transaction``: a WAITFOR between a BEGIN TRANSACTION and its COMMIT holds that
  transaction's locks for the whole sleep (dequeue's @wait_ms sleeps between its attempts).
* ``watermark wait``: a procedure on a worker's path (fail, reap, complete, extend_lease, release: its name
  ends so) reads or writes a watermark table (its name ends in ``watermark``) without READPAST or
  NOLOCK: that read waits on the watermark row for as long as another transaction holds it (a
  caller's transaction whose dequeue moved it, an uncommitted watermark_correct or maintain), and
  the worker's job row stays locked meanwhile.
* ``blind watermark``: in watermark_correct or watermark_move (the procedures that raise the
  watermark), (a) a SELECT that takes the watermark row's lock (UPDLOCK, XLOCK, HOLDLOCK) without
  READPAST, at the statement's own level (a subquery that locks the empty range to put a missing
  row back is not this), waits on it; (b) a NOLOCK read of a table that judges lease state
  (LEASE_TOKEN) with no READPAST read of that table anywhere in the procedure cannot tell a job
  claimed by another open transaction, which may still roll back, from a settled one, so it raises
  the watermark past a job that can come back.
* ``applock principal``: sp_getapplock without @DbPrincipal takes the lock as `public`: any user
  of the database can take the same lock first and stop whatever it guards (maintain).
* ``broken chain``: a procedure that runs dynamic SQL (EXEC (...), sp_executesql): SQL Server's
  ownership chain stops there, the dynamic batch runs with the caller's permissions, so a role
  granted EXECUTE alone (qgen's producer, consumer and admin) is refused every table it names.
  Nor does the chain cover what needs ALTER on a table (TRUNCATE TABLE, SET IDENTITY_INSERT, ALTER
  TABLE/INDEX, UPDATE STATISTICS) or DBCC: reported too, but on a #temporary table.
  Not in a procedure WITH EXECUTE AS OWNER (SELF, a user): it all runs as that principal.
  Babelfish's emulation of the chain (tests/support/babelfish.py, B21) relies on this rule too.
* ``plan pinning``: TOP (@variable) in a statement that reads WITH (READPAST) needs OPTION
  (RECOMPILE) or OPTION (OPTIMIZE FOR (@variable = ... | UNKNOWN)): otherwise the first call's
  value is sniffed, and a large one can cache a scan plan that locks every row it passes.
* ``value limit``: a procedure parameter of a sized type (nvarchar(n), varchar(n), nchar(n),
  char(n), varbinary(n), binary(n), decimal(p,s), numeric(p,s)) whose value reaches a column (an
  INSERT, the SET list of an UPDATE, a MERGE, an argument of an EXEC) with no limit check of it
  before: an IF testing DATALENGTH(@p) > K (a decimal: ROUND(@p, K, ...)) that THROWs, K below what
  the type holds (a check the type can never fail, the parameter as narrow as its column, does not
  count); and a sized column of an OPENJSON ... WITH list with no such test of it followed by a
  THROW (enqueue_json's batch check). SQL Server
  converts the caller's value to the parameter's type before the first statement runs, cutting a
  longer string and rounding extra scale silently (a 37-character card code cut to
  32 became another code's dedupe key; an @owner past 128 characters cut to another worker's).
  qgen's parameters are one wider than their column and checked (templates/mssql/macros.sql.j2
  param_type, check_values); a text the procedure cuts on purpose (fail's @error) is nvarchar(max)
  and cut in the body, where a reader sees it. A parameter only compared (dequeue's @job_type) is
  not judged: a longer value matches nothing in a parameter one wider.

Statements are found by splitting at ';', BEGIN, END (not a CASE's) and ELSE outside parentheses:
precise for qgen's output, which ends every statement with ';'.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterator

from tools.tsql_gate.tokens import Tok, at, is_word, module_statement, statement_with

_DML = ("INSERT", "UPDATE", "DELETE", "MERGE")
_STATEMENT_KEYWORDS = ("SELECT",) + _DML
# A DML keyword after one of these is not a statement: ON DELETE CASCADE, FOR UPDATE, GRANT UPDATE,
# AFTER INSERT, UPDATE; WHEN MATCHED THEN UPDATE (inside MERGE).
_NOT_A_STATEMENT_AFTER = {"ON", "FOR", "AFTER", "OF", ",", "GRANT", "DENY", "REVOKE", "THEN", "(", "INSTEAD"}
# Words that end a table reference instead of naming its alias.
_NOT_AN_ALIAS = {
    "WITH", "WHERE", "INNER", "LEFT", "RIGHT", "FULL", "CROSS", "OUTER", "JOIN", "ON", "SET", "OUTPUT",
    "OPTION", "GROUP", "ORDER", "HAVING", "UNION", "EXCEPT", "INTERSECT", "FOR", "WHEN", "THEN", "SELECT",
    "INTO", "VALUES", "FROM", "APPLY", "PIVOT", "UNPIVOT", "TABLESAMPLE", "USING", "DEFAULT", "EXEC",
    "EXECUTE", "INSERT", "UPDATE", "DELETE", "MERGE", "IF", "ELSE", "BEGIN", "END", "RETURN", "DECLARE",
}
# After OUTPUT, one of these (outside parentheses) before any INTO means the rows go to the client.
_OUTPUT_ENDS = {"FROM", "WHERE", "VALUES", "SELECT", "EXEC", "EXECUTE", "DEFAULT", "OPTION"}
_LOCKING_HINTS = {"UPDLOCK", "XLOCK", "HOLDLOCK", "READCOMMITTEDLOCK", "SERIALIZABLE", "REPEATABLEREAD"}
_LEVELS = {"READ", "COMMITTED", "UNCOMMITTED", "REPEATABLE", "SNAPSHOT", "SERIALIZABLE"}


@dataclass(frozen=True)
class Ref:
    """A table reference: its (upper-cased) name parts, alias, hints, where its name starts and its
    parenthesis depth within the statement (0: the statement's own FROM, >0: a CTE, derived table
    or subquery)."""

    table: tuple[str, ...]
    alias: str | None
    hints: frozenset[str]
    at: int
    depth: int
    shown: str = ""  # the name as written, for messages

    @property
    def variable(self) -> bool:
        return self.table[0][:1] in ("@", "#")

    def same_table(self, other: tuple[str, ...]) -> bool:
        n = min(len(self.table), len(other))
        return self.table[-n:] == other[-n:]


@dataclass
class Statement:
    toks: list[Tok]
    start: int  # first token
    end: int  # one past the last token
    ctes: dict[str, tuple[int, int]]  # CTE name -> token range of its body
    keyword: int | None  # the main SELECT/INSERT/UPDATE/DELETE/MERGE, if any

    @property
    def kind(self) -> str | None:
        return None if self.keyword is None else self.toks[self.keyword].value


def _close(toks: list[Tok], i: int) -> int:
    """Index of the ')' matching the '(' at i (or the end)."""
    depth = 0
    for j in range(i, len(toks)):
        if toks[j].value == "(" and toks[j].kind == "punct":
            depth += 1
        elif toks[j].value == ")" and toks[j].kind == "punct":
            depth -= 1
            if depth == 0:
                return j
    return len(toks)


def _depths(toks: list[Tok], start: int, end: int) -> list[int]:
    """Parenthesis depth of each token of [start, end), relative to start."""
    out, depth = [], 0
    for tok in toks[start:end]:
        if tok.kind == "punct" and tok.value == ")":
            depth -= 1
        out.append(depth)
        if tok.kind == "punct" and tok.value == "(":
            depth += 1
    return out


def _spans(toks: list[Tok]) -> Iterator[tuple[int, int]]:
    start, depth, cases = 0, 0, 0
    for i, tok in enumerate(toks):
        if tok.kind == "punct" and tok.value in "()":
            depth += 1 if tok.value == "(" else -1
            continue
        if depth:
            continue
        boundary = False
        if tok.kind == "punct" and tok.value == ";":
            boundary = True
        elif is_word(tok, "CASE"):
            cases += 1
        elif is_word(tok, "END"):
            if cases:
                cases -= 1
            else:
                boundary = True
        elif is_word(tok, "BEGIN", "ELSE"):
            boundary = True
        if boundary:
            if i > start:
                yield start, i
            start = i + 1
    if len(toks) > start:
        yield start, len(toks)


def statements(toks: list[Tok]) -> list[Statement]:
    """The batch's statements, each with its leading CTEs and its main keyword."""
    found = []
    for start, end in _spans(toks):
        ctes: dict[str, tuple[int, int]] = {}
        i = start
        if is_word(toks[i], "WITH") and statement_with(toks, i) == "WITH (common table expression)":
            i += 1
            while i < end:
                name = toks[i].value
                i += 1
                if at(toks, i) is not None and toks[i].value == "(":  # column list
                    i = _close(toks, i) + 1
                i += 1  # AS
                body_end = _close(toks, i)
                ctes[name] = (i + 1, body_end)
                i = body_end + 1
                if at(toks, i) is None or toks[i].value != ",":
                    break
                i += 1
        depths = _depths(toks, start, end)
        keyword = None
        for j in range(i, end):
            tok, prev = toks[j], at(toks, j - 1)
            if depths[j - start] or not is_word(tok, *_STATEMENT_KEYWORDS):
                continue
            if prev is not None and j > start and prev.value in _NOT_A_STATEMENT_AFTER:
                continue
            keyword = j
            break
        found.append(Statement(toks, start, end, ctes, keyword))
    return found


def _reference(toks: list[Tok], i: int, end: int, depth: int) -> tuple[Ref | None, int]:
    """Parse a table reference starting at toks[i]; returns it (None for a derived table) and the
    index after it."""
    tok, first = at(toks, i), i
    if tok is None or i >= end or tok.value == "(" or (tok.kind == "word" and tok.value in _NOT_AN_ALIAS):
        return None, i
    if tok.kind == "var":
        parts, shown, i = [tok.value], [tok.text], i + 1
    else:
        parts, shown = [], []
        while i < end and toks[i].kind in ("word", "ident"):
            parts.append(toks[i].value)
            shown.append(toks[i].text)
            if at(toks, i + 1) is not None and toks[i + 1].value == "." and i + 2 < end:
                i += 2
            else:
                i += 1
                break
        if not parts:
            return None, i
    alias = None
    if is_word(at(toks, i), "AS") and i + 1 < end:
        alias, i = toks[i + 1].value, i + 2
    elif i < end and (toks[i].kind == "ident" or (toks[i].kind == "word" and toks[i].value not in _NOT_AN_ALIAS)):
        alias, i = toks[i].value, i + 1
    hints: set[str] = set()
    if is_word(at(toks, i), "WITH") and at(toks, i + 1) is not None and toks[i + 1].value == "(":
        close = _close(toks, i + 1)
        hints = {t.value for t in toks[i + 2 : close] if t.kind == "word"}
        i = close + 1
    return Ref(tuple(parts), alias, frozenset(hints), first, depth, ".".join(shown)), i


def references(stmt: Statement) -> list[Ref]:
    """Every table reference after FROM / JOIN (and in comma lists), CTE bodies included."""
    toks, refs = stmt.toks, []
    depths = _depths(toks, stmt.start, stmt.end)
    for i in range(stmt.start, stmt.end):
        if is_word(toks[i], "FROM", "JOIN"):
            j = i + 1
            while True:
                ref, j = _reference(toks, j, stmt.end, depths[min(j, stmt.end - 1) - stmt.start])
                if ref is None:
                    break
                refs.append(ref)
                if at(toks, j) is None or toks[j].value != ",":
                    break
                j += 1
    return refs


def target(stmt: Statement) -> Ref | None:
    """The table an INSERT / UPDATE / DELETE / MERGE changes, as written after its keyword."""
    if stmt.kind not in _DML:
        return None
    toks, i = stmt.toks, stmt.keyword + 1
    if is_word(at(toks, i), "TOP") and at(toks, i + 1) is not None and toks[i + 1].value == "(":
        i = _close(toks, i + 1) + 1
        if is_word(at(toks, i), "PERCENT"):
            i += 1
    if is_word(at(toks, i), "INTO", "FROM"):
        i += 1
    ref, _ = _reference(toks, i, stmt.end, 0)
    return ref


# --------------------------------------------------------------------------------------------------
# The rules


def _procedure_isolation(toks: list[Tok]) -> Iterator[tuple[Tok, str]]:
    module = module_statement(toks, 0) if toks else None
    if not (module and module.endswith(("PROCEDURE", "PROC"))):
        return  # a module is the first statement of its batch (own_findings checks that)
    level = None
    for i, tok in enumerate(toks):
        if is_word(tok, "SET") and [t.value for t in toks[i + 1 : i + 4]] == ["TRANSACTION", "ISOLATION", "LEVEL"]:
            words = []
            for t in toks[i + 4 : i + 6]:
                if not is_word(t, *_LEVELS):
                    break
                words.append(t.value)
            level = " ".join(words)
        elif is_word(tok, "READPAST"):
            if level != "READ COMMITTED":
                yield tok, ("READPAST in a procedure that does not pin READ COMMITTED first: it raises error 650 "
                            "when the caller's transaction is SERIALIZABLE (a .NET TransactionScope's default) or "
                            "SNAPSHOT; put SET TRANSACTION ISOLATION LEVEL READ COMMITTED at the top of the body "
                            "(it reverts when the procedure returns)")
            return


def _locking_readpast(stmt: Statement) -> Iterator[tuple[Tok, str]]:
    tgt = target(stmt)
    refs = {ref.at: ref for ref in references(stmt) + ([tgt] if tgt else [])}
    for ref in refs.values():
        if "READPAST" in ref.hints and not ref.hints & _LOCKING_HINTS:
            yield stmt.toks[ref.at], (f"READPAST on {ref.shown} without a locking hint: under "
                                      "READ_COMMITTED_SNAPSHOT the read is a row-version read of possibly stale rows; "
                                      "add UPDLOCK (a claim) or READCOMMITTEDLOCK (a read that decides something)")


def _second_reference(stmt: Statement) -> Iterator[tuple[Tok, str]]:
    if stmt.kind not in ("UPDATE", "DELETE"):
        return
    tgt = target(stmt)
    if tgt is None or tgt.variable or (len(tgt.table) == 1 and tgt.table[0] in stmt.ctes):
        return  # through a CTE: the CTE's own reference is the one the statement changes
    refs = references(stmt)
    aliased = [r for r in refs if r.depth == 0 and len(tgt.table) == 1 and r.alias == tgt.table[0]]
    if aliased:
        table, shown, same = aliased[0].table, aliased[0].shown, {aliased[0].at}
    else:
        table, shown = tgt.table, tgt.shown
        same = {tgt.at} | {r.at for r in refs if r.depth == 0 and r.alias is None and r.same_table(table)}
    for ref in refs:
        if "READPAST" in ref.hints and ref.same_table(table) and ref.at not in same:
            yield stmt.toks[stmt.keyword], (
                f"{stmt.kind} changes {shown} through a reference the READPAST hints on another "
                f"reference to it (a derived table, CTE or subquery) do not cover: claim through one reference, "
                f"an updatable CTE (;WITH c AS (SELECT TOP (n) ... WITH (ROWLOCK, READPAST, UPDLOCK) ...) {stmt.kind} c)")
            return


def _output_into(stmt: Statement) -> Iterator[tuple[Tok, str]]:
    tgt = target(stmt)
    if tgt is None or tgt.variable:
        return
    toks = stmt.toks
    depths = _depths(toks, stmt.start, stmt.end)
    for i in range(stmt.keyword + 1, stmt.end):
        if depths[i - stmt.start] or not is_word(toks[i], "OUTPUT"):
            continue
        for j in range(i + 1, stmt.end + 1):
            tok = toks[j] if j < stmt.end else None
            if tok is not None and depths[j - stmt.start]:
                continue
            if is_word(tok, "INTO"):
                into, _ = _reference(toks, j + 1, stmt.end, 0)
                if into is not None and not into.variable:
                    yield toks[i], (f"OUTPUT ... INTO a permanent table ({into.shown}) on {stmt.kind} of "
                                    f"{tgt.shown}: it fails (331, 332) once that table has a trigger, a foreign key or "
                                    "a CHECK; OUTPUT ... INTO a @table variable, then INSERT ... SELECT from it")
                break
            if tok is None or is_word(tok, *_OUTPUT_ENDS):
                yield toks[i], (f"OUTPUT without INTO on {stmt.kind} of {tgt.shown}: it fails with error 334 "
                                "once the table has a trigger; OUTPUT ... INTO a @table variable, then SELECT from it")
                break


def _plan_pinning(stmt: Statement) -> Iterator[tuple[Tok, str]]:
    toks = stmt.toks[stmt.start : stmt.end]
    if not any(is_word(t, "READPAST") for t in toks):
        return
    pinned: set[str] = set()
    for i, tok in enumerate(toks):
        if is_word(tok, "OPTION") and at(toks, i + 1) is not None and toks[i + 1].value == "(":
            body = toks[i + 2 : _close(toks, i + 1)]
            words = [t.value for t in body if t.kind == "word"]
            if "RECOMPILE" in words or any(body[k].value == "OPTIMIZE" and is_word(at(body, k + 1), "FOR")
                                           and is_word(at(body, k + 2), "UNKNOWN") for k in range(len(body))):
                return
            pinned |= {t.value for k, t in enumerate(body)
                       if t.kind == "var" and at(body, k + 1) is not None and (body[k + 1].value == "=" or is_word(body[k + 1], "UNKNOWN"))}
    for i, tok in enumerate(toks):
        if is_word(tok, "TOP") and at(toks, i + 1) is not None and toks[i + 1].value == "(":
            variables = [t for t in toks[i + 2 : _close(toks, i + 1)] if t.kind == "var" and not t.value.startswith("@@")]
            missing = [v.text for v in variables if v.value not in pinned]
            if missing:
                yield tok, (f"TOP ({', '.join(missing)}) over a READPAST read without a pinned plan: the first call's "
                            "value is sniffed, and a large one can cache a scan plan that locks every row it passes; "
                            f"add OPTION (OPTIMIZE FOR ({missing[0]} = 1)) or OPTION (RECOMPILE)")


def _undeclared_variables(toks: list[Tok]) -> Iterator[tuple[Tok, str]]:
    """A @variable a procedure uses but neither declares nor takes as a parameter: CREATE PROCEDURE
    fails (error 137), and sqlcmd without -b goes on to the next batch, leaving the module missing.
    A variable's scope is its batch. In an EXEC's argument list, `@name =` names the callee's parameter."""
    module = module_statement(toks, 0) if toks else None
    if not (module and module.endswith(("PROCEDURE", "PROC"))):
        return  # a procedure's body; a loose batch of samples or scripts is not judged
    declared: set[str] = set()
    header_end = 0
    while header_end < len(toks) and not is_word(toks[header_end], "AS"):
        if toks[header_end].kind == "var":
            declared.add(toks[header_end].value)
        header_end += 1
    in_declare = in_exec = False
    depth = 0
    for i in range(header_end, len(toks)):
        tok = toks[i]
        if tok.kind == "punct" and tok.value in "()":
            depth += 1 if tok.value == "(" else -1
        elif tok.kind == "punct" and tok.value == ";" or is_word(tok, "BEGIN", "END"):
            in_declare = in_exec = False
        elif is_word(tok, "DECLARE"):
            in_declare, depth = True, 0
        elif is_word(tok, "EXEC", "EXECUTE"):
            in_exec = True
        elif tok.kind == "var" and not tok.value.startswith("@@") and tok.value.startswith("@"):
            prev, nxt = at(toks, i - 1), at(toks, i + 1)
            if in_declare and depth == 0 and prev is not None and (is_word(prev, "DECLARE") or prev.value == ","):
                declared.add(tok.value)
            elif in_exec and nxt is not None and nxt.value == "=" and not is_word(prev, "EXEC", "EXECUTE"):
                continue  # the callee's parameter name
            elif tok.value not in declared:
                yield tok, (f"{tok.text or tok.value} is used but not declared in this batch (nor a parameter of its "
                            "procedure): CREATE PROCEDURE fails with error 137, and the module is missing")
                declared.add(tok.value)  # once per variable


def _wait_in_transaction(toks: list[Tok]) -> Iterator[tuple[Tok, str]]:
    """A WAITFOR while a transaction the batch began is open (in text order: BEGIN TRAN opens one,
    COMMIT closes one, ROLLBACK all): the sleep would hold every lock of that transaction, which
    other claimers then wait on or READPAST skip, for its whole length (a waiting dequeue must
    sleep between its attempts' transactions)."""
    open_ = 0
    for i, tok in enumerate(toks):
        following = at(toks, i + 1)
        if is_word(tok, "BEGIN") and following is not None and is_word(following, "TRAN", "TRANSACTION"):
            open_ += 1
        elif is_word(tok, "COMMIT"):
            open_ = max(0, open_ - 1)
        elif is_word(tok, "ROLLBACK"):
            open_ = 0
        elif is_word(tok, "WAITFOR") and open_:
            yield tok, ("WAITFOR inside a transaction this procedure began: its locks stay held for the whole "
                        "sleep; commit (or roll back) before waiting")


_NOT_WAITING = {"READPAST", "NOLOCK", "READUNCOMMITTED"}
_WORKER_PATH = ("FAIL", "REAP", "COMPLETE", "EXTEND_LEASE", "RELEASE")
_RAISERS = ("WATERMARK_CORRECT", "WATERMARK_MOVE")


def _procedure_name(toks: list[Tok]) -> str | None:
    """The (upper-cased) last part of the name of the procedure the batch creates, if it creates one."""
    module = module_statement(toks, 0) if toks else None
    if not (module and module.endswith(("PROCEDURE", "PROC"))):
        return None
    i = next(i for i, t in enumerate(toks) if is_word(t, "PROCEDURE", "PROC")) + 1
    name = None
    while (tok := at(toks, i)) is not None and tok.kind in ("word", "ident"):
        name = tok.value.upper()
        if at(toks, i + 1) is None or toks[i + 1].value != ".":
            break
        i += 2
    return name


def _is_watermark(ref: Ref) -> bool:
    return not ref.variable and ref.table[-1].upper().endswith("WATERMARK")


def _watermark_wait(toks: list[Tok]) -> Iterator[tuple[Tok, str]]:
    name = _procedure_name(toks)
    if name is None or not name.endswith(_WORKER_PATH):
        return
    for stmt in statements(toks):
        tgt = target(stmt)
        refs = references(stmt)
        aliases = {r.alias for r in refs if r.alias}
        if tgt is not None and not (len(tgt.table) == 1 and tgt.table[0] in aliases):
            refs.append(tgt)
        for ref in refs:
            if _is_watermark(ref) and not ref.hints & _NOT_WAITING:
                yield stmt.toks[ref.at], (
                    f"watermark wait: {name.lower()} reads {ref.shown} without READPAST: it waits on the watermark "
                    "row for as long as another transaction holds it (a caller's transaction whose dequeue moved "
                    "it, an uncommitted watermark_correct or maintain), with the worker's job row locked "
                    "meanwhile; skip a held row (READPAST) and leave the lowering to the rescan")


def _blind_watermark(toks: list[Tok]) -> Iterator[tuple[Tok, str]]:
    name = _procedure_name(toks)
    if name is None or not name.endswith(_RAISERS):
        return
    stmts = statements(toks)
    probed = {ref.table[-1].upper() for stmt in stmts for ref in references(stmt) if "READPAST" in ref.hints}
    for stmt in stmts:
        judges_leases = any(is_word(t, "LEASE_TOKEN") or (t.kind == "ident" and t.value.upper() == "LEASE_TOKEN")
                            for t in stmt.toks[stmt.start:stmt.end])
        for ref in references(stmt):
            if (stmt.kind == "SELECT" and ref.depth == 0 and _is_watermark(ref)
                    and ref.hints & {"UPDLOCK", "XLOCK", "HOLDLOCK"} and "READPAST" not in ref.hints):
                yield stmt.toks[ref.at], (
                    f"blind watermark: {name.lower()} takes the watermark row's lock waiting for it: another "
                    "transaction may hold it for as long as it stays open; take it WITH (READPAST, UPDLOCK) "
                    "and change nothing when it is held")
            elif (judges_leases and "NOLOCK" in ref.hints and not _is_watermark(ref)
                    and ref.table[-1].upper() not in probed):
                yield stmt.toks[ref.at], (
                    f"blind watermark: {name.lower()} judges lease state of {ref.shown} WITH (NOLOCK) and never "
                    "asks which rows another transaction holds: a job claimed in a caller's open transaction "
                    "looks taken, the watermark passes it, and a rollback leaves it below the watermark; count "
                    "a row READPAST skips (READCOMMITTEDLOCK, READPAST) as still there")


def _applock_principal(toks: list[Tok]) -> Iterator[tuple[Tok, str]]:
    for i, tok in enumerate(toks):
        if tok.value.upper() != "SP_GETAPPLOCK" or tok.kind not in ("word", "ident"):
            continue
        j, named = i + 1, False
        while (arg := at(toks, j)) is not None and not (arg.kind == "punct" and arg.value == ";") \
                and not is_word(arg, "IF", "BEGIN", "END", "SET", "SELECT", "EXEC", "EXECUTE", "ELSE", "DECLARE"):
            if arg.kind == "var" and arg.value.upper() == "@DBPRINCIPAL":
                named = True
            j += 1
        if not named:
            yield tok, ("applock principal: sp_getapplock without @DbPrincipal locks as public: any user of the "
                        "database can take the same lock first and stop what it guards; name a principal only "
                        "qgen's roles are members of (@DbPrincipal)")


def _runs_as_owner(toks: list[Tok]) -> bool:
    """Does the procedure say WITH EXECUTE AS OWNER, SELF or a user (a module option: after WITH or a
    comma), so that its dynamic SQL runs as that principal too? EXECUTE AS CALLER is the default."""
    for i, tok in enumerate(toks):
        before, following, principal = at(toks, i - 1), at(toks, i + 1), at(toks, i + 2)
        if (is_word(tok, "EXEC", "EXECUTE") and before is not None and (is_word(before, "WITH") or before.value == ",")
                and following is not None and is_word(following, "AS") and principal is not None
                and (is_word(principal, "OWNER", "SELF") or principal.kind == "str")):
            return True
    return False


def _broken_chain(toks: list[Tok]) -> Iterator[tuple[Tok, str]]:
    name = _procedure_name(toks)
    if name is None or _runs_as_owner(toks):
        return
    for i, tok in enumerate(toks):
        following = at(toks, i + 1)
        dynamic = (is_word(tok, "EXEC", "EXECUTE") and following is not None and following.value == "(") or (
            tok.kind in ("word", "ident") and tok.value.upper() == "SP_EXECUTESQL")
        if dynamic:
            yield tok, (f"broken chain: {name.lower()} runs dynamic SQL, which SQL Server runs with its caller's "
                        "permissions (the ownership chain stops there): a role granted EXECUTE alone is refused every "
                        "table it names; write the statement into the procedure")
        statement = _needs_alter(toks, i)
        if statement:
            yield tok, (f"broken chain: {name.lower()} runs {statement}, which needs ALTER on the table (or more): "
                        "SQL Server's ownership chain covers SELECT, INSERT, UPDATE, DELETE and EXECUTE only, so a role "
                        "granted EXECUTE alone is refused it; use DML, or EXECUTE AS OWNER")


def _needs_alter(toks: list[Tok], i: int) -> str | None:
    """The statement starting at toks[i], if it is one the ownership chain does not cover (it needs
    ALTER on a table, or a server permission) and does not act on a #temporary table."""
    tok, following, target = at(toks, i), at(toks, i + 1), at(toks, i + 2)
    if following is None:
        return None
    if is_word(tok, "TRUNCATE") and is_word(following, "TABLE"):
        statement = "TRUNCATE TABLE"
    elif is_word(tok, "SET") and is_word(following, "IDENTITY_INSERT"):
        statement = "SET IDENTITY_INSERT"
    elif is_word(tok, "DBCC"):
        statement = "DBCC " + following.value
    elif is_word(tok, "ALTER") and is_word(following, "TABLE", "INDEX"):
        statement = "ALTER " + following.value
    elif is_word(tok, "UPDATE") and is_word(following, "STATISTICS"):
        statement = "UPDATE STATISTICS"
    else:
        return None
    if target is not None and target.kind == "var" and target.value.startswith("#"):
        return None  # the session's own temporary table
    return statement


_SIZED = {"NVARCHAR", "VARCHAR", "NCHAR", "CHAR", "VARBINARY", "BINARY", "DECIMAL", "NUMERIC"}
_END_OF_SET_LIST = {"FROM", "WHERE", "OUTPUT", "OPTION"}


def _sized_parameters(toks: list[Tok]) -> list[tuple[int, str]]:
    """The procedure's parameters of a sized type (not max): (index of the @name, its type as written)."""
    found = []
    for i, tok in enumerate(toks):
        if is_word(tok, "AS") and not is_word(at(toks, i - 1), "EXECUTE", "EXEC"):
            break
        kind, paren, size = at(toks, i + 1), at(toks, i + 2), at(toks, i + 3)
        if (tok.kind == "var" and not tok.value.startswith("@@") and kind is not None and kind.kind == "word"
                and kind.value in _SIZED and paren is not None and paren.value == "(" and size is not None
                and size.kind == "num"):
            close = _close(toks, i + 2)
            found.append((i, kind.value.lower() + "(" + "".join(t.value for t in toks[i + 3:close]) + ")"))
    return found


def _reaching_uses(stmt: Statement, name: str) -> Iterator[int]:
    """Where the statement hands @name's value to a column: an INSERT's, a MERGE's, the SET list of
    an UPDATE, or an EXEC's argument (the callee's parameter, which may be its column's)."""
    toks = stmt.toks
    uses = [j for j in range(stmt.start, stmt.end) if toks[j].kind == "var" and toks[j].value == name]
    if not uses:
        return
    first = toks[stmt.start]
    if is_word(first, "EXEC", "EXECUTE"):
        yield from (j for j in uses if not (at(toks, j + 1) is not None and toks[j + 1].value == "="))
    elif stmt.kind in ("INSERT", "MERGE"):
        yield from uses
    elif stmt.kind == "UPDATE":
        depths = _depths(toks, stmt.start, stmt.end)
        set_at = next((j for j in range(stmt.keyword or stmt.start, stmt.end)
                       if is_word(toks[j], "SET") and depths[j - stmt.start] == 0), None)
        if set_at is None:
            return
        end = next((j for j in range(set_at, stmt.end)
                    if is_word(toks[j], *_END_OF_SET_LIST) and depths[j - stmt.start] == 0), stmt.end)
        yield from (j for j in uses if set_at < j < end)


def _capacity(shown: str) -> int:
    """What a sized type holds, as its check measures it: bytes (DATALENGTH) for a string or binary
    type, places after the point (ROUND's length) for a decimal."""
    kind, args = shown.split("(", 1)
    numbers = [int(a) for a in args.rstrip(")").split(",")]
    if kind in ("decimal", "numeric"):
        return numbers[1] if len(numbers) > 1 else 0
    return numbers[0] * (2 if kind in ("nvarchar", "nchar") else 1)


def _reference_end(toks: list[Tok], j: int, name: str) -> int | None:
    """If toks[j:] is `name` (a @parameter) or `alias.name` (a column), the index after it."""
    tok = at(toks, j)
    if tok is None:
        return None
    if name.startswith("@"):
        return j + 1 if tok.kind == "var" and tok.value == name else None
    if (tok.kind in ("word", "ident") and at(toks, j + 1) is not None and toks[j + 1].value == "."
            and (col := at(toks, j + 2)) is not None and col.kind in ("word", "ident") and col.value == name):
        return j + 3
    return None


def _limit_tests(toks: list[Tok], name: str, shown: str) -> list[int]:
    """Where the batch tests the limit of `name` (a parameter or an OPENJSON column) in a way its type
    lets fire: DATALENGTH(name) > K with K below what the type holds (equal to it, the test can never
    hold: the value was cut to fit before it ran), or for a decimal ROUND(name, K, ...) with K below
    the type's scale."""
    decimal = shown.startswith(("decimal", "numeric"))
    capacity = _capacity(shown)
    found = []
    for j, tok in enumerate(toks):
        if not (is_word(tok, "ROUND" if decimal else "DATALENGTH") and at(toks, j + 1) is not None
                and toks[j + 1].value == "("):
            continue
        after = _reference_end(toks, j + 2, name)
        if after is None:
            continue
        if decimal:
            comma, bound = at(toks, after), at(toks, after + 1)
            limit_ok = comma is not None and comma.value == "," and bound is not None and bound.kind == "num"
        else:
            close, op, bound = at(toks, after), at(toks, after + 1), at(toks, after + 2)
            limit_ok = (close is not None and close.value == ")" and op is not None and op.value == ">"
                        and bound is not None and bound.kind == "num")
        if limit_ok and int(float(bound.value)) < capacity:
            found.append(j)
    return found


def _throws_after(toks: list[Tok], j: int) -> bool:
    return any(is_word(t, "THROW") for t in toks[j:])


def _limit_checks(toks: list[Tok], stmts: list[Statement], name: str, shown: str) -> list[int]:
    """Where an IF tests @name's limit as _limit_tests says and THROWs (in the same statement or in
    the BEGIN ... END it opens)."""
    tests = set(_limit_tests(toks, name, shown))
    found = []
    for stmt in stmts:
        if not is_word(toks[stmt.start], "IF") or not any(stmt.start <= j < stmt.end for j in tests):
            continue
        throws = any(is_word(toks[j], "THROW") for j in range(stmt.start, stmt.end))
        if not throws and is_word(at(toks, stmt.end), "BEGIN"):
            j = stmt.end + 1
            while j < len(toks) and not is_word(toks[j], "END") and not is_word(toks[j], "THROW"):
                j += 1
            throws = is_word(at(toks, j), "THROW")
        if throws:
            found.append(stmt.start)
    return found


def _openjson_columns(toks: list[Tok]) -> list[tuple[int, str]]:
    """The sized columns of every OPENJSON(...) WITH (...) list: (index of the column's name, its type)."""
    found = []
    for i, tok in enumerate(toks):
        if not (tok.kind in ("word", "ident") and tok.value == "OPENJSON" and at(toks, i + 1) is not None
                and toks[i + 1].value == "("):
            continue
        j = _close(toks, i + 1) + 1
        if not (is_word(at(toks, j), "WITH") and at(toks, j + 1) is not None and toks[j + 1].value == "("):
            continue
        end = _close(toks, j + 1)
        k = j + 2
        while k < end:
            name, kind, paren, size = at(toks, k), at(toks, k + 1), at(toks, k + 2), at(toks, k + 3)
            if (name is not None and name.kind in ("word", "ident") and kind is not None and kind.kind == "word"
                    and kind.value in _SIZED and paren is not None and paren.value == "(" and size is not None
                    and size.kind == "num"):
                close = _close(toks, k + 2)
                found.append((k, kind.value.lower() + "(" + "".join(t.value for t in toks[k + 3:close]) + ")"))
            depth = 0  # on to the next column, after the ',' at this list's own depth
            while k < end and not (depth == 0 and toks[k].value == ","):
                depth += {"(": 1, ")": -1}.get(toks[k].value if toks[k].kind == "punct" else "", 0)
                k += 1
            k += 1
    return found


def _value_limit(toks: list[Tok]) -> Iterator[tuple[Tok, str]]:
    if _procedure_name(toks) is None:
        return
    stmts = statements(toks)
    for i, shown in _sized_parameters(toks):
        name = toks[i].value
        reaching = [j for stmt in stmts for j in _reaching_uses(stmt, name)]
        if not reaching:
            continue
        decimal = shown.startswith(("decimal", "numeric"))
        checks = _limit_checks(toks, stmts, name, shown)
        if not any(c < reaching[0] for c in checks):
            what = "rounds extra scale" if decimal else "cuts a longer value"
            test = f"ROUND({toks[i].text}, s, 1)" if decimal else f"DATALENGTH({toks[i].text})"
            yield toks[i], (f"value limit: {toks[i].text} {shown} reaches a column with no check of its limit before "
                            f"(or one its type can never fail): SQL Server {what} to the parameter's type silently, "
                            "before the procedure runs; declare it one wider than its column and refuse what the "
                            f"column cannot hold (IF {test} ... THROW 50010: macros param_type and check_values)")
    for k, shown in _openjson_columns(toks):
        column = toks[k].value
        if not any(_throws_after(toks, j) for j in _limit_tests(toks, column, shown)):
            decimal = shown.startswith(("decimal", "numeric"))
            what = "rounds extra scale" if decimal else "cuts a longer value"
            yield toks[k], (f"value limit: OPENJSON's column {toks[k].text or column} {shown} has no check of its "
                            f"limit that its type lets fail: OPENJSON {what} to the column's type silently; read it "
                            "one wider than its queue column and refuse what that cannot hold (THROW 50010: macros "
                            "json_read_type and check_batch_values)")

def rule_findings(toks: list[Tok]) -> Iterator[tuple[Tok, str]]:
    """Every rule over one GO batch's tokens."""
    yield from _procedure_isolation(toks)
    yield from _undeclared_variables(toks)
    yield from _wait_in_transaction(toks)
    yield from _watermark_wait(toks)
    yield from _blind_watermark(toks)
    yield from _applock_principal(toks)
    yield from _broken_chain(toks)
    yield from _value_limit(toks)
    for stmt in statements(toks):
        yield from _locking_readpast(stmt)
        yield from _second_reference(stmt)
        yield from _output_into(stmt)
        yield from _plan_pinning(stmt)
