"""qgen dashboard's web application (Starlette): a page for the spec, one per queue, their stylesheet
and live-refresh script, and (with --allow-actions) the actions of qgen/cli/dashboard/actions.py. Pages render from the sampler's
last round (sampler.py) and never touch the database; every value is escaped by Jinja's autoescape.
Every request passes the guard (guard.py) first: Host header, then authentication; every answer
carries its security headers."""

from __future__ import annotations

import datetime as dt
import json
import re
import logging
import time
import urllib.parse
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Awaitable, Callable, MutableMapping, Optional

import jinja2
from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import PlainTextResponse, RedirectResponse, Response
from starlette.routing import Route

from qgen.cli.dashboard.charts import queue_charts
from qgen.cli.dashboard.guard import HEADERS, Guard, same_origin
from qgen.cli.dashboard.actions import ACTIONS, act
from qgen.cli.dashboard.sampler import Sampler
from qgen.dialects.client import json_default
from qgen.dialects.urls import redacted
from qgen.spec.catalog import has_dead_letters
from qgen.spec.model import Spec

HERE = Path(__file__).parent
STATIC = {"dashboard.css": "text/css; charset=utf-8", "refresh.js": "text/javascript; charset=utf-8"}
FORM_LIMIT = 4096  # bytes an action's form may hold
log = logging.getLogger("qgen.dashboard")


@dataclass
class Dashboard:
    spec: Spec
    spec_name: str
    url: str                    # the database actions write to
    read_url: str               # the database the sampler reads (--read-url, else url)
    sampler: Sampler
    guard: Guard
    refresh: float
    allow_actions: bool = False


def _environment() -> jinja2.Environment:
    env = jinja2.Environment(loader=jinja2.FileSystemLoader(str(HERE / "templates")), autoescape=True,
                             undefined=jinja2.StrictUndefined, trim_blocks=True, lstrip_blocks=True)
    env.filters["payload"] = lambda value: json.dumps(value, default=json_default, sort_keys=True)
    env.filters["age"] = _age
    env.filters["count"] = lambda value: "—" if value is None else f"{int(value):,}"
    env.filters["when"] = lambda value: "—" if value is None else value.strftime("%Y-%m-%d %H:%M:%S %Z")
    env.filters["cell"] = _cell
    return env


def _cell(value: Any) -> str:
    """A peeked job's value as the page shows it."""
    if value is None:
        return "—"
    if isinstance(value, dt.datetime):
        return value.strftime("%Y-%m-%d %H:%M:%S %Z")
    if isinstance(value, (dict, list)):
        return json.dumps(value, default=json_default, sort_keys=True)
    return str(value)


def _age(seconds: Any) -> str:
    if seconds is None:
        return "—"
    seconds = float(seconds)
    for unit, size in (("d", 86400), ("h", 3600), ("min", 60)):
        if seconds >= size:
            return f"{seconds / size:.1f} {unit}"
    return f"{seconds:.0f} s"


def finished(metrics: Optional[dict[str, Any]]) -> Optional[int]:
    """processed + archived: the finished jobs the queue still holds (None when it keeps none)."""
    if metrics is None:
        return None
    parts = [metrics.get("processed"), metrics.get("archived")]
    return None if all(p is None for p in parts) else sum(int(p) for p in parts if p is not None)


def build_app(board: Dashboard) -> Starlette:
    env = _environment()

    def page(name: str, request: Request, **values: Any) -> Response:
        snapshot = board.sampler.snapshot()
        html = env.get_template(name).render(
            spec=board.spec, spec_name=board.spec_name, snapshot=snapshot, database=redacted(board.read_url),
            refresh=board.refresh, finished=finished, notice=board.guard.signed(request.query_params.get("notice"), request.query_params.get("sig")), **values)
        return Response(html, media_type="text/html; charset=utf-8")

    async def spec_page(request: Request) -> Response:
        return page("spec.html", request)

    async def queue_page(request: Request) -> Response:
        queue = request.path_params["queue"]
        if queue not in board.spec.queues:
            return PlainTextResponse(f"no queue {queue!r} in this spec", status_code=404)
        snapshot = board.sampler.snapshot()
        return page("queue.html", request, queue=queue, sample=snapshot.queues[queue],
                    charts=queue_charts(snapshot.history[queue], time.time()),
                    dead_letter_table=has_dead_letters(board.spec.queues[queue]),
                    actions=board.allow_actions,
                    csrf={name: board.guard.csrf_token(f"{name}:{queue}") for name in ACTIONS})

    async def static(request: Request) -> Response:
        name = request.path_params["name"]
        if name not in STATIC:
            return PlainTextResponse("not found", status_code=404)
        return Response((HERE / "static" / name).read_bytes(), media_type=STATIC[name])

    async def action(request: Request) -> Response:
        return await _act(board, request)

    routes = [Route("/", spec_page), Route("/queues/{queue}", queue_page), Route("/static/{name}", static),
              Route("/queues/{queue}/{action}", action, methods=["POST"])]
    app = Starlette(routes=routes)
    app.add_middleware(_GuardMiddleware, board=board)  # type: ignore[arg-type]
    return app


