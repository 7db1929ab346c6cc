"""No import circle in qgen/: the modules' imports, module-level and inside functions alike (a function's
import runs when it is called), form a graph without cycles. Imports under `if TYPE_CHECKING:` are
for annotations only and never run. (Issue 18: client, worker and maintenance imported each other, a
module __getattr__ in qgen.client re-exporting run_worker to get around it.)"""

from __future__ import annotations

import ast
from pathlib import Path

from tests.conftest import ROOT

PACKAGE = ROOT / "qgen"


def module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def runtime_imports(path: Path, modules: set[str]) -> set[str]:
    tree = ast.parse(path.read_text())
    skipped: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            skipped |= {id(n) for stmt in node.body for n in ast.walk(stmt)}
    found = set()
    for node in ast.walk(tree):
        if id(node) in skipped:
            continue
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names = [node.module] + [f"{node.module}.{alias.name}" for alias in node.names]
        else:
            continue
        found |= {n for n in names if n in modules}
    return found - {module_name(path)}


def test_qgen_has_no_import_circle():
    paths = sorted(PACKAGE.rglob("*.py"))
    modules = {module_name(p) for p in paths}
    graph = {module_name(p): runtime_imports(p, modules) for p in paths}
    cycles, state = [], {}

    def visit(node: str, stack: list[str]) -> None:
        state[node] = "open"
        for dep in sorted(graph.get(node, ())):
            if state.get(dep) == "open":
                cycles.append(stack[stack.index(dep):] + [dep])
            elif dep not in state:
                visit(dep, stack + [dep])
        state[node] = "done"

    for name in sorted(graph):
        if name not in state:
            visit(name, [name])
    assert not cycles, "import circles: " + "; ".join(" -> ".join(c) for c in cycles)


def test_the_public_names_stay_where_they_were():
    import qgen.client as client
    import qgen.worker as worker

    assert client.run_worker is worker.run_worker and client.WorkerStats is worker.WorkerStats
    for name in client.__all__:
        assert hasattr(client, name), name
    assert not hasattr(client, "__getattr__"), "no module __getattr__ re-export"
