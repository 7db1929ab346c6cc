"""qgen dashboard (issue 30) in a real browser: Debian's chromium driven by Playwright for Python, against
the dashboard's application served by uvicorn in this process, reading the test's database (PostgreSQL and
SQL Server / Babelfish). The pages show the counts as jobs move, a payload holding a script shows as text
and runs nothing, the console stays clean, an action without its CSRF token or from another origin is
refused, a redrive through the form works, a token is required when configured, and a database that
cannot be reached is a banner the page recovers from.

Screenshots of each page go to the test's tmp dir; QGEN_UPDATE_SCREENSHOT=1 also copies the queue page's to
docs/images/dashboard.png (the README's picture)."""

from __future__ import annotations

import base64
from decimal import Decimal
import contextlib
import datetime as dt
import logging
import os
import shutil
import socket
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterator, Optional

import pytest

from tests.behaviour.helpers import FEAT
from tests.conftest import ROOT

CHROMIUM = Path("/usr/bin/chromium")
pytestmark = pytest.mark.skipif(not CHROMIUM.exists(), reason=f"{CHROMIUM} is missing: the dashboard's browser tests "
                                "drive Debian's chromium (apt-get install chromium; scripts/test.sh installs it)")
SCRIPT = "<script>window.pwned=1</script>"
SCREENSHOT = ROOT / "docs" / "images" / "dashboard.png"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@dataclass
class Served:
    base: str
    board: Any
    port: int

    def sample(self) -> None:
        self.board.sampler.sample()


@contextlib.contextmanager
def serve(env: Any, *, allow_actions: bool = False, token: Optional[str] = None, read_url: Optional[str] = None,
          refresh: float = 1.0, sampler_thread: bool = False) -> Iterator[Served]:
    """The dashboard's app under uvicorn in a thread of this process, on a free port of 127.0.0.1. Without
    sampler_thread, the test takes each sample itself (Served.sample), so a page shows what it arranged."""
    import uvicorn

    from qgen.cli.dashboard.app import Dashboard, build_app
    from qgen.cli.dashboard.guard import Guard
    from qgen.cli.dashboard.sampler import Sampler

    port = free_port()
    url = env.backend.database_url
    board = Dashboard(spec=env.spec, spec_name="features_lease.yaml", url=url, read_url=read_url or url,
                      sampler=Sampler(env.spec, read_url or url, refresh), guard=Guard("127.0.0.1", port, token),
                      refresh=refresh, allow_actions=allow_actions)
    server = uvicorn.Server(uvicorn.Config(build_app(board), host="127.0.0.1", port=port, log_level="warning",
                                          access_log=False))
    thread = threading.Thread(target=server.run, name="dashboard-under-test", daemon=True)
    thread.start()
    give_up = time.monotonic() + 20
    while not server.started:
        assert thread.is_alive() and time.monotonic() < give_up, "the dashboard's server did not start"
        time.sleep(0.05)
    if sampler_thread:
        board.sampler.start()
    try:
        yield Served(f"http://127.0.0.1:{port}", board, port)
    finally:
        server.should_exit = True
        thread.join(timeout=20)
        board.sampler.stop()


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=str(CHROMIUM), args=["--no-sandbox"])
        yield launched
        launched.close()


@pytest.fixture
def page(browser: Any) -> Iterator[Any]:
    """A page in a fresh context; every console error or uncaught exception fails the test."""
    context = browser.new_context(viewport={"width": 1200, "height": 800})
    opened = context.new_page()
    problems: list[str] = []
    opened.on("console", lambda m: problems.append(f"console {m.type}: {m.text}") if m.type == "error" else None)
    opened.on("pageerror", lambda e: problems.append(f"page error: {e}"))
    yield opened
    context.close()
    assert problems == [], problems


def counts(page: Any, scope: str = "") -> dict[str, str]:
    cells = page.locator(f"{scope} [data-count]")
    return {cells.nth(i).get_attribute("data-count"): cells.nth(i).inner_text().strip() for i in range(cells.count())}


def post(url: str, form: dict[str, str], headers: dict[str, str]) -> tuple[int, str]:
    request = urllib.request.Request(url, data=urllib.parse.urlencode(form).encode(), method="POST", headers=headers)
    try:
        with urllib.request.urlopen(request, timeout=20) as answer:
            return answer.status, answer.read().decode()
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read().decode()


