"""The "lock order" gate rule: per T-SQL procedure of a script, the order in which it takes the
locks it keeps to its commit on each queue object, and two procedures that take the same pair in
opposite orders (a deadlock, error 1205, when both run on the same rows at once).

What is a lock resource here: a row of a table by its clustered key (``T``), or a key of one of its
nonclustered indexes (``T.IX``). Every table the script creates counts alike (the queue, its
archive, dead letters, watermark row, outbox, a queue the outbox hands on to).

What a procedure keeps: the rows a DML statement changes (the UPDATE / DELETE target, also through
a CTE or an alias) and the rows a read hinted UPDLOCK, XLOCK, HOLDLOCK, SERIALIZABLE or
REPEATABLEREAD locks. A plain read's shared locks go when the row is read, and an INSERT (also
OUTPUT ... INTO) writes a new key nobody else can hold yet: neither counts.

In which order one access takes them: its access path first, then the index keys the change
maintains.

* The access path: a seek on the clustered key when its WHERE compares the clustered key (``id =``,
  ``id IN``); else a seek on a nonclustered index whose filter the WHERE names (``col = x`` proves
  ``col IS NOT NULL``) or whose leading key it compares, followed by a key lookup of the row (index
  key, then row); else a scan of the clustered rows.
* Maintenance (UPDATE, DELETE): an existing key of another index of the table, when the row is in
  that index (unfiltered, or its filter is proved by the WHERE) and the change touches a column the
  index keys, includes or filters on (DELETE: every one); or when the UPDATE sets NULL a column the
  index's filter says IS NOT NULL (the row leaves it).

Two READPAST statements (claims through different indexes, a claim and a sweep) are not held to one
order against each other: each skips at its first access what the other holds; a pair counts when
one of the two takes it waiting from the start (complete, fail, extend: they must wait for their
job's row). Whether SQL Server's key lookups under READPAST skip too is for a real server
(scripts/measure_mssql.sql).

Which acquisitions can wait: all but the first lock of an access WITH (READPAST): READPAST skips a
row locked on the access it names; the key lookup after a nonclustered seek is not documented to
skip, and a change's index maintenance always waits. A pair (a, b) counts in a procedure when it
keeps a and then may wait for b.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from qgen.dialects.mssql import MssqlDatabase
from tools.tsql_gate.rules import Ref, Statement, _close, _depths, _procedure_name, references, statements, target
from tools.tsql_gate.tokens import Tok, at, is_word, line_col, tokens

batch_spans = MssqlDatabase().batch_spans

_HOLDING_HINTS = {"UPDLOCK", "XLOCK", "HOLDLOCK", "SERIALIZABLE", "REPEATABLEREAD"}
_WHERE_ENDS = {"ORDER", "OPTION", "GROUP", "HAVING", "UNION", "EXCEPT", "INTERSECT", "OUTPUT", "FOR"}
# The procedures that hold or end a lease (dequeue under its own name too: 003's getnextjob).
_LEASE_PATH = ("DEQUEUE", "COMPLETE", "FAIL", "EXTEND_LEASE", "REAP", "GETNEXTJOB", "RELEASE")
_SET_ENDS = {"FROM", "WHERE", "OUTPUT", "OPTION"}


@dataclass
class Index:
    name: str
    keys: list[str]
    columns: set[str]  # keys, INCLUDEs and filter columns
    filt: set[tuple[str, ...]]  # the filter's conjuncts (empty: not filtered)


@dataclass
class Table:
    clustered: set[str] = field(default_factory=lambda: {"ID"})
    indexes: list[Index] = field(default_factory=list)


@dataclass(frozen=True)
class Take:
    """One lock a procedure keeps: where it takes it, and whether it may wait there."""

    resource: str
    waits: bool
    skipping: bool  # taken by a statement WITH (READPAST): a claim or a sweep
    tok: Tok
    first_line: int
    batch: str


def _words(toks: list[Tok], i: int) -> tuple[list[str], int]:
    """The names inside the parentheses opening at toks[i], upper-cased, in order; the index after."""
    close = _close(toks, i)
    return [t.value.upper() for t in toks[i + 1 : close] if t.kind in ("word", "ident")
            and not is_word(t, "ASC", "DESC")], close + 1


def _conjuncts(toks: list[Tok], j: int) -> set[tuple[str, ...]]:
    """The predicates ANDed from toks[j] to the end of that WHERE (at its depth), as upper-cased
    token tuples with any leading `alias.` dropped; `col = x` also adds `col IS NOT NULL`."""
    found: set[tuple[str, ...]] = set()
    current: list[str] = []
    depth = 0

    def flush() -> None:
        if current:
            found.add(tuple(current))
            if len(current) >= 3 and current[1] == "=":
                found.add((current[0], "IS", "NOT", "NULL"))

    while (tok := at(toks, j)) is not None:
        if tok.kind == "punct" and tok.value in "()":
            if tok.value == ")" and depth == 0:
                break
            depth += 1 if tok.value == "(" else -1
        elif depth == 0 and (tok.value == ";" or is_word(tok, *_WHERE_ENDS, "AND", "BEGIN", "END", "ELSE", "IF",
                                                       "SET", "SELECT", "UPDATE", "DELETE", "INSERT", "RETURN")):
            flush()
            current = []
            if not is_word(tok, "AND"):
                break
            j += 1
            continue
        following = at(toks, j + 1)
        if not (depth == 0 and not current and following is not None and following.value == "."):
            if not (not current and tok.value == "."):
                current.append(tok.value.upper() if tok.kind in ("word", "ident") else tok.value)
        j += 1
    flush()
    return found


def _schema(batches: list[list[Tok]]) -> dict[str, Table]:
    """Per table (last name part, upper-cased): its clustered key and nonclustered indexes."""
    tables: dict[str, Table] = {}
    for toks in batches:
        for i, tok in enumerate(toks):
            if is_word(tok, "CREATE") and is_word(at(toks, i + 1), "TABLE"):
                j = i + 2
                while at(toks, j + 1) is not None and toks[j + 1].value == ".":
                    j += 2
                table = tables.setdefault(toks[j].value.upper(), Table())
                for k in range(j, _close(toks, j + 1)):
                    if is_word(toks[k], "PRIMARY") and is_word(at(toks, k + 2), "CLUSTERED") or (
                            is_word(toks[k], "PRIMARY") and at(toks, k + 2) is not None and toks[k + 2].value == "("):
                        opening = k + 3 if is_word(toks[k + 2], "CLUSTERED") else k + 2
                        table.clustered = set(_words(toks, opening)[0])
            index = _index_at(toks, i)
            if index is not None:
                name, index_def = index
                tables.setdefault(name, Table()).indexes.append(index_def)
    return tables


def _index_at(toks: list[Tok], i: int) -> tuple[str, Index] | None:
    """A CREATE [UNIQUE] NONCLUSTERED INDEX starting at toks[i]: its table and definition."""
    if not is_word(toks[i], "CREATE"):
        return None
    j = i + 1
    while is_word(at(toks, j), "UNIQUE", "NONCLUSTERED"):
        j += 1
    if not is_word(at(toks, j), "INDEX") or at(toks, j + 1) is None:
        return None
    name = toks[j + 1].value.upper()
    while (tok := at(toks, j)) is not None and not is_word(tok, "ON"):
        j += 1
    j += 1
    while at(toks, j + 1) is not None and toks[j + 1].value == ".":
        j += 2
    table = toks[j].value.upper()
    keys, j = _words(toks, j + 1)
    columns = set(keys)
    if is_word(at(toks, j), "INCLUDE"):
        included, j = _words(toks, j + 1)
        columns |= set(included)
    filt = _conjuncts(toks, j + 1) if is_word(at(toks, j), "WHERE") else set()
    columns |= {c[0] for c in filt}
    return table, Index(name, keys, columns, filt)


def _where(stmt: Statement, ref_at: int) -> set[tuple[str, ...]]:
    """The WHERE that follows a table reference at its own depth, as conjuncts."""
    toks, j, depth = stmt.toks, ref_at, 0
    while j < stmt.end and not (depth == 0 and is_word(toks[j], "WHERE")):
        if toks[j].kind == "punct" and toks[j].value in "()":
            depth += 1 if toks[j].value == "(" else -1
            if depth < 0:
                return set()
        elif depth == 0 and toks[j].value == ";":
            return set()
        j += 1
    return _conjuncts(toks, j + 1) if j < stmt.end else set()


def _set_columns(stmt: Statement) -> dict[str, bool]:
    """An UPDATE's assigned columns, each with whether it is set to NULL."""
    toks = stmt.toks
    depths = _depths(toks, stmt.start, stmt.end)
    out: dict[str, bool] = {}
    i = next((k for k in range(stmt.keyword, stmt.end) if is_word(toks[k], "SET") and not depths[k - stmt.start]),
             stmt.end)
    while i < stmt.end:
        column, eq = at(toks, i + 1), at(toks, i + 2)
        if column is None or eq is None or eq.value != "=":
            break
        j = i + 3
        while j < stmt.end and not (depths[j - stmt.start] == 0 and (toks[j].value == "," or is_word(toks[j], *_SET_ENDS))):
            j += 1
        out[column.value.upper()] = j == i + 4 and is_word(toks[i + 3], "NULL")
        if j >= stmt.end or toks[j].value != ",":
            break
        i = j
    return out


