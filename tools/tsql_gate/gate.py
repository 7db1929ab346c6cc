"""T-SQL validation gate for rendered SQL Server scripts (no SQL Server needed).

Three gates, each returning ``Finding``s with script line/column (1-based):

* ``sqlparser``: Microsoft's own T-SQL parser (Microsoft.SqlServer.SqlParser.dll, SQL Server 2017 /
  TransactSqlVersion.Version140) run under Mono by ``tools/tsql_parser/Harness.cs``; built and cached
  by ``tools/tsql_parser/build.sh``. Fed one GO batch at a time (split by qgen's own ``batch_spans``),
  many batches per mono process.
* ``sqlfluff``: sqlfluff's tsql dialect must parse the whole script with no unparsable section.
* ``own``: what both miss: (a) a WITH starting a CTE / XMLNAMESPACES / CHANGE_TRACKING_CONTEXT must
  follow a ``;`` (or start the batch or a module body), (b) each CREATE [OR ALTER] / ALTER of a
  VIEW, PROCEDURE, FUNCTION, TRIGGER, SCHEMA (also DEFAULT, RULE) is the first statement of its GO
  batch, and no batch holds two of those or of CREATE TYPE. CREATE TYPE itself may follow other
  statements (SQL Server allows it; qgen renders ``IF TYPE_ID(...) IS NULL CREATE TYPE ...``).
  (c) the semantic rules of tools/tsql_gate/rules.py: what parses but fails under a caller's
  transaction, READ_COMMITTED_SNAPSHOT, a trigger, or a sniffed parameter.
  And what a script must do to deploy whatever the session (``deploy_findings``): (c) a script that
  creates anything first sets ANSI_NULLS, QUOTED_IDENTIFIER, ANSI_PADDING, ANSI_WARNINGS, ARITHABORT,
  CONCAT_NULL_YIELDS_NULL ON and NUMERIC_ROUNDABORT OFF in a batch of its own, and never flips one;
  (d) every filtered index keys or INCLUDEs each column its WHERE names; (e) every CREATE that is not
  CREATE OR ALTER is guarded by an IF that tests the object is missing, so a script runs twice;
  (g) "lock order" (tools/tsql_gate/locks.py): no two procedures that hold or end a lease take a
  job's row and an index key of its table in opposite orders.
  (f) "filtered claim": a claim (a TOP read WITH (READPAST, UPDLOCK)) of a table that has filtered
  indexes names, literally, every predicate of one of their filters in its WHERE, so that a cached
  plan can seek it.

Command line, from the repo root: ``python -m tools.tsql_gate FILE.sql...``
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from qgen.dialects.mssql import MssqlDatabase
from tools.tsql_gate.locks import lock_order_problems
from tools.tsql_gate.rules import references, rule_findings, statements, target
from tools.tsql_gate.tokens import Tok, at, is_word, line_col, module_statement, statement_with, tokens

batch_spans = MssqlDatabase().batch_spans

REPO_ROOT = Path(__file__).resolve().parents[2]
BUILD_SCRIPT = REPO_ROOT / "tools" / "tsql_parser" / "build.sh"
CACHE_DIR = Path(os.environ.get("TSQL_PARSER_CACHE") or REPO_ROOT / ".cache" / "tsql-parser")
HARNESS = CACHE_DIR / "Harness.exe"
MONO_TIMEOUT_S = 600


@dataclass(frozen=True, order=True)
class Finding:
    """One problem in one script. Sorts by script, then position."""

    name: str
    line: int
    column: int
    gate: str  # "sqlparser" | "sqlfluff" | "own"
    message: str

    def __str__(self) -> str:
        return f"{self.name}:{self.line}:{self.column}: [{self.gate}] {self.message}"


# --------------------------------------------------------------------------------------------------
# Gate 1: Microsoft's parser


class ParserUnavailable(RuntimeError):
    """The Mono harness around Microsoft's parser could not be built (no mono, no network, ...)."""


_build_failure: str | None = None


@lru_cache(maxsize=None)
def _built_harness() -> Path:
    subprocess.run(
        ["bash", str(BUILD_SCRIPT)],
        env={**os.environ, "PYTHON": sys.executable, "TSQL_PARSER_CACHE": str(CACHE_DIR)},
        check=True,
        capture_output=True,
        text=True,
    )
    return HARNESS


def ensure_parser() -> Path:
    """Build (once per process) and return the harness; raises ParserUnavailable with build.sh's reason."""
    global _build_failure
    if _build_failure is not None:
        raise ParserUnavailable(_build_failure)
    try:
        return _built_harness()
    except subprocess.CalledProcessError as exc:
        _build_failure = (exc.stderr or exc.stdout or f"exit status {exc.returncode}").strip()
    except OSError as exc:  # bash itself missing
        _build_failure = f"cannot run {BUILD_SCRIPT}: {exc}"
    raise ParserUnavailable(_build_failure)


