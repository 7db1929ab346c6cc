"""Dialect macros of one name take the same parameters: `m.name(...)` dispatches to `<dialect>__name`,
else `default__name` (qgen/render/engine.py's MacroDispatch), so a call reads the same whichever database it
renders for only when every definition of the name has the same parameter list (names, in order;
defaults may differ). Macros that do different things on different databases have different names."""

from __future__ import annotations

import jinja2
from jinja2 import nodes

from tests.conftest import ROOT

TEMPLATES = ROOT / "templates"


def macro_parameters(source: str) -> dict[str, tuple[str, ...]]:
    """{macro name: its parameter names, in order} of the top-level macros of a template."""
    tree = jinja2.Environment().parse(source)
    return {macro.name: tuple(arg.name for arg in macro.args) for macro in tree.find_all(nodes.Macro)}


def dispatched() -> dict[str, dict[str, tuple[str, ...]]]:
    """{name m. dispatches on: {prefix (a dialect, or default): its parameters}} over every macros file."""
    found: dict[str, dict[str, tuple[str, ...]]] = {}
    for path in sorted(TEMPLATES.glob("*/macros.sql.j2")):
        prefix = path.parent.name
        for macro, parameters in macro_parameters(path.read_text(encoding="utf-8")).items():
            if macro.startswith(f"{prefix}__"):
                found.setdefault(macro[len(prefix) + 2:], {})[prefix] = parameters
    return found


def differing(found: dict[str, dict[str, tuple[str, ...]]]) -> dict[str, dict[str, tuple[str, ...]]]:
    return {name: by_prefix for name, by_prefix in sorted(found.items()) if len(set(by_prefix.values())) > 1}


def test_the_scan_reads_each_macros_parameters():
    source = ("{% macro mssql__claim(q, top, by_job_type=false) -%}x{%- endmacro %}\n"
              "{% macro mssql__other() %}{% endmacro %}")
    assert macro_parameters(source) == {"mssql__claim": ("q", "top", "by_job_type"), "mssql__other": ()}
    assert differing({"claim": {"mssql": ("q", "top"), "postgres": ("q", "fn")}, "quote": {"mssql": ("n",), "default": ("n",)}}) \
        == {"claim": {"mssql": ("q", "top"), "postgres": ("q", "fn")}}
    found = dispatched()
    assert {"mssql", "postgres", "default"} <= {prefix for by_prefix in found.values() for prefix in by_prefix}
    assert sum(len(by_prefix) > 1 for by_prefix in found.values()) >= 10


def test_macros_of_one_name_take_the_same_parameters():
    assert differing(dispatched()) == {}, (
        "macros m. dispatches on with the same name but other parameters: give them one parameter list, "
        "or names that say what each does")
