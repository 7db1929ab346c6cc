"""T-SQL tokens for the gate's own checks (tools/tsql_gate/gate.py, tsql_rules.py): comments
dropped, string literals collapsed, bracketed and quoted identifiers unquoted, words upper-cased."""

from __future__ import annotations

import re
from dataclasses import dataclass


@dataclass(frozen=True)
class Tok:
    kind: str  # "word" | "ident" (quoted/bracketed) | "str" | "num" | "var" | "punct"
    value: str  # upper-cased for words
    pos: int  # offset in the batch
    text: str = ""  # as written (unquoted for identifiers), for messages


_WORD = re.compile(r"[^\W\d][\w@#$]*")  # keywords and plain identifiers
_VAR = re.compile(r"[@#]+[\w@#$]*")  # @var, @@global, #temp, ##global_temp
_NUM = re.compile(r"0x[0-9a-fA-F]*|\d+(?:\.\d*)?(?:[eE][+-]?\d+)?|\.\d+(?:[eE][+-]?\d+)?")


def tokens(sql: str) -> list[Tok]:
    """Significant T-SQL tokens: comments (nested /* */ too) dropped, literals collapsed to one token."""
    toks: list[Tok] = []
    i, n = 0, len(sql)
    while i < n:
        ch = sql[i]
        if ch.isspace():
            i += 1
        elif sql.startswith("--", i):
            end = sql.find("\n", i)
            i = n if end < 0 else end
        elif sql.startswith("/*", i):
            depth, i = 1, i + 2  # T-SQL block comments nest
            while i < n and depth:
                if sql.startswith("/*", i):
                    depth, i = depth + 1, i + 2
                elif sql.startswith("*/", i):
                    depth, i = depth - 1, i + 2
                else:
                    i += 1
        elif ch == "'" or (ch in "nN" and sql.startswith("'", i + 1)):
            start = i
            i = sql.index("'", i) + 1
            while i < n:
                if sql[i] == "'":
                    if sql.startswith("''", i):
                        i += 2
                        continue
                    i += 1
                    break
                i += 1
            toks.append(Tok("str", "''", start))
        elif ch in '["':
            close = "]" if ch == "[" else '"'
            start, i = i, i + 1
            buf = []
            while i < n:
                if sql[i] == close:
                    if sql.startswith(close * 2, i):
                        buf.append(close)
                        i += 2
                        continue
                    i += 1
                    break
                buf.append(sql[i])
                i += 1
            toks.append(Tok("ident", "".join(buf).upper(), start, "".join(buf)))
        elif ch in "@#":
            m = _VAR.match(sql, i)
            toks.append(Tok("var", m.group().upper(), i, m.group()))
            i = m.end()
        elif (m := _NUM.match(sql, i)) and (ch.isdigit() or ch == "."):
            toks.append(Tok("num", m.group(), i))
            i = m.end()
        elif m := _WORD.match(sql, i):
            toks.append(Tok("word", m.group().upper(), i, m.group()))
            i = m.end()
        else:
            toks.append(Tok("punct", ch, i))
            i += 1
    return toks


def is_word(tok: Tok | None, *values: str) -> bool:
    return tok is not None and tok.kind == "word" and tok.value in values


def at(toks: list[Tok], i: int) -> Tok | None:
    return toks[i] if 0 <= i < len(toks) else None


def line_col(text: str, pos: int) -> tuple[int, int]:
    line = text.count("\n", 0, pos) + 1
    return line, pos - (text.rfind("\n", 0, pos) + 1) + 1


# WITH <word> that can look like `WITH name AS (` but is a module option, not a CTE name.
_MODULE_OPTIONS = {
    "SCHEMABINDING", "ENCRYPTION", "RECOMPILE", "EXECUTE", "EXEC", "VIEW_METADATA",
    "NATIVE_COMPILATION", "RETURNS", "CALLED", "INLINE",
}
# Statement-level WITH forms other than a CTE that SQL Server also requires after a ';' (error 319).
_STATEMENT_WITH_KEYWORDS = {"XMLNAMESPACES", "CHANGE_TRACKING_CONTEXT"}


def statement_with(toks: list[Tok], i: int) -> str | None:
    """If toks[i] (a WITH) begins a statement-level clause, name it; None for hints/options."""
    name = at(toks, i + 1)
    if name is None:
        return None
    if name.kind == "word" and name.value in _STATEMENT_WITH_KEYWORDS and at(toks, i + 2) and toks[i + 2].value == "(":
        return f"WITH {name.value}"
    if name.kind not in ("word", "ident") or (name.kind == "word" and name.value in _MODULE_OPTIONS):
        return None
    j = i + 2
    nxt = at(toks, j)
    if nxt is not None and nxt.value == "(":  # optional column list: WITH cte (a, b) AS (
        depth = 0
        while j < len(toks):
            if toks[j].kind == "punct" and toks[j].value == "(":
                depth += 1
            elif toks[j].kind == "punct" and toks[j].value == ")":
                depth -= 1
                if depth == 0:
                    break
            j += 1
        j += 1
    if is_word(at(toks, j), "AS") and (paren := at(toks, j + 1)) is not None and paren.value == "(":
        return "WITH (common table expression)"
    return None


_MUST_BE_ALONE = {"VIEW", "PROCEDURE", "PROC", "FUNCTION", "TYPE", "TRIGGER", "SCHEMA", "DEFAULT", "RULE"}
_ALTER_MUST_BE_ALONE = {"VIEW", "PROCEDURE", "PROC", "FUNCTION", "TRIGGER"}


def module_statement(toks: list[Tok], i: int) -> str | None:
    """'CREATE PROCEDURE' etc. if toks[i] starts a statement that must be alone in its batch."""
    tok = toks[i]
    if is_word(tok, "CREATE"):
        j = i + 1
        if is_word(at(toks, j), "OR") and is_word(at(toks, j + 1), "ALTER"):
            j += 2
        kind = at(toks, j)
        if is_word(kind, *_MUST_BE_ALONE):
            return " ".join(t.value for t in toks[i : j + 1])
    elif is_word(tok, "ALTER") and not (is_word(at(toks, i - 1), "OR") and is_word(at(toks, i - 2), "CREATE")):
        kind = at(toks, i + 1)
        if is_word(kind, *_ALTER_MUST_BE_ALONE):
            return f"ALTER {kind.value}"
    return None