def parse_batches(batches: list[str]) -> list[dict]:
    """Run the harness once over ``batches``; returns its error records (batch-relative positions)."""
    harness = ensure_parser()
    if not batches:
        return []
    proc = subprocess.run(
        ["mono", harness.name],
        cwd=harness.parent,  # NetCoreGlobalization.dll etc. are resolved next to the exe
        input=json.dumps(batches),
        capture_output=True,
        text=True,
        encoding="utf-8",
        timeout=MONO_TIMEOUT_S,
    )
    try:
        records = [json.loads(line) for line in proc.stdout.splitlines() if line.strip()]
    except json.JSONDecodeError:
        records = []
    if proc.returncode != 0 or not records or records[-1].get("done") != len(batches):
        raise RuntimeError(
            f"T-SQL parser harness failed (exit {proc.returncode}):\n{proc.stderr.strip()}\n{proc.stdout[-2000:]}"
        )
    return records[:-1]


def sqlparser_findings(scripts: dict[str, str]) -> dict[str, list[Finding]]:
    """Microsoft's parser over every GO batch of every script, in a single mono process.

    Returns {name: findings} with every name present; lines are mapped back to the script.
    """
    batches: list[str] = []
    origin: list[tuple[str, int]] = []  # (script name, script line of the batch's first line)
    for name, text in scripts.items():
        for first_line, batch in batch_spans(text):
            batches.append(batch)
            origin.append((name, first_line))
    found: dict[str, list[Finding]] = {name: [] for name in scripts}
    for rec in parse_batches(batches):
        name, first_line = origin[rec["batch"]]
        message = rec["message"]
        if rec.get("warning"):
            message = f"warning: {message}"
        found[name].append(Finding(name, first_line + rec["line"] - 1, rec["column"], "sqlparser", message))
    return {name: sorted(set(fs)) for name, fs in found.items()}


# --------------------------------------------------------------------------------------------------
# Gate 2: sqlfluff (tsql dialect)


@lru_cache(maxsize=None)
def _sqlfluff_linter():
    from sqlfluff.core import FluffConfig, Linter

    config = FluffConfig(
        overrides={
            "dialect": "tsql",
            "templater": "raw",  # rendered SQL is final: no jinja ({{ in a string literal is just text)
            "large_file_skip_byte_limit": 0,  # never silently skip a big script
        }
    )
    return Linter(config=config)


# What sqlfluff's parse of a batch depends on: its tokens, not what a bracketed name, a string or a
# number says, nor its comments. Scanned left to right, so a quote inside a comment (or "--" inside
# a string) is read as what it is.
_TOKEN = re.compile(r"(\[(?:[^\]]|\]\])*\])|(N?'(?:[^']|'')*')|(--[^\n]*|/\*.*?\*/)|(\b\d+\b)", re.S)
_PARSED_CLEAN: set[str] = set()  # batch shapes sqlfluff parsed without a finding, in this process


def _shape(batch: str) -> str:
    return _TOKEN.sub(lambda m: "[x]" if m.group(1) else "''" if m.group(2) else "" if m.group(3) else "0", batch)


def sqlfluff_findings(text: str, name: str = "") -> list[Finding]:
    """Parse each GO batch of the script (as SQL Server runs them) and report each unparsable section,
    at its line in the script. A batch shaped like one already parsed clean (the same tokens, other
    names, strings or numbers: every spec renders the same procedures) is not parsed again; that takes
    the gate from about 16 s a spec to a few."""
    found: list[Finding] = []
    for first_line, batch in batch_spans(text):
        shape = _shape(batch)
        if shape in _PARSED_CLEAN:
            continue
        in_batch = _sqlfluff_batch(batch, name)
        if not in_batch:
            _PARSED_CLEAN.add(shape)
        found += [Finding(f.name, first_line + f.line - 1, f.column, f.gate, f.message) for f in in_batch]
    return sorted(found)


def _sqlfluff_batch(text: str, name: str) -> list[Finding]:
    from sqlfluff.core.errors import SQLLexError, SQLParseError

    parsed = _sqlfluff_linter().parse_string(text)
    found: set[Finding] = set()
    for err in parsed.violations:
        if isinstance(err, (SQLParseError, SQLLexError)):
            message = re.sub(r"^Line \d+, Position \d+: ", "", _one_line(err.desc()))
            found.add(Finding(name, err.line_no, err.line_pos, "sqlfluff", _shorten(message)))
    variant = parsed.root_variant()
    if variant is not None and variant.tree is not None:
        for seg in variant.tree.recursive_crawl("unparsable"):
            line, column = seg.pos_marker.working_loc
            if not any(f.line == line and f.column == column for f in found):
                found.add(Finding(name, line, column, "sqlfluff", _shorten(f"unparsable section: {_one_line(seg.raw)!r}")))
    return sorted(found)


def _one_line(s: str) -> str:
    return " ".join(s.split())


def _shorten(s: str, limit: int = 200) -> str:
    return s if len(s) <= limit else s[: limit - 3] + "..."


# --------------------------------------------------------------------------------------------------
# Gate 3: our own checks