def get(url: str, headers: Optional[dict[str, str]] = None) -> int:
    try:
        with urllib.request.urlopen(urllib.request.Request(url, headers=headers or {}), timeout=20) as answer:
            return int(answer.status)
    except urllib.error.HTTPError as exc:
        return int(exc.code)


def bury(queue: Any, customer: int, note: str, error: str) -> int:
    queue.enqueue(job_type="invoice", customer_id=customer, amount=Decimal("1.00"), note=note)
    job, = queue.dequeue(batch_size=1)
    assert queue.fail(job, error, retry=False) == "dead"
    return int(job.id)


def test_counts_follow_jobs_through_enqueue_claim_failure_and_completion(use_spec, page, tmp_path):
    env = use_spec(FEAT)
    jobs = env.client("jobs")
    with serve(env) as served:
        served.sample()
        page.goto(served.base + "/")
        assert counts(page, "tr[data-queue=jobs]") == {k: "0" for k in
                                                         ("ready", "scheduled", "in_flight", "expired", "dead", "finished")}
        for customer in (1, 2, 3):
            jobs.enqueue(job_type="invoice", customer_id=customer, amount=Decimal("1.00"))
        jobs.enqueue(job_type="later", customer_id=4, amount=Decimal("1.00"),
                     run_at=dt.datetime.now(dt.timezone.utc) + dt.timedelta(hours=1))
        first, = jobs.dequeue(batch_size=1)
        second, = jobs.dequeue(batch_size=1)
        jobs.complete(first, no_result=True)
        claimed, = jobs.dequeue(batch_size=1)
        assert jobs.fail(second, "the bank said no", retry=False) == "dead"
        served.sample()
        page.goto(served.base + "/")
        assert counts(page, "tr[data-queue=jobs]") == {"ready": "0", "scheduled": "1", "in_flight": "1", "expired": "0",
                                                         "dead": "1", "finished": "1"}
        assert counts(page, "tr[data-queue=urgent]")["ready"] == "0", "a delete-mode queue without dead letters reads too"
        page.screenshot(path=str(tmp_path / "spec.png"), full_page=True)
        page.click("a[href='/queues/jobs']")
        assert page.url == served.base + "/queues/jobs"
        assert counts(page, ".tiles") == {"ready": "0", "scheduled": "1", "in_flight": "1", "expired": "0", "dead": "1",
                                          "finished": "1"}
        row = page.locator(f"table.dead tr[data-id='{second.id}']")
        assert "the bank said no" in row.inner_text()
        assert page.locator("table.next tbody tr").count() == 1, "peek: the scheduled job, next in queue order"
        assert page.locator("svg polyline").count() == 2, "backlog and throughput drawn from two samples"
        page.screenshot(path=str(tmp_path / "queue.png"), full_page=True)
    if os.environ.get("QGEN_UPDATE_SCREENSHOT") and env.dialect == "postgres":
        SCREENSHOT.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(tmp_path / "queue.png", SCREENSHOT)


def test_a_script_in_a_payload_or_an_error_shows_as_text_and_runs_nothing(use_spec, page):
    env = use_spec(FEAT)
    jobs = env.client("jobs")
    bury(jobs, 1, SCRIPT, '<img src=x onerror="window.pwned=2">' + SCRIPT)
    jobs.enqueue(job_type=SCRIPT[:40], customer_id=2, amount=Decimal("1.00"), note=SCRIPT)
    with serve(env, allow_actions=True) as served:
        served.sample()
        page.goto(served.base + "/queues/jobs")
        text = page.locator("main").inner_text()
        assert text.count(SCRIPT) >= 2 and '<img src=x onerror="window.pwned=2">' in text
        assert page.evaluate("typeof window.pwned") == "undefined"
        assert page.locator("main script, main img").count() == 0