def _path(table: Table, name: str, where: set[tuple[str, ...]]) -> list[str]:
    if any(c[0] in table.clustered and len(c) > 1 and c[1] in ("=", "IN") for c in where):
        return [name]
    seekable = [ix for ix in table.indexes if ix.filt and ix.filt <= where]
    seekable += [ix for ix in table.indexes if any(c[0] == ix.keys[0] and len(c) > 1 for c in where)]
    return [f"{name}.{seekable[0].name}", name] if seekable else [name]


def _maintained(table: Table, name: str, stmt: Statement, where: set[tuple[str, ...]]) -> list[str]:
    if stmt.kind == "DELETE":
        return [f"{name}.{ix.name}" for ix in table.indexes if not ix.filt or ix.filt <= where]
    assigned = _set_columns(stmt)
    out = []
    for ix in table.indexes:
        present = not ix.filt or ix.filt <= where
        leaves = any(assigned.get(c[0]) and c[1:] == ("IS", "NOT", "NULL") for c in ix.filt)
        if (present and ix.columns & set(assigned)) or leaves:
            out.append(f"{name}.{ix.name}")
    return out


def _kept(stmt: Statement) -> list[tuple[Ref, bool]]:
    """The references whose rows the statement keeps locked, each with whether it is the one changed."""
    refs = references(stmt)
    tgt = target(stmt)
    changed: set[int] = set()
    if tgt is not None and stmt.kind in ("UPDATE", "DELETE"):
        if len(tgt.table) == 1 and tgt.table[0] in stmt.ctes:
            lo, hi = stmt.ctes[tgt.table[0]]
            changed = {r.at for r in refs if lo <= r.at < hi}
        else:
            aliased = [r for r in refs if r.depth == 0 and len(tgt.table) == 1 and r.alias == tgt.table[0]]
            if aliased:
                changed = {aliased[0].at}
            else:
                refs.append(tgt)
                changed = {tgt.at}
    return [(r, r.at in changed) for r in refs
            if not r.variable and (r.at in changed or r.hints & _HOLDING_HINTS)]