def own_findings(text: str, name: str = "") -> list[Finding]:
    """Checks neither parser makes: CTE ';' terminator rule, one module per GO batch, and qgen's
    semantic rules (tools/tsql_gate/rules.py: READ COMMITTED pinned before READPAST, READPAST
    with a locking hint, no claim through a second reference, no OUTPUT without INTO, TOP
    (@variable) over READPAST with a pinned plan).

    Comments, string literals and quoted identifiers are skipped. A WITH counts as statement-level
    when it reads ``WITH name [(cols)] AS (`` or ``WITH XMLNAMESPACES (`` / ``WITH CHANGE_TRACKING_CONTEXT (``;
    table/query hints, index and module options (``WITH (...)``, ``WITH NOWAIT``, ``WITH SCHEMABINDING``,
    ``WITH EXECUTE AS``, ``WITH CHECK OPTION``, ``WITH TIES``, ``WITH RESULT SETS`` ...) never have that
    shape. Such a WITH passes only at the start of a batch, after ';', or right after the AS that opens
    a view/procedure/function body: deliberately stricter than SQL Server after BEGIN / ELSE / IF.
    """
    found: list[Finding] = []
    for first_line, batch in batch_spans(text):

        def add(tok: Tok, message: str) -> None:
            line, column = line_col(batch, tok.pos)  # noqa: B023 (called within this iteration only)
            found.append(Finding(name, first_line + line - 1, column, "own", message))  # noqa: B023

        toks = tokens(batch)
        first_module: str | None = None
        for i, tok in enumerate(toks):
            if is_word(tok, "WITH") and (what := statement_with(toks, i)):
                prev = at(toks, i - 1)
                # Fine at batch start, after ';', or right after the AS that opens a view/procedure/function body.
                if not (prev is None or prev.value == ";" or is_word(prev, "AS")):
                    add(tok, f"{what} must start its statement: terminate the previous statement with ';' (SQL Server error 319)")
            module = module_statement(toks, i)
            if module:
                if first_module is not None:
                    add(tok, f"{module} shares a GO batch with {first_module}: put GO between them")
                elif i != 0 and not module.endswith(" TYPE"):
                    add(tok, f"{module} must be the first statement of its GO batch: put GO before it")
                first_module = first_module or module
        for tok, message in rule_findings(toks):
            add(tok, message)
    return sorted(found)


# --------------------------------------------------------------------------------------------------
# Gate 3, continued: what a rendered qgen script must do to deploy on any SQL Server session.
# Both parsers accept a script that then fails on a server whose session settings differ, so these
# rules check what the script itself sets and creates.

# The options filtered indexes need (and that procedures and views keep from the creating session).
SESSION_OPTIONS = {
    "ANSI_NULLS": "ON", "QUOTED_IDENTIFIER": "ON", "ANSI_PADDING": "ON", "ANSI_WARNINGS": "ON",
    "ARITHABORT": "ON", "CONCAT_NULL_YIELDS_NULL": "ON", "NUMERIC_ROUNDABORT": "OFF",
}


def _set_options(toks: list[Tok], i: int) -> tuple[list[str], str] | None:
    """`SET A, B, C ON|OFF` at toks[i]: (options, value); None for SET @var, SET TRANSACTION ...."""
    if not is_word(toks[i], "SET"):
        return None
    names, j = [], i + 1
    while (tok := at(toks, j)) is not None and tok.kind == "word":
        nxt = at(toks, j + 1)
        if nxt is not None and nxt.value == ",":
            names.append(tok.value)
            j += 2
        elif is_word(nxt, "ON", "OFF") and not is_word(tok, "ON", "OFF"):
            return names + [tok.value], nxt.value
        else:
            return None
    return None


def session_findings(text: str, name: str = "") -> list[Finding]:
    """A script that creates anything sets SESSION_OPTIONS first, in a batch of its own before the
    batch of its first CREATE (ANSI_NULLS and QUOTED_IDENTIFIER are fixed when a batch is parsed), and
    never sets one of them to the other value later."""
    found: list[Finding] = []
    options: dict[str, str] = {}
    first_create_seen = False
    for first_line, batch in batch_spans(text):
        toks = tokens(batch)
        in_batch: dict[str, str] = {}
        for i, tok in enumerate(toks):
            setting = _set_options(toks, i)
            if setting:
                for option in setting[0]:
                    if option in SESSION_OPTIONS:
                        in_batch[option] = setting[1]
                        if setting[1] != SESSION_OPTIONS[option]:
                            line, column = line_col(batch, tok.pos)
                            found.append(Finding(name, first_line + line - 1, column, "own",
                                                 f"SET {option} {setting[1]}: qgen's scripts keep it "
                                                 f"{SESSION_OPTIONS[option]} (filtered indexes need it)"))
            if is_word(tok, "CREATE") and not first_create_seen:
                first_create_seen = True
                missing = [f"{o} {v}" for o, v in SESSION_OPTIONS.items() if options.get(o) != v]
                if missing:
                    line, column = line_col(batch, tok.pos)
                    found.append(Finding(name, first_line + line - 1, column, "own",
                                         "CREATE before the script sets, in a GO batch before this one, "
                                         f"the options filtered indexes need: {', '.join(missing)}"))
        options.update(in_batch)
    return found


