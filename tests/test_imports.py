"""No import circle in qgen/: the modules' imports form a graph without cycles, counting every import:
module-level ones, those inside functions (a function's import runs when it is called), relative ones,
and those under `if TYPE_CHECKING:`. An annotation-only import never runs, but a circle through one is
still two modules that cannot be read, changed or moved apart (the client's four classes,
its drivers and the worker loop imported each other that way, fifteen modules in one circle)."""

from __future__ import annotations

import ast
from pathlib import Path

from tests.conftest import ROOT

PACKAGE = ROOT / "qgen"


def module_name(path: Path, root: Path = ROOT) -> str:
    parts = path.relative_to(root).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imported(path: Path, modules: set[str], root: Path = ROOT) -> set[str]:
    """The modules of `modules` that the module at `path` imports, wherever and however it does."""
    name = module_name(path, root)
    package = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:  # relative: from the package, up level - 1 packages
                base = ".".join(package[:len(package) - node.level + 1] + ([base] if base else []))
            names = [base] + [f"{base}.{alias.name}" for alias in node.names]
        else:
            continue
        found |= {n for n in names if n in modules}
    return found - {name}


def circles(package: Path, root: Path = ROOT) -> list[list[str]]:
    """Each import circle among the modules under `package`, as the modules around it."""
    paths = sorted(package.rglob("*.py"))
    modules = {module_name(p, root) for p in paths}
    graph = {module_name(p, root): imported(p, modules, root) for p in paths}
    found: list[list[str]] = []
    state: dict[str, str] = {}

    def visit(node: str, stack: list[str]) -> None:
        state[node] = "open"
        for dep in sorted(graph.get(node, ())):
            if state.get(dep) == "open":
                found.append(stack[stack.index(dep):] + [dep])
            elif dep not in state:
                visit(dep, stack + [dep])
        state[node] = "done"

    for name in sorted(graph):
        if name not in state:
            visit(name, [name])
    return found


def test_qgen_has_no_import_circle():
    found = circles(PACKAGE)
    assert not found, "import circles: " + "; ".join(" -> ".join(c) for c in found)


def test_a_circle_through_annotations_or_relative_imports_is_found(tmp_path):
    """The check itself: a circle closed only by an import under `if TYPE_CHECKING:`, or only by a
    relative import, is a circle."""
    pkg = tmp_path / "pkg"
    (pkg / "sub").mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "sub" / "__init__.py").write_text("")
    (pkg / "a.py").write_text("from pkg.b import B\n")
    (pkg / "b.py").write_text("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from pkg.a import A\n")
    (pkg / "sub" / "c.py").write_text("from ..d import D\n")
    (pkg / "d.py").write_text("def f():\n    from pkg.sub.c import C\n")
    assert circles(pkg, tmp_path) == [["pkg.a", "pkg.b", "pkg.a"], ["pkg.d", "pkg.sub.c", "pkg.d"]]


def test_the_public_names_stay_where_they_were():
    import qgen.client as client
    import qgen.client.worker as worker

    assert client.run_worker is worker.run_worker and client.WorkerStats is worker.WorkerStats
    for name in client.__all__:
        assert hasattr(client, name), name
    assert not hasattr(client, "__getattr__"), "no module __getattr__ re-export"


def test_import_paths_users_files_hold_still_import():
    """Files outside qgen import these paths: revision modules (qgen.migrate), the migrations/env.py
    that `qgen init` wrote (qgen.connection), README examples of earlier versions (qgen.specload,
    qgen.worker), code that named the result types by their first home (qgen.results). Each still gives the names those files use, the same objects as their new homes."""
    import qgen.client.connection
    import qgen.client.worker
    import qgen.spec.load
    from qgen.connection import dialect_of_target, mssql_connection_string
    from qgen.migrate import qgen_schemas, run_revision
    from qgen.specload import SpecInvalid, load_spec, load_spec_text
    from qgen.worker import NO_RESULT, WorkerStats, run_worker
    import qgen.client.results
    import qgen.results

    assert dialect_of_target is qgen.client.connection.dialect_of_target
    assert mssql_connection_string is qgen.client.connection.mssql_connection_string
    assert (load_spec, load_spec_text, SpecInvalid) == (qgen.spec.load.load_spec, qgen.spec.load.load_spec_text,
                                                        qgen.spec.load.SpecInvalid)
    assert (run_worker, WorkerStats, NO_RESULT) == (qgen.client.worker.run_worker, qgen.client.worker.WorkerStats,
                                                    qgen.client.worker.NO_RESULT)
    assert callable(run_revision) and callable(qgen_schemas)
    for name in qgen.results.__all__:   # pickled results and type annotations name these
        assert getattr(qgen.results, name) is getattr(qgen.client.results, name), name
    assert set(qgen.results.__all__) <= set(qgen.client.results.__all__)
    import qgen.dialects.urls
    from qgen.urls import database_of   # env.py as `qgen init` wrote it between two moves
    from qgen.dialects import client_driver

    assert database_of is qgen.dialects.urls.database_of
    assert client_driver("postgres")().sqlalchemy_url("postgresql://h/d") == "postgresql+psycopg://h/d"
