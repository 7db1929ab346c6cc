"""The qgen command line: render, check, schema, init, revision, bench, maintain, status, metrics, redrive, dead, job,
worker, dashboard."""

from __future__ import annotations

import argparse
import json
import logging
import os
import sys
from pathlib import Path

from qgen import __version__
from qgen import dialects as dialect_registry
from qgen.render.engine import check_rendering, check_text, output_dir, render_spec, write_rendering, write_text
from qgen.spec.load import SpecInvalid, SpecUnreadable, load_spec


def _dialects_for(spec, requested: str) -> list[str]:
    if requested in (None, "all"):
        return list(spec.dialects)
    if requested not in spec.dialects:
        raise SystemExit(f"qgen: the spec renders for {', '.join(spec.dialects)}, not {requested}")
    return [requested]


def cmd_render(args: argparse.Namespace) -> int:
    from qgen.render.review import page_path, spec_page

    spec_path = Path(args.spec)
    spec = load_spec(spec_path)
    stale = []
    renderings = {dialect: render_spec(spec, spec_path.name, dialect) for dialect in spec.dialects}
    for dialect in _dialects_for(spec, args.dialect):
        rendering = renderings[dialect]
        folder = Path(args.output) / dialect if args.output else output_dir(spec_path, dialect)
        if args.check:
            diffs = check_rendering(rendering, folder)
            stale += diffs
            print(f"{folder}: {'stale, ' + str(len(diffs)) + ' file(s) differ' if diffs else 'up to date'}")
        else:
            changes = write_rendering(rendering, folder)
            print(f"{folder}: {len(rendering.objects)} objects, {len(changes)} file(s) changed")
    # The review page covers every dialect of the spec, whichever one was asked for.
    page, text = page_path(spec_path, args.output), spec_page(spec, spec_path.name, list(renderings.values()))
    if args.check:
        diff = check_text(page, text)
        stale += diff
        print(f"{page}: {'stale' if diff else 'up to date'}")
    elif write_text(page, text):
        print(f"{page}: written")
    if stale:
        sys.stdout.write("\n".join(stale))
        print(f"\nqgen: generated SQL is stale; run: qgen render {args.spec}")
        return 1
    return 0


def cmd_check(args: argparse.Namespace) -> int:
    spec = load_spec(args.spec)
    queues = ", ".join(f"{name} ({q.claim})" for name, q in spec.queues.items())
    print(f"{args.spec}: valid; schema {spec.schema}; queues: {queues}; dialects: {', '.join(spec.dialects)}")
    return 0


def cmd_schema(args: argparse.Namespace) -> int:
    from qgen.spec.json_schema import spec_json_schema

    text = json.dumps(spec_json_schema(), indent=2, sort_keys=True) + "\n"
    if args.output:
        Path(args.output).write_text(text, encoding="utf-8")
    else:
        sys.stdout.write(text)
    return 0


def cmd_init(args: argparse.Namespace) -> int:
    """Scaffold an Alembic environment for qgen revisions, and a starter spec, like `alembic init`."""
    from qgen.cli.scaffold import SPEC_NAME, InitRefused, UnknownExample, example_path, init_project

    folder = Path(args.directory)
    if args.example is not None and args.no_spec:
        print("qgen init: --example writes a spec; --no-spec writes none: give one of them", file=sys.stderr)
        return 2
    try:
        made = init_project(folder, spec=not args.no_spec, example=args.example)
    except UnknownExample as exc:
        print(f"qgen init: nothing written: {exc}", file=sys.stderr)
        return 2
    except InitRefused as exc:
        print(f"qgen init: nothing written: {exc}", file=sys.stderr)
        return 1
    for path in made.written:
        print(f"wrote {path}{'/' if path.is_dir() else ''}")
    where = "" if folder.resolve() == Path.cwd().resolve() else f"cd {folder} && "
    spec = SPEC_NAME if not args.no_spec else "SPEC.yaml"
    if args.example is not None:
        spec = example_path(args.example).name
    print(f"next: {where}qgen revision {spec} -m \"install the queues\", then "
          "QGEN_DATABASE_URL=postgresql+psycopg://USER@HOST:5432/DB alembic upgrade head")
    return 0