_INDEX_PREDICATE_WORDS = {"AND", "IS", "NOT", "NULL", "IN"}


def _paren_words(toks: list[Tok], i: int) -> tuple[set[str], int]:
    """The names inside the parentheses that open at toks[i] (ASC/DESC left out); the index after them."""
    names, depth, j = set(), 0, i
    while j < len(toks):
        tok = toks[j]
        if tok.value == "(" and tok.kind == "punct":
            depth += 1
        elif tok.value == ")" and tok.kind == "punct":
            depth -= 1
            if depth == 0:
                return names, j + 1
        elif tok.kind in ("word", "ident") and not is_word(tok, "ASC", "DESC"):
            names.add(tok.value)
        j += 1
    return names, j


def _filter_columns(toks: list[Tok], j: int) -> set[str]:
    """Columns a filtered index's WHERE names: `col op value`, `col IS [NOT] NULL`, `col [NOT] IN (...)`,
    joined by AND (the predicates a filtered index allows)."""
    columns: set[str] = set()
    while (tok := at(toks, j)) is not None and tok.kind in ("word", "ident"):
        columns.add(tok.value)
        j += 1
        if is_word(at(toks, j), "IS"):
            j += 1
            if is_word(at(toks, j), "NOT"):
                j += 1
            j += 1  # NULL
        elif is_word(at(toks, j), "NOT", "IN"):
            j += 2 if is_word(at(toks, j), "NOT") else 1
            _, j = _paren_words(toks, j)
        else:
            while (op := at(toks, j)) is not None and op.kind == "punct" and op.value in "=<>!":
                j += 1
            if (sign := at(toks, j)) is not None and sign.value in "+-" and sign.kind == "punct":
                j += 1
            j += 1  # the value
        if not is_word(at(toks, j), "AND"):
            break
        j += 1
    return columns


def _create_index_at(toks: list[Tok], i: int) -> int | None:
    """Where toks[i] starts CREATE [UNIQUE] [[NON]CLUSTERED] INDEX: the position of INDEX; else None."""
    if not is_word(toks[i], "CREATE"):
        return None
    j = i + 1
    while is_word(at(toks, j), "UNIQUE", "CLUSTERED", "NONCLUSTERED"):
        j += 1
    return j if is_word(at(toks, j), "INDEX") else None


def filtered_index_findings(text: str, name: str = "") -> list[Finding]:
    """Every filtered index (CREATE ... INDEX ... WHERE) keys or INCLUDEs each column its filter names:
    otherwise the optimizer can match a query to it only with lookups, or not at all."""
    found: list[Finding] = []
    for first_line, batch in batch_spans(text):
        toks = tokens(batch)
        for i in range(len(toks)):
            j = _create_index_at(toks, i)
            if j is None:
                continue
            index = at(toks, j + 1)
            while (tok_j := at(toks, j)) is not None and tok_j.value != "(":
                j += 1
            covered, j = _paren_words(toks, j)
            if is_word(at(toks, j), "INCLUDE"):
                included, j = _paren_words(toks, j + 1)
                covered |= included
            if not is_word(at(toks, j), "WHERE"):
                continue
            missing = sorted(_filter_columns(toks, j + 1) - covered)
            if missing:
                line, column = line_col(batch, toks[j].pos)
                found.append(Finding(name, first_line + line - 1, column, "own",
                                     f"filtered index {index.value if index else '?'} filters on "
                                     f"{', '.join(missing)} but neither keys nor INCLUDEs it: INCLUDE its filter columns"))
    return found


# A claim's WHERE ends at these words (or a closing parenthesis, or the statement's end).
_WHERE_ENDS = {"ORDER", "OPTION", "GROUP", "HAVING", "UNION", "EXCEPT", "INTERSECT", "OUTPUT", "FOR"}


def _conjuncts(toks: list[Tok], j: int) -> tuple[set[tuple[str, ...]], int]:
    """The predicates ANDed at the depth of toks[j] from there to the end of that WHERE, each as its
    tokens (words and identifiers upper-cased, a leading `alias.` dropped); and where it ends."""
    found: set[tuple[str, ...]] = set()
    current: list[str] = []
    depth = 0
    while (tok := at(toks, j)) is not None:
        if tok.kind == "punct" and tok.value == "(":
            depth += 1
        elif tok.kind == "punct" and tok.value == ")":
            if depth == 0:
                break
            depth -= 1
        elif depth == 0 and (tok.value == ";" or is_word(tok, *_WHERE_ENDS) or is_word(tok, "AND")):
            if current:
                found.add(tuple(current))
            current = []
            if not is_word(tok, "AND"):
                break
            j += 1
            continue
        if not (depth == 0 and not current and at(toks, j + 1) is not None and toks[j + 1].value == "."
                and tok.kind in ("word", "ident")):
            if not (current == [] and tok.value == "." and tok.kind == "punct"):
                current.append(tok.value.upper() if tok.kind in ("word", "ident") else tok.value)
        j += 1
    if current:
        found.add(tuple(current))
    return found, j