def test_an_action_without_its_csrf_token_or_from_another_origin_is_refused(use_spec):
    env = use_spec(FEAT)
    jobs = env.client("jobs")
    dead = bury(jobs, 1, "n", "poison")
    with serve(env, allow_actions=True) as served:
        action = served.base + "/queues/jobs/redrive"
        token = served.board.guard.csrf_token("redrive:jobs")
        status, text = post(action, {"id": str(dead)}, {"Origin": served.base})
        assert (status, text) == (403, "refused: missing or invalid CSRF token; reload the page and try again\n")
        assert post(action, {"id": str(dead), "csrf": token + "0"}, {"Origin": served.base})[0] == 403
        status, text = post(action, {"id": str(dead), "csrf": token}, {"Origin": "http://evil.example"})
        assert status == 403 and "Origin/Referer" in text
        assert post(action, {"id": str(dead), "csrf": token}, {})[0] == 403, "neither Origin nor Referer"
        other = served.board.guard.csrf_token("redrive:urgent")
        assert post(action, {"id": str(dead), "csrf": other}, {"Origin": served.base})[0] == 403
    with serve(env) as served:  # read-only: even a good token is refused
        token = served.board.guard.csrf_token("redrive:jobs")
        status, text = post(served.base + "/queues/jobs/redrive", {"id": str(dead), "csrf": token},
                            {"Origin": served.base})
        assert status == 403 and "read-only" in text
    assert [d.id for d in jobs.dead_letters()] == [dead], "nothing was redriven"


def test_a_redrive_through_the_form_puts_the_job_back_and_is_logged_with_who(use_spec, page, caplog):
    env = use_spec(FEAT)
    jobs = env.client("jobs")
    dead = bury(jobs, 1, "n", "poison")
    caplog.set_level(logging.INFO, logger="qgen.dashboard")
    with serve(env, allow_actions=True) as served:
        served.sample()
        page.goto(served.base + "/queues/jobs")
        page.click(f"table.dead tr[data-id='{dead}'] button")
        page.wait_for_url(served.base + "/queues/jobs?*")
        assert "1 redriven" in page.locator(".notice").inner_text()
    assert jobs.dead_letters() == [] and jobs.metrics()["ready"] == 1
    said = [r.getMessage() for r in caplog.records if r.name == "qgen.dashboard"]
    assert any(f"redrive of feat.jobs job {dead} by 127.0.0.1: 1 redriven" in s for s in said), said


def test_pause_resume_and_cancel_through_the_page_change_the_queue_and_are_logged(use_spec, page, caplog):
    """Issue 29 on the dashboard: the queue page pauses and resumes the queue (its state shown there and
    on the spec page) and cancels a job of the next jobs, each a POST form with its own CSRF token."""
    env = use_spec(FEAT)
    jobs = env.client("jobs")
    keep, drop = (jobs.enqueue(job_type="t", customer_id=n, amount=Decimal("1.00")).id for n in (1, 2))
    caplog.set_level(logging.INFO, logger="qgen.dashboard")
    with serve(env, allow_actions=True) as served:
        served.sample()
        page.goto(served.base + "/queues/jobs")
        assert page.locator("dd[data-state]").inner_text() == "running"
        page.click("form.control button")                       # pause
        page.wait_for_url(served.base + "/queues/jobs?*")
        assert "paused: claims return no job" in page.locator(".notice").inner_text()
        assert jobs.paused() is True and jobs.dequeue() == []
        served.sample()
        page.goto(served.base + "/")
        assert page.locator("tr[data-queue='jobs'] td[data-state]").inner_text() == "PAUSED"
        page.goto(served.base + "/queues/jobs")
        assert page.locator("h1 .paused").inner_text() == "PAUSED"
        page.click(f"table.next tr[data-id='{drop}'] button")  # cancel
        page.wait_for_url(served.base + "/queues/jobs?*")
        assert page.locator(".notice").inner_text().strip() == f"job {drop}: cancelled"
        assert page.locator("form.control button").inner_text() == "resume"
        page.click("form.control button")                       # resume
        page.wait_for_url(served.base + "/queues/jobs?*")
        assert "resumed" in page.locator(".notice").inner_text()
        token = served.board.guard.csrf_token("pause:jobs")
        status, text = post(served.base + "/queues/jobs/cancel", {"id": str(keep), "csrf": token}, {"Origin": served.base})
        assert status == 403 and "CSRF" in text, "a pause token does not cancel"
        assert post(served.base + "/queues/jobs/drop_table", {"csrf": token}, {"Origin": served.base})[0] == 404
    assert [j.id for j in jobs.dequeue(batch_size=5)] == [keep]
    said = [r.getMessage() for r in caplog.records if r.name == "qgen.dashboard"]
    for line in ("pause of feat.jobs by 127.0.0.1: paused", f"cancel of feat.jobs job {drop} by 127.0.0.1: cancelled",
                 "resume of feat.jobs by 127.0.0.1: resumed"):
        assert any(line in s for s in said), (line, said)


