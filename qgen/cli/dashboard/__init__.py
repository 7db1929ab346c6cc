"""`qgen dashboard SPEC --url URL`: a web page of the spec's queues (issue 30; docs/operations.md,
"Dashboard"). Its arguments are declared here (registered in qgen/cli/__init__.py); the application
(app.py), its sampler (sampler.py), its guard (guard.py) and its charts (charts.py) are imported only when
it runs, so the command line works without the dashboard extra (starlette, uvicorn)."""

from __future__ import annotations

import argparse
import os
import sys
from typing import Any, Optional

from qgen.cli.dburl import URL_ENV, shown

DEFAULT_PORT = 8765
NEEDS = "qgen dashboard needs starlette and uvicorn: pip install 'qgen-queues[dashboard]'"


def _usage(message: str) -> int:
    print(f"qgen dashboard: {message}", file=sys.stderr)
    return 2


def token_of(args: argparse.Namespace) -> tuple[Optional[str], Optional[str]]:
    """(the token, None) or (None, why the arguments are refused). A host other than the loopback
    needs --auth-env; the variable it names must hold a token."""
    from qgen.cli.dashboard.guard import LOOPBACK

    if args.auth_env is None:
        if args.host not in LOOPBACK:
            return None, (f"--host {args.host} would let other machines read the queues: give --auth-env VAR too, "
                          "VAR being an environment variable that holds the token (Bearer, or the basic-auth "
                          "password); the token never goes on the command line")
        return None, None
    token = os.environ.get(args.auth_env, "")
    if not token.strip():
        return None, f"--auth-env {args.auth_env}: the environment variable {args.auth_env} is not set or empty"
    return token.strip(), None


def cmd_dashboard(args: argparse.Namespace) -> int:
    if not 1 <= args.port <= 65535:
        return _usage(f"--port {args.port}: accepted: 1 to 65535")
    token, refusal = token_of(args)
    if refusal:
        return _usage(refusal)
    try:
        import uvicorn

        from qgen.cli.dashboard.app import build_app
    except ImportError:
        print(NEEDS, file=sys.stderr)
        return 1
    board = make_dashboard(args, token)
    if board is None:
        return 2
    print(f"qgen dashboard: serving http://{args.host}:{args.port}/ for {board.spec.schema} "
          f"({', '.join(board.spec.queues)}) from {shown(board.read_url)}"
          f"{'' if board.allow_actions else ', read-only'}{', token required' if token else ''}", flush=True)
    board.sampler.start()
    try:
        config = uvicorn.Config(build_app(board), host=args.host, port=args.port, log_level="warning",
                                access_log=False, server_header=False)
        server = uvicorn.Server(config)
        try:
            server.run()
        except SystemExit:  # uvicorn's answer to a port it cannot bind, after logging why
            server.started = False
        if not server.started:
            print(f"qgen dashboard: cannot listen on {args.host}:{args.port}", file=sys.stderr)
            return 1
    finally:
        board.sampler.stop()
    return 0


def make_dashboard(args: argparse.Namespace, token: Optional[str]) -> Any:
    """The Dashboard the arguments describe (spec loaded, sampler made, not started), or None after
    saying what is wrong with them."""
    import logging

    from qgen.cli.dashboard.app import Dashboard
    from qgen.cli.dashboard.guard import Guard
    from qgen.cli.dashboard.sampler import Sampler
    from qgen.spec.load import load_spec

    url = args.url or os.environ.get(URL_ENV)
    if not url:
        _usage(f"no database: pass --url (e.g. postgresql://USER@HOST:5432/DB) or set {URL_ENV}")
        return None
    spec = load_spec(args.spec)
    logging.getLogger("qgen.dashboard").setLevel(logging.INFO)
    read_url = args.read_url or url
    return Dashboard(spec=spec, spec_name=os.path.basename(args.spec), url=url, read_url=read_url,
                     sampler=Sampler(spec, read_url, args.refresh), guard=Guard(args.host, args.port, token),
                     refresh=args.refresh, allow_actions=args.allow_actions)


def add_command(commands: Any) -> None:
    from qgen.cli.ops import _seconds

    dashboard = commands.add_parser(
        "dashboard", help="serve a web page of the spec's queues: counts, oldest job, dead letters, next jobs",
        description="Serve a web page per spec and per queue: ready, scheduled, in flight, expired, dead and "
        "finished counts, the oldest ready job's age, backlog and throughput over the last hour, the dead letters "
        "with their last error and the next jobs. One sampler reads the queues' own procedures (metrics, "
        "dead_letters, peek: the admin role) every --refresh, under a short statement and lock timeout, however many "
        "browsers are open. Binds 127.0.0.1 unless told otherwise; any other host needs --auth-env. Read-only "
        "unless --allow-actions. Runs until Ctrl-C or SIGTERM. Needs the dashboard extra (qgen-queues[dashboard]).")
    dashboard.add_argument("spec", help="the spec file (YAML)")
    dashboard.add_argument("--url", help=f"the database (default: ${URL_ENV}), e.g. postgresql://USER@HOST:5432/DB or "
                           "mssql+pyodbc://USER:PASS@HOST:1433/DB?driver=FreeTDS&TDS_Version=7.4; actions write here")
    dashboard.add_argument("--read-url", help="a database to read the numbers from instead (a read replica); "
                           "actions still go to --url")
    dashboard.add_argument("--host", default="127.0.0.1",
                           help="the address to listen on (default 127.0.0.1; any other needs --auth-env)")
    dashboard.add_argument("--port", type=int, default=DEFAULT_PORT, help=f"the TCP port (default {DEFAULT_PORT})")
    dashboard.add_argument("--refresh", type=_seconds, default=5.0, metavar="DURATION",
                           help="how often the sampler reads the queues and the page refreshes (default 5s)")
    dashboard.add_argument("--auth-env", metavar="VAR",
                           help="the name of an environment variable holding a token: every request then needs "
                           "'Authorization: Bearer TOKEN' or basic auth with TOKEN as the password")
    dashboard.add_argument("--allow-actions", action="store_true",
                           help="add a redrive button to each dead letter (a POST form with a CSRF token, each action "
                           "logged with who did it); read-only without it")
    dashboard.set_defaults(func=cmd_dashboard)