def refused(message: str, status: int = 403) -> Response:
    return PlainTextResponse(message + "\n", status_code=status)


async def _act(board: Dashboard, request: Request) -> Response:
    """One action's POST (qgen/cli/dashboard/actions.py): refused unless the dashboard allows actions,
    the queue has it, the request comes from this dashboard's page with its CSRF token for this action
    and queue, and a job id (where it takes one) is one; logged with who did it."""
    queue, name = request.path_params["queue"], request.path_params["action"]
    who = request.state.user
    if not board.allow_actions:
        return refused("refused: this dashboard is read-only (started without --allow-actions)")
    found = ACTIONS.get(name)
    if found is None:
        return refused(f"refused: no action {name!r}; accepted: {', '.join(ACTIONS)}", 404)
    if queue not in board.spec.queues or not found.offered(board.spec.queues[queue]):
        return refused(f"refused: no queue {queue!r} with {name} in this spec")
    if not same_origin(request.headers, f"{request.url.scheme}://{request.headers.get('host', '')}"):
        return refused("refused: the request does not come from this dashboard's page (Origin/Referer)")
    body = await request.body()
    if len(body) > FORM_LIMIT:
        return refused("refused: form too large", 413)
    form = urllib.parse.parse_qs(body.decode("utf-8", "replace"))
    if not board.guard.csrf_valid(f"{name}:{queue}", next(iter(form.get("csrf", [])), None)):
        return refused("refused: missing or invalid CSRF token; reload the page and try again")
    job_id: Optional[int] = None
    if found.takes_id:
        raw = (form.get("id") or [""])[0]
        if not re.fullmatch(r"[0-9]{1,19}", raw) or not 1 <= int(raw) < 2**63:
            return refused(f"refused: id {raw!r} is not a job id", 400)
        job_id = int(raw)
    what = f"{name} of {board.spec.schema}.{queue}" + (f" job {job_id}" if job_id is not None else "")
    try:
        notice = await run_in_threadpool(act, board.spec, board.url, queue, name, job_id)
    except Exception as exc:  # a driver error: said, not a traceback
        log.warning("%s by %s failed: %s", what, who, redacted(str(exc)))
        return refused(f"{name} failed: {redacted(' '.join(str(exc).split()))}", 503)
    log.warning("%s by %s: %s", what, who, notice)
    notice = f"job {job_id}: {notice}" if job_id is not None else notice
    return RedirectResponse(f"/queues/{urllib.parse.quote(queue)}?{urllib.parse.urlencode({'notice': notice, 'sig': board.guard.sign(notice)})}",
                            status_code=303)


class _GuardMiddleware:
    """Host, then authentication, for every request; the security headers on every answer."""

    def __init__(self, app: Callable[..., Awaitable[None]], board: Dashboard):
        self.app, self.board = app, board

    async def __call__(self, scope: MutableMapping[str, Any], receive: Callable, send: Callable) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def secured(message: MutableMapping[str, Any]) -> None:
            if message["type"] == "http.response.start":
                message.setdefault("headers", [])
                message["headers"] = list(message["headers"]) + [
                    (k.lower().encode(), v.encode()) for k, v in HEADERS.items()]
            await send(message)

        request = Request(scope)
        guard = self.board.guard
        if not guard.host_allowed(request.headers.get("host")):
            await refused("refused: the Host header does not name this dashboard", 421)(scope, receive, secured)
            return
        user = guard.user(request.headers.get("authorization"), request.client.host if request.client else "?")
        if user is None:
            answer = refused("authentication required", 401)
            answer.headers["WWW-Authenticate"] = 'Basic realm="qgen dashboard", charset="UTF-8"'
            await answer(scope, receive, secured)
            return
        scope.setdefault("state", {})["user"] = user
        await self.app(scope, receive, secured)