def _filtered_indexes(batches: list[list[Tok]]) -> dict[str, list[tuple[str, set[tuple[str, ...]]]]]:
    """Per table (its last name part, upper-cased): each filtered index's name and filter predicates."""
    found: dict[str, list[tuple[str, set[tuple[str, ...]]]]] = {}
    for toks in batches:
        for i in range(len(toks)):
            j = _create_index_at(toks, i)
            if j is None or at(toks, j + 1) is None:
                continue
            index = toks[j + 1].text or toks[j + 1].value
            while (on := at(toks, j)) is not None and not is_word(on, "ON"):
                j += 1
            j += 1
            while (part := at(toks, j + 1)) is not None and part.value == ".":
                j += 2
            table = at(toks, j)
            while (tok_j := at(toks, j)) is not None and not (tok_j.kind == "punct" and tok_j.value in ";") \
                    and not is_word(tok_j, "WHERE"):
                j += 1
            if table is not None and is_word(at(toks, j), "WHERE"):
                found.setdefault(table.value.upper(), []).append((index, _conjuncts(toks, j + 1)[0]))
    return found


def filtered_claim_findings(text: str, name: str = "") -> list[Finding]:
    """A claim (a TOP read WITH (READPAST, UPDLOCK) of a queue table) on a table with filtered indexes
    must name, in its own WHERE, every predicate of one of them, as written (a literal, not a
    parameter): SQL Server matches a filtered index to a query only when the query's predicates
    prove its filter at compile time, and a cached, parameterized plan proves nothing from a
    variable. A claim that does not (its WHERE dropped or changed a predicate the index's filter
    has, say [deferred] = 0) walks the clustered rows or an unfiltered index instead: past jobs in
    flight, finished, and waiting for their time, and the claim's cost grows with them. A read that
    forces its seek (INDEX(...), FORCESEEK: rows looked up by id, as reap and cancel do) is no claim."""
    spans = list(batch_spans(text))
    batches = [tokens(batch) for _, batch in spans]
    indexes = _filtered_indexes(batches)
    found: list[Finding] = []
    for (first_line, batch), toks in zip(spans, batches):
        for stmt in statements(toks):
            if not any(is_word(t, "TOP") for t in toks[stmt.start : stmt.end]):
                continue
            for ref in references(stmt):
                candidates = indexes.get(ref.table[-1].upper(), [])
                if not candidates or not {"READPAST", "UPDLOCK"} <= ref.hints:
                    continue
                if {"INDEX", "FORCESEEK"} <= ref.hints:  # a seek the statement forces (rows by their ids): no index to match
                    continue
                j = ref.at
                depth = 0
                while j < stmt.end and not (depth == 0 and is_word(toks[j], "WHERE")):
                    if toks[j].kind == "punct" and toks[j].value in "()":
                        depth += 1 if toks[j].value == "(" else -1
                        if depth < 0:
                            break
                    j += 1
                where = _conjuncts(toks, j + 1)[0] if j < stmt.end and is_word(toks[j], "WHERE") else set()
                if any(filt <= where for _, filt in candidates):
                    continue
                line, column = line_col(batch, toks[ref.at].pos)
                shown = "; ".join(f"{ix}: {' AND '.join(' '.join(p) for p in sorted(filt))}" for ix, filt in candidates)
                found.append(Finding(name, first_line + line - 1, column, "own",
                                     f"claim on {ref.shown} names no filtered index's whole filter in its WHERE "
                                     f"(literally: a parameter proves nothing to a cached plan), so it can seek none "
                                     f"of them ({shown})"))
    return found


_RANGE_HINTS = frozenset({"HOLDLOCK", "SERIALIZABLE"})


def _claim_inserts(batches: list[list[Tok]]) -> set[str]:
    """The tables (last name part, upper-cased) that a claim path inserts into: every table an
    INSERT writes in a batch that claims (reads WITH (READPAST, UPDLOCK))."""
    found: set[str] = set()
    for toks in batches:
        stmts = statements(toks)
        if not any({"READPAST", "UPDLOCK"} <= ref.hints for stmt in stmts for ref in references(stmt)):
            continue
        for stmt in stmts:
            tgt = target(stmt)
            # Not the watermark table: it holds one row, not keys one per claim; a claim inserts
            # there only to put back a row deleted by hand (under a range lock, so that one does).
            if stmt.kind == "INSERT" and tgt is not None and not tgt.variable \
                    and not tgt.table[-1].upper().endswith("WATERMARK"):
                found.add(tgt.table[-1].upper())
    return found


