"""Give every variable the templates declare a name no spec name can have.

A spec name matches [A-Za-z_][A-Za-z0-9_]* (qgen/spec/model.py), so a name holding `$` can never be a
payload column, a job-type column or a parameter. This script renames, mechanically:

- PostgreSQL (templates/postgres): every PL/pgSQL variable declared in a DECLARE section,
  v_name -> v$name (any other name -> v$name). With `#variable_conflict use_column` a column of the
  same name as a variable is read in its place; no column can be called v$name.
- SQL Server (templates/mssql): every local variable declared with DECLARE (table variables too,
  and the one a macro declares from its parameter's default, `name="@claimed"`), @name -> @q$name;
  a local named after a spec column, @{{ expr }}, -> @q$c${{ expr }}. A local may not share a name
  with a parameter (a payload column), and none can hold `$`. In an EXEC's argument list the
  `@name =` before each value is the callee's parameter: it keeps its name.

Parameters, result columns and columns are public names: they are never touched. The rename is
idempotent (a name holding `$` is never collected again): run it after any template change,

    python scripts/rename_internal_names.py          # rewrite the templates, print the rename map
    python scripts/rename_internal_names.py --check  # exit 1 if a template still declares an old name

and commit its output on its own. It never creates the dollar-quote tag $qgen$ (it checks).
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
NAME = r"[A-Za-z_][A-Za-z0-9_]*"
JINJA_TAG = re.compile(r"\{\{.*?\}\}|\{%.*?%\}|\{#.*?#\}", re.S)
DOLLAR_TAG = "$qgen$"


# ---------------------------------------------------------------------------------------------
# PostgreSQL


def postgres_declared(text: str) -> list[str]:
    """Names declared in the DECLARE sections (from a DECLARE line to the BEGIN line)."""
    names, inside, statement_start = [], False, True
    for line in text.splitlines():
        stripped = line.strip()
        if not inside:
            if stripped == "DECLARE":
                inside, statement_start = True, True
            continue
        if re.match(r"BEGIN\b", stripped):
            inside = False
            continue
        if not stripped or stripped.startswith(("{%", "{#", "--")):
            continue
        # A name already renamed (v$name) is not collected again: its "v" alone would rename every
        # other bare v in the templates (psql's -v flag, relkind 'v').
        if statement_start and (match := re.match(NAME + r"(?![$\w])", stripped)):
            names.append(match.group(0))
        statement_start = JINJA_TAG.sub("", stripped.split("--")[0]).rstrip().endswith(";")
    return names


def postgres_new_name(name: str) -> str:
    return "v$" + (name[2:] if name.startswith("v_") else name)


# ---------------------------------------------------------------------------------------------
# SQL Server


def _skip_jinja(text: str, i: int) -> int:
    """If a Jinja tag starts at i, the index just after it; else i."""
    match = JINJA_TAG.match(text, i)
    return match.end() if match else i


def _variable_at(text: str, i: int) -> str | None:
    """The variable written at i: @name, or @{{ expr }} (a local named after a spec column)."""
    match = re.compile(r"@(?:" + NAME + r"|\{\{.*?\}\})").match(text, i)
    return match.group(0) if match and "$" not in match.group(0) else None


def _statement_end(text: str, i: int) -> int:
    """The index of the `;` that ends the statement starting at i (parentheses and Jinja skipped)."""
    depth = 0
    while i < len(text):
        j = _skip_jinja(text, i)
        if j != i:
            i = j
            continue
        c = text[i]
        if text.startswith("--", i):  # a comment may hold an apostrophe: skip to its line's end
            newline = text.find("\n", i)
            i = len(text) if newline < 0 else newline
            continue
        if c == "'":
            i = text.index("'", i + 1) + 1
            continue
        if c == "(":
            depth += 1
        elif c == ")":
            depth -= 1
        elif c == ";" and depth == 0:
            return i
        i += 1
    return len(text)


def _top_level_commas(text: str, start: int, end: int) -> list[int]:
    """Positions just after each comma at parenthesis depth 0 in text[start:end] (Jinja skipped)."""
    found, depth, i = [], 0, start
    while i < end:
        j = _skip_jinja(text, i)
        if j != i:
            i = j
            continue
        c = text[i]
        if c == "(":
            depth += 1
        elif c == ")":
            depth -= 1
        elif c == "," and depth == 0:
            found.append(i + 1)
        i += 1
    return found


def _macro_default(text: str, pos: int, param: str) -> str | None:
    """The default of `param` in the signature of the macro that encloses pos."""
    macros = list(re.finditer(r"\{%-?\s*macro\s+\w+\((.*?)\)\s*-?%\}", text[:pos], re.S))
    if not macros:
        return None
    match = re.search(re.escape(param) + r"""\s*=\s*["'](@\w+)["']""", macros[-1].group(1))
    return match.group(1) if match else None


def mssql_declared(text: str) -> list[str]:
    """Variables declared by each DECLARE statement: its first variable and one after each top-level comma."""
    names = []
    for match in re.finditer(r"\bDECLARE\s+", text):
        end = _statement_end(text, match.end())
        for start in [match.end()] + _top_level_commas(text, match.end(), end):
            i = start
            while i < end and text[i].isspace():
                i += 1
            variable = _variable_at(text, i)
            if variable is None and (jinja := re.match(r"\{\{\s*(\w+)\s*\}\}", text[i:end])):
                variable = _macro_default(text, i, jinja.group(1))  # DECLARE {{ name }} TABLE, name="@claimed"
            if variable is not None:
                names.append(variable)
    return names


def mssql_new_name(variable: str) -> str:
    return "@q$c$" + variable[1:] if variable.startswith("@{{") else "@q$" + variable[1:]


def _exec_parameter_positions(text: str) -> set[int]:
    """Where a callee's parameter name is written: `@name =` in an EXEC's argument list."""
    kept = set()
    for match in re.finditer(r"\bEXEC\s+", text):
        end = _statement_end(text, match.end())
        for found in re.finditer(r"@(?:\w+|\{\{.*?\}\})(?=\s*=(?!=))", text[match.end():end]):
            if found.start() > 0:  # the first token would be EXEC @return_status = ...
                kept.add(match.end() + found.start())
    return kept


# ---------------------------------------------------------------------------------------------
# Renaming


def _pattern(old: str) -> re.Pattern:
    """old as a whole name: not inside a longer name (a $ counts as part of a name)."""
    right = r"(?![A-Za-z0-9_$])" if re.match(r"\w", old[-1]) else ""  # @{{ expr }} ends in a brace
    return re.compile(r"(?<![A-Za-z0-9_$@])" + re.escape(old) + right)


def rename(text: str, mapping: dict[str, str], kept: set[int] = frozenset()) -> str:
    if not mapping:
        return text
    pattern = re.compile("|".join(_pattern(old).pattern for old in sorted(mapping, key=len, reverse=True)))
    return pattern.sub(lambda m: m.group(0) if m.start() in kept else mapping[m.group(0)], text)


def _parameters(text: str) -> set[str]:
    """The T-SQL parameters a template declares: `@name type` in a procedure's header (between
    CREATE ... PROCEDURE and AS), or in a Jinja string that builds the header ("@name type ...")."""
    found = set(re.findall(r'"(@' + NAME + r') ', text))
    for header in re.findall(r"CREATE OR ALTER PROCEDURE[^\n]*\n(.*?)^AS$", text, re.S | re.M):
        found |= set(re.findall(r"^\s+(@" + NAME + r")\s", header, re.M))
    return found


def plan(folder: Path, declared, new_name) -> dict[Path, dict[str, str]]:
    """Per template, the names to rename there: those it declares and those the macro file declares,
    less the parameters it declares (a macro's local may share a name with another procedure's
    parameter, which is public); the macro file itself renames every declared name (its macros run
    inside every procedure)."""
    files = sorted(p for p in folder.rglob("*.j2"))
    texts = {p: p.read_text(encoding="utf-8") for p in files}
    own = {p: dict.fromkeys(declared(texts[p])) for p in files}
    macros = {name for p in files if p.name == "macros.sql.j2" for name in own[p]}
    everything = {name for names in own.values() for name in names}
    return {p: {n: new_name(n) for n in sorted(everything if p.name == "macros.sql.j2"
                                                else (set(own[p]) | macros) - _parameters(texts[p]))}
            for p in files}


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="change nothing; exit 1 if a rename is due")
    args = parser.parse_args(argv)
    dialects = [
        ("postgres", postgres_declared, postgres_new_name, lambda text: set()),
        ("mssql", mssql_declared, mssql_new_name, _exec_parameter_positions),
    ]
    due = False
    for dialect, declared, new_name, kept in dialects:
        folder = ROOT / "templates" / dialect
        shown: dict[str, str] = {}
        for path, mapping in plan(folder, declared, new_name).items():
            text = path.read_text(encoding="utf-8")
            renamed = rename(text, mapping, kept(text))
            if renamed.count(DOLLAR_TAG) != text.count(DOLLAR_TAG):
                raise SystemExit(f"{path}: renaming would change the {DOLLAR_TAG} quote tags; choose another scheme")
            if renamed != text:
                due = True
                shown.update({old: new for old, new in mapping.items() if _pattern(old).search(text)})
                if not args.check:
                    path.write_text(renamed, encoding="utf-8")
        for old, new in sorted(shown.items()):
            print(f"{dialect}: {old} -> {new}")
    if args.check and due:
        print("templates declare variables a spec name could collide with: run scripts/rename_internal_names.py",
              file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
