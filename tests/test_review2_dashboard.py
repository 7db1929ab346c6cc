"""Review 2 (defects, not fixes): qgen dashboard."""

from __future__ import annotations

import subprocess
import sys
import time
import urllib.error
import urllib.parse
import urllib.request
from typing import Iterator

import pytest

from tests.conftest import ROOT
from tests.test_dashboard_cli import SPEC, fetch, free_port

SECRET = "hunter2secret"


@pytest.fixture
def dashboard(request) -> Iterator[tuple[str, subprocess.Popen]]:
    """The command against a database that cannot be reached; request.param: (url, extra args)."""
    url, extra = request.param
    port = free_port()
    process = subprocess.Popen([sys.executable, "-m", "qgen.cli", "dashboard", SPEC, "--url", url.format(port=free_port()),
                                "--port", str(port), "--refresh", "1s", *extra], cwd=ROOT, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True)
    base = f"http://127.0.0.1:{port}"
    give_up = time.monotonic() + 30
    while True:
        try:
            urllib.request.urlopen(base + "/static/dashboard.css", timeout=5).close()
            break
        except (urllib.error.URLError, ConnectionError):
            assert process.poll() is None and time.monotonic() < give_up, process.communicate()
            time.sleep(0.2)
    try:
        yield base, process
    finally:
        process.terminate()
        process.communicate(timeout=30)


@pytest.mark.parametrize("dashboard", [(f" postgresql://ops:{SECRET}@127.0.0.1:{{port}}/db", [])], indirect=True)
def test_the_page_and_the_start_line_hide_the_password_of_a_url_with_a_leading_space(dashboard):
    """The page's header shows redacted(read_url) to every viewer; a URL written with a leading blank keeps its
    password (redacted anchors at the first character), and the sampler's banner repeats it."""
    base, process = dashboard
    time.sleep(1.5)
    status, _, html = fetch(base + "/")
    assert status == 200
    process.terminate()
    out, err = process.communicate(timeout=30)
    assert SECRET not in html, [line for line in html.splitlines() if SECRET in line]
    assert SECRET not in out + err, out + err


@pytest.mark.parametrize("dashboard", [("postgresql://ops@127.0.0.1:{port}/db", [])], indirect=True)
def test_the_notice_is_not_taken_from_anyone_who_sends_a_link(dashboard):
    """?notice= is rendered as the page's status message (role=status) for any GET: a link
    /queues/jobs?notice=... shows a stranger's text as the dashboard's own (content spoofing, e.g. 'job 7: 1
    redriven; the dashboard moved to http://evil.example'). Only the redrive's own redirect should set it."""
    base, _ = dashboard
    text = "Dashboard moved: sign in again at http://evil.example/qgen"
    status, _, html = fetch(base + "/queues/jobs?" + urllib.parse.urlencode({"notice": text}))
    assert status == 200
    assert text not in html


@pytest.mark.parametrize("dashboard", [("postgresql://ops@127.0.0.1:{port}/db", ["--allow-actions"])], indirect=True)
def test_a_non_ascii_digit_in_an_action_form_is_refused_not_a_500_with_a_traceback(dashboard):
    field = "csrf"  # (_redrive's id check has the same isdigit/int mismatch, behind a valid CSRF token)
    """Guard.csrf_valid and _redrive check str.isdigit() then int(): '²' is a digit to isdigit and not to int,
    so the POST ends in an unhandled ValueError (500, a traceback in the log) instead of a 403/400."""
    from qgen.cli.dashboard.guard import Guard

    base, process = dashboard
    status, _, html = fetch(base + "/queues/jobs")
    csrf = html.split('name="csrf" value="')[1].split('"')[0] if 'name="csrf"' in html else "1.x"
    form = {"csrf": "\u00b2.abc", "id": "1"} if field == "csrf" else {"csrf": csrf, "id": "\u00b2"}
    request = urllib.request.Request(base + "/queues/jobs/redrive", method="POST", headers={"Origin": base},
                                     data=urllib.parse.urlencode(form).encode())
    try:
        with urllib.request.urlopen(request, timeout=10) as answer:
            status = answer.status
    except urllib.error.HTTPError as exc:
        status = exc.code
    if field == "csrf":
        assert status == 403, status
    else:
        assert status in (400, 403), status
    process.terminate()
    _, err = process.communicate(timeout=30)
    assert "Traceback" not in err, err[-2000:]
    assert not Guard("127.0.0.1", 8765).csrf_valid("redrive:jobs", "\u00b2.abc") if field == "csrf" else True


def test_a_dashboard_on_port_80_accepts_the_host_header_browsers_send():
    """A browser sends 'Host: 127.0.0.1' (no port) for http://127.0.0.1/; host_allowed requires ':80', so a
    dashboard on --port 80 (or behind a proxy on 80/443 passing Host on) answers 421 to every page."""
    from qgen.cli.dashboard.guard import Guard

    assert Guard("127.0.0.1", 80).host_allowed("127.0.0.1")
    assert Guard("localhost", 80).host_allowed("localhost")