def claim_range_lock_findings(text: str, name: str = "") -> list[Finding]:
    """A key-range read (HOLDLOCK, SERIALIZABLE) of a table a claim path inserts into: the range
    lock is held to the end of the reader's transaction, which for a claim in a
    delete queue is the buyer's whole sale (and for an enqueue, an importer's whole transaction).
    With sequential keys every new key falls in the same range, at the end of the table's unique
    index, so every claim's insert there (RangeI-N) waits for that transaction: claimers queue
    behind each other instead of skipping. Read such a table by key without a range lock and let
    its unique index, or a range lock on the queue table, carry the guarantee."""
    spans = list(batch_spans(text))
    batches = [tokens(batch) for _, batch in spans]
    inserted = _claim_inserts(batches)
    found: list[Finding] = []
    for (first_line, batch), toks in zip(spans, batches):
        for stmt in statements(toks):
            for ref in references(stmt):
                if ref.variable or not ref.hints & _RANGE_HINTS or ref.table[-1].upper() not in inserted:
                    continue
                line, column = line_col(batch, toks[ref.at].pos)
                found.append(Finding(name, first_line + line - 1, column, "own",
                                     f"claim range lock: {ref.shown} is read WITH {'/'.join(sorted(ref.hints & _RANGE_HINTS))}, "
                                     "and a claim inserts into it: the key-range lock, held to the end of this "
                                     "transaction, makes every claim that inserts a key in that range (with sequential "
                                     "keys, each one) wait for it; read it by key without a range lock"))
    return found


# Words that may stand at parenthesis depth 0 in an IF condition; any other word (not a function
# call) begins the statement the IF guards.
_CONDITION_WORDS = {"AND", "OR", "NOT", "IS", "NULL", "EXISTS", "IN", "LIKE", "BETWEEN"}


def _condition_end(toks: list[Tok], j: int) -> int:
    """Index of the first token after the IF condition that starts at toks[j]."""
    depth = 0
    while j < len(toks):
        tok = toks[j]
        if tok.kind == "punct" and tok.value == "(":
            depth += 1
        elif tok.kind == "punct" and tok.value == ")":
            depth -= 1
        elif depth == 0 and tok.kind == "word" and tok.value not in _CONDITION_WORDS:
            nxt = at(toks, j + 1)
            if not (nxt is not None and nxt.value == "("):  # a function call (OBJECT_ID(...)) is part of it
                return j
        j += 1
    return j


def rerun_findings(text: str, name: str = "") -> list[Finding]:
    """A script that is run twice must not fail: every CREATE other than CREATE OR ALTER is the
    statement of an IF whose condition tests that the object is missing (IS NULL / NOT EXISTS),
    directly or as a statement of the BEGIN ... END block that IF opens."""
    found: list[Finding] = []
    for first_line, batch in batch_spans(text):
        toks = tokens(batch)
        blocks: list[bool] = []  # per open BEGIN / CASE: does a missing-object test guard it?
        guard_next = False       # the statement after an IF condition that tests for a missing object
        i = 0
        while i < len(toks):
            tok = toks[i]
            if is_word(tok, "IF"):
                end = _condition_end(toks, i + 1)
                words = [t.value for t in toks[i + 1:end]]
                guard_next = any(words[k:k + 2] in (["IS", "NULL"], ["NOT", "EXISTS"]) for k in range(len(words)))
                i = end
                continue
            if is_word(tok, "BEGIN") and not is_word(at(toks, i + 1), "TRAN", "TRANSACTION", "DISTRIBUTED"):
                blocks.append(guard_next)
            elif is_word(tok, "CASE"):
                blocks.append(False)
            elif is_word(tok, "END") and blocks:
                blocks.pop()
            elif is_word(tok, "CREATE"):
                if is_word(at(toks, i + 1), "OR"):
                    break  # CREATE OR ALTER: re-runnable; a module is alone in its batch
                if not (guard_next or any(blocks)):
                    line, column = line_col(batch, tok.pos)
                    what = " ".join(t.value for t in toks[i:i + 2])
                    found.append(Finding(name, first_line + line - 1, column, "own",
                                         f"{what} is not guarded: a script run twice fails here; use CREATE OR ALTER, "
                                         "or IF <object> IS NULL / IF NOT EXISTS (...) before it"))
            elif is_word(tok, "ALTER") and is_word(at(toks, i + 1), "PROCEDURE", "PROC", "VIEW", "FUNCTION", "TRIGGER"):
                break
            guard_next = False
            i += 1
    return found


# What every qgen procedure sets at the top of its body, whatever the caller's session (the template
# macro procedure_start): READ COMMITTED is what READPAST and the locking reads need. Not
# IMPLICIT_TRANSACTIONS: a procedure leaves the caller's setting alone (set OFF, an
# enqueue committed by itself and escaped a caller with implicit transactions; set ON, a caller in
# autocommit would be left a transaction it never asked for), and a SET of it anywhere in a
# procedure is reported.
PROCEDURE_OPTIONS = {
    "NOCOUNT": "ON", "XACT_ABORT": "ON",
    "ANSI_WARNINGS": "ON", "ANSI_PADDING": "ON", "CONCAT_NULL_YIELDS_NULL": "ON", "ARITHABORT": "ON",
    "NUMERIC_ROUNDABORT": "OFF", "TRANSACTION ISOLATION LEVEL": "READ COMMITTED",
}
# How far (in tokens) from an @@TRANCOUNT test the @@OPTIONS test of the same condition must be: the
# macro caller_transaction renders "(@@TRANCOUNT > 0 OR (@@OPTIONS & 2) = 2)".
_CALLER_TRANSACTION_REACH = 8