def _takes(toks: list[Tok], tables: dict[str, Table], first_line: int, batch: str) -> list[list[Take]]:
    """Per statement, the locks it keeps in the order it takes them."""
    found: list[list[Take]] = []
    for stmt in statements(toks):
        out: list[Take] = []
        found.append(out)
        for ref, changed in _kept(stmt):
            name = ref.table[-1].upper()
            table = tables.get(name, Table())
            where = _where(stmt, ref.at)
            path = _path(table, name, where)
            skips = "READPAST" in ref.hints
            taken = [(r, not (skips and k == 0)) for k, r in enumerate(path)]
            if not changed:
                taken = taken[:1]  # a locking read keeps the key it seeks (qgen's are covered: no lookup)
            else:
                taken += [(r, True) for r in _maintained(table, name, stmt, where) if r not in path]
            seen = {t.resource for t in out}
            out += [Take(r, w, skips, toks[ref.at], first_line, batch) for r, w in taken if r not in seen]
    return found


def _edges(takes: list[list[Take]]) -> dict[tuple[str, str], Take]:
    """(a, b): within one statement, a row of a table kept, then a wait for a key of one of its
    indexes, or the reverse; the Take of b where that happens first."""
    edges: dict[tuple[str, str], Take] = {}
    for one in takes:
        _statement_edges(one, edges)
    return edges


def _statement_edges(takes: list[Take], edges: dict[tuple[str, str], Take]) -> None:
    held: list[str] = []
    for take in takes:
        if take.waits:
            for a in held:
                if a != take.resource:
                    edges.setdefault((a, take.resource), take)
        if take.resource not in held:
            held.append(take.resource)


def lock_order(text: str) -> dict[str, dict[tuple[str, str], Take]]:
    """Per procedure (its name, lower-case) of the script: its lock-order edges."""
    spans = list(batch_spans(text))
    batches = [tokens(batch) for _, batch in spans]
    tables = _schema(batches)
    found = {}
    for (first_line, batch), toks in zip(spans, batches):
        name = _procedure_name(toks)
        if name is not None and name.endswith(_LEASE_PATH):
            found[name.lower()] = _edges(_takes(toks, tables, first_line, batch))
    return found


def lock_order_conflicts(text: str) -> list[tuple[str, str, str, str, Take]]:
    """(procedure, its pair's first resource, second, the other procedure, where) for every pair one
    procedure takes in the order the other reverses."""
    orders = lock_order(text)
    out = []
    for proc, edges in sorted(orders.items()):
        for (a, b), take in sorted(edges.items()):
            for other, other_edges in sorted(orders.items()):
                reverse = other_edges.get((b, a))
                if reverse is not None and not (take.skipping and reverse.skipping) and (other != proc or a < b):
                    out.append((proc, a, b, other, take))
                    break
    return out


def lock_order_problems(text: str) -> list[tuple[int, int, str]]:
    """(line, column, message) in the script for each pair two procedures take in opposite orders."""
    found = []
    for proc, a, b, other, take in lock_order_conflicts(text):
        line, column = line_col(take.batch, take.tok.pos)
        found.append((take.first_line + line - 1, column, (
            f"lock order: {proc} keeps {a.lower()} and then waits for {b.lower()}, while {other} keeps "
            f"{b.lower()} and then waits for {a.lower()}: run at once on the same row they deadlock (1205); "
            "take the clustered row first (seek it by its key), then the index keys the change maintains")))
    return found
