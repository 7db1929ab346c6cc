"""No branch on the dialect's name outside qgen/dialects/: what differs between databases is
a database class's (qgen/dialects/: its class attributes, its methods' overrides and capability
flags), never an `if dialect == "mssql"` in the modules that use them. The scan reads qgen's source:
an equality test of anything named dialect (a name, an attribute, a call's result) or any comparison
with the string "postgres" / "mssql" is a branch on the dialect's name."""

from __future__ import annotations

import ast
from pathlib import Path

from tests.conftest import ROOT

PACKAGE = ROOT / "qgen"
NAMES = {"postgres", "mssql"}


def _names_dialect(node: ast.AST) -> bool:
    if isinstance(node, ast.Name):
        return "dialect" in node.id.lower()
    if isinstance(node, ast.Attribute):
        return "dialect" in node.attr.lower()
    if isinstance(node, ast.Call):
        return _names_dialect(node.func)
    return False


def _is_dialect_name(node: ast.AST) -> bool:
    """The string "postgres" or "mssql", or a tuple, list or set holding one."""
    if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
        return any(_is_dialect_name(e) for e in node.elts)
    return isinstance(node, ast.Constant) and node.value in NAMES


def dialect_branches(source: str) -> list[int]:
    """The lines of source that compare a dialect's name: `dialect == x` / `!=` (whatever x is), and
    any comparison with the string "postgres" or "mssql" (`"postgres" in spec.dialects` too). Asking
    whether a dialect is among those a spec renders for (`d in spec.dialects`) is no branch."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.Compare):
            continue
        sides = [node.left, *node.comparators]
        equality = all(isinstance(op, (ast.Eq, ast.NotEq)) for op in node.ops)
        if (equality and any(_names_dialect(s) for s in sides)) or any(_is_dialect_name(s) for s in sides):
            found.append(node.lineno)
    return found


def outside_dialects() -> list[Path]:
    return [p for p in sorted(PACKAGE.rglob("*.py")) if PACKAGE / "dialects" not in p.parents]


def test_the_scan_finds_a_branch_on_the_dialect():
    assert dialect_branches('if self.dialect == "mssql":\n    pass\n') == [1]
    assert dialect_branches('x = 1 if dialect != "postgres" else 2\n') == [1]
    assert dialect_branches('if "postgres" in dialects_of(spec):\n    pass\n') == [1]
    assert dialect_branches('if connection_dialect() in ("mssql", "sqlite"):\n    pass\n') == [1]
    assert dialect_branches('if dialect in spec.dialects:\n    pass\n') == []
    assert dialect_branches('if driver.has_enqueue_json:\n    pass\n') == []


def test_no_module_outside_qgen_dialects_branches_on_the_dialect():
    found = {str(p.relative_to(ROOT)): lines for p in outside_dialects() if (lines := dialect_branches(p.read_text()))}
    # The benchmark harness (qgen/bench) picks each database's own bench SQL and tools: it is a
    # test bench, not the product, and keeps its branches (the rule covers qgen's product modules).
    allowed = {k for k in found if k.startswith("qgen/bench/")}
    assert {k: v for k, v in found.items() if k not in allowed} == {}, \
        "a branch on the dialect's name outside qgen/dialects/: make it a class attribute or a method override of the database's class"