def _leading_settings(toks: list[Tok], i: int) -> dict[str, str]:
    """The SET statements that open a procedure body starting at toks[i] (after its AS, an optional
    BEGIN), until the first statement that is not a SET of options or of the isolation level."""
    found: dict[str, str] = {}
    if is_word(at(toks, i), "BEGIN"):
        i += 1
    while is_word(at(toks, i), "SET"):
        words = [t.value for t in toks[i + 1:i + 6]]
        if words[:3] == ["TRANSACTION", "ISOLATION", "LEVEL"]:
            level = " ".join(w for w in words[3:] if w in ("READ", "COMMITTED", "UNCOMMITTED", "REPEATABLE",
                                                          "SNAPSHOT", "SERIALIZABLE"))
            found["TRANSACTION ISOLATION LEVEL"] = level
        elif (setting := _set_options(toks, i)) is not None:
            for option in setting[0]:
                found[option] = setting[1]
        else:
            break
        while (tok := at(toks, i)) is not None and tok.value != ";":
            i += 1
        i += 1
    return found


def procedure_session_findings(text: str, name: str = "") -> list[Finding]:
    """Every CREATE [OR ALTER] PROCEDURE opens its body with PROCEDURE_OPTIONS, each SET before any
    other statement: the same session options in every procedure, reported at the CREATE with the
    ones missing. Rule "caller transaction": no procedure sets IMPLICIT_TRANSACTIONS, and none asks
    @@TRANCOUNT whether its caller is in a transaction without asking @@OPTIONS bit 2 in the same
    condition (a caller with IMPLICIT_TRANSACTIONS ON has @@TRANCOUNT 0 and is inside one)."""
    found: list[Finding] = []
    for first_line, batch in batch_spans(text):
        toks = tokens(batch)
        module = module_statement(toks, 0) if toks else None
        if not (module and module.endswith(("PROCEDURE", "PROC"))):
            continue
        # The AS that opens the body, not the one of WITH EXECUTE AS OWNER.
        body = next((i + 1 for i, tok in enumerate(toks) if is_word(tok, "AS") and not is_word(at(toks, i - 1), "EXECUTE")),
                    len(toks))
        settings = _leading_settings(toks, body)
        missing = [f"{o} {v}" for o, v in PROCEDURE_OPTIONS.items() if settings.get(o) != v]
        if missing:
            line, column = line_col(batch, toks[0].pos)
            found.append(Finding(name, first_line + line - 1, column, "own",
                                 "procedure session: the body does not open with SET "
                                 f"{', '.join(missing)} (every qgen procedure sets the same options, whatever "
                                 "the caller's session)"))
        found += [Finding(name, first_line + line - 1, column, "own", message)
                  for line, column, message in _caller_transaction_findings(batch, toks, body)]
    return found


def _caller_transaction_findings(batch: str, toks: list[Tok], body: int) -> list[tuple[int, int, str]]:
    found = []
    for i in range(body, len(toks)):
        tok = toks[i]
        if is_word(tok, "SET") and (setting := _set_options(toks, i)) is not None and "IMPLICIT_TRANSACTIONS" in setting[0]:
            found.append((*line_col(batch, tok.pos),
                          "caller transaction: a procedure sets IMPLICIT_TRANSACTIONS; leave the caller's setting: "
                          "OFF makes its work commit by itself and escape a caller with implicit transactions, "
                          "ON leaves an autocommit caller a transaction it never opened"))
        elif tok.kind == "var" and tok.value.upper() == "@@TRANCOUNT":
            near = toks[max(body, i - _CALLER_TRANSACTION_REACH):i + _CALLER_TRANSACTION_REACH + 1]
            if not any(t.kind == "var" and t.value.upper() == "@@OPTIONS" for t in near):
                found.append((*line_col(batch, tok.pos),
                              "caller transaction: @@TRANCOUNT alone decides whether the caller is in a transaction; "
                              "a caller with IMPLICIT_TRANSACTIONS ON is, at @@TRANCOUNT 0: ask (@@OPTIONS & 2) = 2 "
                              "too (macro caller_transaction)"))
    return found


def _transaction_balance(toks: list[Tok]) -> int:
    """BEGIN TRAN[SACTION]s less COMMITs of a batch (a ROLLBACK is its failure path, not its end)."""
    begins = sum(1 for i, tok in enumerate(toks) if is_word(tok, "BEGIN") and is_word(at(toks, i + 1), "TRAN", "TRANSACTION"))
    return begins - sum(1 for tok in toks if is_word(tok, "COMMIT"))