def test_a_configured_token_is_required_for_every_page(use_spec, browser):
    env = use_spec(FEAT)
    with serve(env, token="s3cret-token") as served:
        served.sample()
        assert get(served.base + "/") == 401
        assert get(served.base + "/static/dashboard.css") == 401
        assert get(served.base + "/", {"Authorization": "Bearer wrong"}) == 401
        assert get(served.base + "/", {"Authorization": "Bearer s3cret-token"}) == 200
        basic = base64.b64encode(b"ops:s3cret-token").decode()
        assert get(served.base + "/", {"Authorization": f"Basic {basic}"}) == 200
        context = browser.new_context(http_credentials={"username": "ops", "password": "s3cret-token"})
        try:
            shown = context.new_page()
            shown.goto(served.base + "/queues/jobs")
            assert counts(shown, ".tiles")["ready"] == "0"
        finally:
            context.close()


def test_one_sampler_thread_keeps_every_open_page_current_without_a_reload(use_spec, browser):
    from playwright.sync_api import expect

    env = use_spec(FEAT)
    jobs = env.client("jobs")
    with serve(env, refresh=1.0, sampler_thread=True) as served:
        context = browser.new_context()
        try:
            pages = [context.new_page() for _ in range(3)]
            for opened in pages:
                opened.goto(served.base + "/queues/jobs")
                opened.evaluate("window.kept = 'the same document'")
            jobs.enqueue(job_type="invoice", customer_id=1, amount=Decimal("1.00"))
            for opened in pages:  # refresh.js puts the new sample's <main> in place
                expect(opened.locator(".tiles [data-count=ready]")).to_have_text("1", timeout=20000)
            assert [opened.evaluate("window.kept") for opened in pages] == ["the same document"] * 3, "none reloaded"
        finally:
            context.close()


class Forwarder:
    """A TCP forwarder on a chosen port, started later than the dashboard: a database that comes back."""

    def __init__(self, port: int, target: tuple[str, int]):
        self.listener = socket.create_server(("127.0.0.1", port))
        self.target = target
        self.sockets: list[socket.socket] = []
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                client, _ = self.listener.accept()
            except OSError:
                return
            server = socket.create_connection(self.target)
            self.sockets += [client, server]
            for a, b in ((client, server), (server, client)):
                threading.Thread(target=self._pump, args=(a, b), daemon=True).start()

    @staticmethod
    def _pump(source: socket.socket, sink: socket.socket) -> None:
        with contextlib.suppress(OSError):
            while data := source.recv(65536):
                sink.sendall(data)
        with contextlib.suppress(OSError):
            sink.shutdown(socket.SHUT_WR)

    def cut(self) -> None:
        """Break every connection made through it, as a network or a failover does; new ones still pass."""
        for held in self.sockets:
            with contextlib.suppress(OSError):
                held.shutdown(socket.SHUT_RDWR)
            held.close()
        self.sockets = []

    def close(self) -> None:
        self.listener.close()


def test_a_database_that_cannot_be_reached_is_a_banner_and_the_page_recovers(use_spec, page):
    from sqlalchemy.engine import make_url

    env = use_spec(FEAT)
    real = make_url(env.backend.database_url)
    port = free_port()
    away = real.set(host="127.0.0.1", port=port, password=real.password or "pw-never-shown")
    with serve(env, read_url=away.render_as_string(hide_password=False)) as served:
        served.sample()
        page.goto(served.base + "/")
        banner = page.locator(".banner[role=alert]").inner_text()
        assert "cannot be reached" in banner and "Nothing has been read yet" in banner
        assert (real.password or "pw-never-shown") not in page.content()
        forwarder = Forwarder(port, (str(real.host), int(real.port or 0)))
        try:
            served.sample()
            page.goto(served.base + "/")
            assert page.locator(".banner[role=alert]").count() == 0
            assert counts(page, "tr[data-queue=jobs]")["ready"] == "0"
            # The sampler's connection breaks under it: the banner says so in the dashboard's words (not a
            # client user's advice to pass a URL), and the next round connects again.
            forwarder.cut()
            served.sample()
            page.goto(served.base + "/")
            banner = page.locator(".banner[role=alert]").inner_text()
            assert "connection to the database was lost" in banner and "connection factory" not in banner, banner
            served.sample()
            page.goto(served.base + "/")
            assert page.locator(".banner[role=alert]").count() == 0
        finally:
            forwarder.close()
