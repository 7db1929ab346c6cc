"""The README and the docs/ pages stay true to the code:
- docs/spec.md documents every spec key: its table is generated from the spec model and must be current;
- docs/api.md's procedure reference is generated from the contract (qgen/spec/contract.py) and must be current;
- docs/spec.md names every example;
- every `qgen ...` command shown in a shell block of the README or a docs/ page is one the command line
  accepts (subcommand, options, choices), parsed by qgen's own argument parser;
- every docs/ page the README or a page links to exists.
The README's user commands are run, from a wheel installed into a fresh venv, by tests/test_init.py."""

from __future__ import annotations

import re
import shlex

import pytest

from qgen.cli import build_parser
from qgen.spec.contract import reference_markdown
from qgen.spec.json_schema import spec_reference_markdown
from tests.conftest import ROOT

PAGES = [ROOT / "README.md"] + sorted((ROOT / "docs").glob("*.md"))


def test_spec_key_reference_is_current():
    page = (ROOT / "docs" / "spec.md").read_text()
    start = page.index("<!-- spec-reference")
    start = page.index("\n", start) + 1
    end = page.index("<!-- /spec-reference -->")
    assert page[start:end] == spec_reference_markdown(), \
        "regenerate the key table in docs/spec.md from qgen.spec.json_schema.spec_reference_markdown()"


def test_procedure_reference_is_current():
    page = (ROOT / "docs" / "api.md").read_text()
    start = page.index("<!-- procedure-reference")
    start = page.index("\n", start) + 1
    end = page.index("<!-- /procedure-reference -->")
    assert page[start:end] == reference_markdown(), \
        "regenerate the procedure reference in docs/api.md from qgen.spec.contract.reference_markdown()"


def test_spec_page_names_every_example():
    page = (ROOT / "docs" / "spec.md").read_text()
    for spec in sorted((ROOT / "examples").glob("*.yaml")):
        assert f"`{spec.name}`" in page


def shell_commands() -> list[tuple[str, str]]:
    """(page, command line) for each `qgen` command in the pages' sh blocks (continuations joined)."""
    found = []
    for page in PAGES:
        for block in re.findall(r"```sh\n(.*?)```", page.read_text(), re.S):
            for line in block.replace("\\\n", " ").splitlines():
                for part in re.split(r"&&|;", line.split("  #", 1)[0]):
                    words = shlex.split(part.strip()) if part.strip() else []
                    if words and words[0].endswith("bin/qgen") or words[:1] == ["qgen"]:
                        found.append((page.name, part.strip()))
    return found


def test_the_pages_show_qgen_commands():
    pages = {page for page, _ in shell_commands()}
    assert {"README.md", "benchmarks.md"} <= pages, pages


def inline_commands() -> list[tuple[str, str, str]]:
    """(page, subcommand, rest) for each `qgen SUBCOMMAND ...` written inline (synopses such as
    `qgen status SPEC --url URL [--queue Q]`)."""
    return [(page.name, sub, rest) for page in PAGES
            for sub, rest in re.findall(r"`(?:\.venv/bin/)?qgen ([a-z]+)([^`]*)`", page.read_text())]


def test_every_inline_command_and_option_exists():
    import argparse

    parser = build_parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    assert len(inline_commands()) > 20
    wrong = []
    for page, command, rest in inline_commands():
        if command not in sub.choices:
            wrong.append(f"{page}: qgen {command}: no such command")
            continue
        known = {o for action in sub.choices[command]._actions for o in action.option_strings}
        wrong += [f"{page}: qgen {command} {option}: no such option" for option in re.findall(r"(?<![\w-])--[a-z][a-z-]*", rest)
                  if option not in known]
    assert not wrong, wrong


@pytest.mark.parametrize("page, command", shell_commands(), ids=lambda v: v if "/" not in v and " " not in v else None)
def test_every_qgen_command_shown_is_accepted(page, command):
    args = shlex.split(command)[1:]
    try:
        build_parser().parse_args(args)
    except SystemExit as exc:
        pytest.fail(f"{page}: `{command}` is not accepted by qgen's parser (exit {exc.code})")


def test_links_to_docs_pages_resolve():
    for page in PAGES:
        for target in re.findall(r"\]\(((?:docs/)?[a-z_]+\.md)(?:#[^)]*)?\)", page.read_text()):
            base = ROOT if page.name == "README.md" else ROOT / "docs"
            assert (base / target).is_file(), f"{page.name} links to {target}, which does not exist"


def test_roles_are_described_as_sql_servers_database_roles_and_postgresqls_cluster_roles():
    """The docs called the roles server-wide; on SQL Server CREATE ROLE makes a role
    of one database (PostgreSQL's roles do belong to the cluster)."""
    from qgen.render.engine import render_spec
    from qgen.spec.load import load_spec

    spec_path = ROOT / "examples" / "000_flag_worker.yaml"
    headers = {d: render_spec(load_spec(spec_path), spec_path.name, d).files()["01_roles.sql"].splitlines()[0]
               for d in ("mssql", "postgres")}
    assert "(database roles)" in headers["mssql"] and "(cluster-wide)" in headers["postgres"], headers
    for page in PAGES + [ROOT / "qgen" / "project" / "queues.yaml"]:
        text = " ".join(page.read_text().split())
        assert "server-wide" not in text and "belong to the whole server" not in text, page