def _guard_end(toks: list[Tok]) -> int | None:
    """Where the guard a batch opens with ends (the index of its block's END): IF @@TRANCOUNT = 0 and a
    block that ends the batch (RETURN); None when the batch does not open with one."""
    if [t.value for t in toks[:4]] != ["IF", "@@TRANCOUNT", "=", "0"]:
        return None
    depth, i, returns = 0, 4, False
    while i < len(toks):
        if is_word(toks[i], "BEGIN"):
            depth += 1
        elif is_word(toks[i], "END"):
            depth -= 1
            if depth == 0:
                return i if returns else None
        elif is_word(toks[i], "RETURN") and depth == 1:
            returns = True
        i += 1
    return None


def _guarded(toks: list[Tok]) -> bool:
    """Does the batch open with IF @@TRANCOUNT = 0 and a block that ends the batch (RETURN)?"""
    return _guard_end(toks) is not None


def _guard_only(toks: list[Tok]) -> bool:
    """Is the batch the guard and nothing else, setting NOEXEC ON (a batch of its own before a batch
    that cannot begin with it: CREATE PROCEDURE and the like must come first in theirs)?"""
    end = _guard_end(toks)
    return (end is not None and all(tok.value == ";" for tok in toks[end + 1:])
            and any(is_word(tok, "NOEXEC") and is_word(at(toks, i + 1), "ON") for i, tok in enumerate(toks[:end])))


def transaction_guard_findings(text: str, name: str = "") -> list[Finding]:
    """A script whose transaction spans GO batches (a batch begins it, a later one commits it): every
    batch in between opens with IF @@TRANCOUNT = 0 BEGIN ... RETURN; END, or follows a batch that is
    that guard alone and sets NOEXEC ON (a module's batch, which must begin with its CREATE; the
    offline upgrade script of a revision, templates/mssql/revision_locks.sql.j2). sqlcmd without -b and SSMS
    send the next batch after one failed; XACT_ABORT rolled the transaction back, so without the
    guard the batch runs in autocommit, without the locks the transaction took (uninstall's drops)."""
    found: list[Finding] = []
    opened_at: int | None = None
    after_guard = False  # the batch before was a guard of its own (which sets NOEXEC ON when it fires)
    for first_line, batch in batch_spans(text):
        toks = tokens(batch)
        if not toks:
            continue
        module = module_statement(toks, 0) is not None
        # A batch that only commits runs nothing in autocommit (without a transaction it fails: 3902).
        commit_only = all(is_word(tok, "COMMIT", "TRAN", "TRANSACTION") or tok.value == ";" for tok in toks)
        if opened_at is not None and not (_guarded(toks) or after_guard or commit_only):
            line, column = line_col(batch, toks[0].pos)
            found.append(Finding(name, first_line + line - 1, column, "own",
                                 f"transaction guard: this batch runs inside the transaction begun at line {opened_at} "
                                 "but does not open with IF @@TRANCOUNT = 0 BEGIN ... RETURN; END (nor follow a batch "
                                 "that is that guard alone, setting NOEXEC ON, as a module's batch must): once an "
                                 "earlier batch failed and rolled it back, sqlcmd and SSMS run it in autocommit"))
        after_guard = _guard_only(toks)
        if module:
            continue
        balance = _transaction_balance(toks)
        if balance > 0 and opened_at is None:
            opened_at = first_line
        elif balance < 0:
            opened_at = None
    return found


def lock_order_findings(text: str, name: str = "") -> list[Finding]:
    """The "lock order" rule (tools/tsql_gate/locks.py) over a whole script."""
    return [Finding(name, line, column, "own", message) for line, column, message in lock_order_problems(text)]


def deploy_findings(text: str, name: str = "") -> list[Finding]:
    """The rules a rendered qgen script must pass to deploy on any session and to run twice: SET
    options, filtered indexes, guarded CREATEs, every procedure's own session options, every batch of
    a transaction that spans batches guarded, no key-range lock on a table claims insert into; and the
    script-wide "lock order" rule (tools/tsql_gate/locks.py)."""
    return sorted(session_findings(text, name) + filtered_index_findings(text, name) + rerun_findings(text, name)
                  + procedure_session_findings(text, name) + filtered_claim_findings(text, name)
                  + transaction_guard_findings(text, name) + claim_range_lock_findings(text, name)
                  + lock_order_findings(text, name))


# --------------------------------------------------------------------------------------------------
# All gates


def check_scripts(scripts: dict[str, str]) -> dict[str, list[Finding]]:
    """All three gates over many scripts; one mono process for all of them."""
    parsed = sqlparser_findings(scripts)
    return {
        name: sorted(parsed[name] + sqlfluff_findings(text, name) + own_findings(text, name) + deploy_findings(text, name))
        for name, text in scripts.items()
    }


def check_script(text: str, name: str) -> list[Finding]:
    """All three gates over one rendered .sql script."""
    return check_scripts({name: text})[name]


def main(argv: list[str]) -> int:
    if not argv:
        print("usage: python -m tools.tsql_gate FILE.sql...", file=sys.stderr)
        return 2
    results = check_scripts({path: Path(path).read_text(encoding="utf-8") for path in argv})
    problems = [f for findings in results.values() for f in findings]
    for finding in problems:
        print(finding)
    return 1 if problems else 0

