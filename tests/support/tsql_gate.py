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
  (c) the semantic rules of tests/support/tsql_rules.py: what parses but fails under a caller's
  transaction, READ_COMMITTED_SNAPSHOT, a trigger, or a sniffed parameter.

Command line, from the repo root: ``python -m tests.support.tsql_gate FILE.sql...``
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

from qgen.dialects.mssql import batch_spans
from tests.support.tsql_rules import rule_findings
from tests.support.tsql_tokens import Tok, at, is_word, line_col, module_statement, statement_with, tokens

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


def sqlfluff_findings(text: str, name: str = "") -> list[Finding]:
    """Parse the whole script (sqlfluff's tsql dialect knows GO) and report each unparsable section."""
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
    semantic rules (tests/support/tsql_rules.py: READ COMMITTED pinned before READPAST, READPAST
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
            line, column = line_col(batch, tok.pos)
            found.append(Finding(name, first_line + line - 1, column, "own", message))

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
# All gates


def check_scripts(scripts: dict[str, str]) -> dict[str, list[Finding]]:
    """All three gates over many scripts; one mono process for all of them."""
    parsed = sqlparser_findings(scripts)
    return {
        name: sorted(parsed[name] + sqlfluff_findings(text, name) + own_findings(text, name))
        for name, text in scripts.items()
    }


def check_script(text: str, name: str) -> list[Finding]:
    """All three gates over one rendered .sql script."""
    return check_scripts({name: text})[name]


def main(argv: list[str]) -> int:
    if not argv:
        print("usage: python -m tests.support.tsql_gate FILE.sql...", file=sys.stderr)
        return 2
    results = check_scripts({path: Path(path).read_text(encoding="utf-8") for path in argv})
    problems = [f for findings in results.values() for f in findings]
    for finding in problems:
        print(finding)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