def cmd_revision(args: argparse.Namespace) -> int:
    """Write an Alembic revision that installs the spec, or moves the database to it from the
    schema's previous qgen revision (qgen/migrations/ says what that does to tables)."""
    from alembic.util import CommandError

    from qgen.migrations import RevisionRefused
    from qgen.migrations.planner import plan_revision
    from qgen.migrations.writer import write_revision

    try:
        planned = plan_revision(args.spec, args.config, args.dialect, args.allow_drop)
        if args.dry_run:
            sys.stdout.write(planned.page(args.message, dry_run=True))
            return 0
        made = write_revision(planned, args.message)
    except RevisionRefused as exc:
        print("qgen: no revision written:\n" + "\n".join(f"- {p}" for p in exc.problems), file=sys.stderr)
        return 1
    except CommandError as exc:
        print(f"qgen: no revision written: alembic: {exc}", file=sys.stderr)
        return 1
    print(f"{made.path}: revision {made.revision}, SQL in {made.folder}/ (read {made.folder.name}/REVIEW.md first)")
    if made.previous is None:
        print("  first revision of this schema: `alembic downgrade` past it drops every object, tables and jobs included")
    else:
        print(f"  follows revision {made.previous} of the same schema; tables keep their jobs")
    for dialect, plan in made.plans.items():
        print(f"  {dialect}: upgrade runs {len(plan.upgrade)} scripts, downgrade {len(plan.downgrade)}")
    for change in sorted({c for plan in made.plans.values() for c in plan.changes}):
        print(f"  {change}")
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="qgen", description="Render a table-based work queue from a YAML spec.")
    parser.add_argument("--version", action="version", version=f"qgen {__version__}")
    commands = parser.add_subparsers(dest="command", required=True)

    render = commands.add_parser(
        "render", help="render the spec's objects to SQL files",
        description="Render every object of the spec to one SQL file each, plus install.sql and uninstall.sql, "
        "per dialect (default folder: generated/<spec stem>/<dialect>/). The spec is checked first, as qgen check does.")
    render.add_argument("spec", help="the spec file (YAML)")
    render.add_argument("-o", "--output", help="output folder (default: generated/<spec stem>/); one subfolder per dialect")
    render.add_argument("--dialect", choices=dialect_registry.names() + ["all"], default="all",
                        help="render for one database only (default: all of the spec's dialects)")
    render.add_argument("--check", action="store_true", help="write nothing; exit 1 with a diff if the files on disk are stale")
    render.set_defaults(func=cmd_render)

    check = commands.add_parser(
        "check", help="validate the spec only",
        description="Validate the spec and write nothing: every mistake is reported at its file:line:col with "
        "the field's path, what is wrong and what is accepted (exit status 2). That includes every name the SQL "
        "would create, held to each database's identifier limit and to the other names.")
    check.add_argument("spec", help="the spec file (YAML)")
    check.set_defaults(func=cmd_check)

    schema = commands.add_parser(
        "schema", help="print the JSON Schema of the spec (for editors)",
        description="Print the JSON Schema of a qgen spec: every key, what it accepts, its default. Editors check a "
        "spec as it is typed with it (VS Code's YAML extension: a `# yaml-language-server: $schema=...` line).")
    schema.add_argument("-o", "--output", help="write to this file instead of standard output")
    schema.set_defaults(func=cmd_schema)

    init = commands.add_parser(
        "init", help="write an Alembic environment for qgen revisions and a starter spec "
        "(alembic.ini, migrations/, queues.yaml) into a folder; overwrites nothing",
        description="Write into a folder of your project an Alembic environment for qgen's revisions (alembic.ini, "
        "migrations/env.py, migrations/script.py.mako, an empty migrations/versions/) and a starter spec "
        "(queues.yaml), or with --example NAME one of the example specs qgen ships. Nothing is overwritten: "
        "when any of the files exists, nothing is written. Next: qgen revision SPEC -m MESSAGE, then alembic "
        "upgrade head.")
    init.add_argument("directory", nargs="?", default=".", help="where (default: the current folder)")
    init.add_argument("--no-spec", action="store_true", help="the Alembic environment only, without queues.yaml")
    from qgen.cli.scaffold import example_names

    init.add_argument("--example", metavar="NAME", help="write the example spec NAME (NAME.yaml) instead of "
                      f"queues.yaml; one of: {', '.join(example_names())}")
    init.set_defaults(func=cmd_init)

    revision = commands.add_parser(
        "revision", help="write an Alembic revision (migrations/versions/) that installs the spec",
        description="Write an Alembic revision that installs the spec's objects, or, after an earlier qgen revision "
        "of the same schema, moves the database to the changed spec: procedures replaced, columns added, tables "
        "kept with their jobs. A change that would lose or rebuild queued jobs is refused with what to do instead, "
        "and nothing is written. The revision's folder holds the spec and the SQL it runs; `alembic upgrade head` "
        "applies it.")
    revision.add_argument("spec", help="the spec file (YAML)")
    revision.add_argument("-m", "--message", required=True, help="the revision's message, as for alembic revision -m")
    revision.add_argument("--dialect", choices=dialect_registry.names() + ["all"], default="all",
                          help="which databases the revision carries SQL for (default: the spec's dialects)")
    revision.add_argument("--allow-drop", action="append", default=[], metavar="NAME",
                          help="allow dropping a payload column removed from the spec (QUEUE.COLUMN) or a table no "
                          "longer in it (its name); repeatable. The values or rows are lost")
    revision.add_argument("--dry-run", action="store_true",
                          help="write nothing; print what the revision would change (the spec's settings, the objects "
                          "per database, what happens to data), as its REVIEW.md says it")
    revision.add_argument("-c", "--config", default=os.environ.get("ALEMBIC_CONFIG", "alembic.ini"),
                          help="the Alembic configuration (default: $ALEMBIC_CONFIG, else alembic.ini in the current "
                          "folder, as `qgen init` writes it)")
    revision.set_defaults(func=cmd_revision)

    from qgen.bench.command import add_arguments as bench_arguments

    bench_arguments(commands.add_parser(
        "bench", help="install the spec in a scratch schema and measure it under load (or --experiment)",
        description="Install a spec's queue in a scratch schema of a PostgreSQL database (made and marked by the "
        "bench, dropped afterwards unless --keep), run producer and worker processes through the Python client, "
        "and report throughput, claim latency and an exactly-once verdict from a ledger (exit 3 when it fails); "
        "--experiment runs one of the studies instead. SPEC, or --example NAME for a spec qgen ships."))

    from qgen.cli.ops import add_commands as ops_commands

    ops_commands(commands)
    from qgen.cli.lookup import add_commands as lookup_commands  # qgen dead, qgen job (issue 25)

    lookup_commands(commands)
    from qgen.cli.control import add_commands as control_commands  # qgen pause, qgen resume (issue 29)

    control_commands(commands)

    from qgen.cli.worker import add_command as worker_command

    worker_command(commands)
    from qgen.cli.dashboard import add_command as dashboard_command  # issue 30

    dashboard_command(commands)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    # Library code logs (qgen.worker, qgen.client, qgen.maintain); the command shows warnings and worse.
    logging.basicConfig(level=logging.WARNING, format="%(name)s: %(levelname)s: %(message)s")
    try:
        return args.func(args)
    except SpecUnreadable as exc:
        print(f"qgen: {exc}", file=sys.stderr)
        return 2
    except SpecInvalid as exc:
        count = len(exc.errors)
        print(f"{exc}\nqgen: {count} error{'s' if count != 1 else ''} in the spec", file=sys.stderr)
        return 2

