"""`qgen dashboard` on the command line (issue 30): bad arguments are refused with what is accepted and
no traceback, a host other than the loopback needs --auth-env (the token never on the command line), and
the command itself serves safe pages: security headers, the Host header checked, read-only actions
refused, and a database that cannot be reached shown as a banner with its password hidden while the
server keeps running. (The pages against a live database, in a browser: tests/behaviour/test_dashboard.py.)"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from typing import Iterator, Optional

import pytest

from tests.conftest import ROOT

SPEC = str(ROOT / "tests" / "specs" / "features_lease.yaml")


def qgen(*args: str, env: Optional[dict[str, str]] = None, timeout: float = 60) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "qgen.cli", "dashboard", *args], capture_output=True, text=True,
                          timeout=timeout, cwd=ROOT, env={**os.environ, **(env or {})})


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.mark.parametrize("args, env, message", [
    (["--host", "0.0.0.0"], {}, "--host 0.0.0.0 would let other machines read the queues: give --auth-env VAR too"),
    (["--host", "192.0.2.7"], {}, "give --auth-env VAR too"),
    (["--auth-env", "QGEN_TEST_DASH_TOKEN"], {"QGEN_TEST_DASH_TOKEN": ""},
     "--auth-env QGEN_TEST_DASH_TOKEN: the environment variable QGEN_TEST_DASH_TOKEN is not set or empty"),
    (["--port", "70000"], {}, "--port 70000: accepted: 1 to 65535"),
    (["--refresh", "0s"], {}, "accepted: at least 1 second"),
    (["--refresh", "soon"], {}, "argument --refresh"),
    (["--port", "eighty"], {}, "argument --port: invalid int value"),
])
def test_bad_arguments_are_refused_with_a_clear_message(args, env, message):
    done = qgen(SPEC, "--url", "postgresql://u:pw@127.0.0.1:1/db", *args, env=env)
    assert done.returncode == 2, done
    assert message in done.stderr and "Traceback" not in done.stderr + done.stdout
    assert "pw" not in done.stderr.replace("pwd", "")


def test_no_database_or_an_unreadable_spec_is_refused_without_a_traceback(tmp_path):
    env = {k: v for k, v in os.environ.items() if k != "QGEN_DATABASE_URL"}
    done = subprocess.run([sys.executable, "-m", "qgen.cli", "dashboard", SPEC], capture_output=True, text=True,
                          timeout=60, cwd=ROOT, env=env)
    assert done.returncode == 2 and "no database: pass --url" in done.stderr and "Traceback" not in done.stderr
    done = qgen(str(tmp_path / "missing.yaml"), "--url", "postgresql://u@127.0.0.1:1/db")
    assert done.returncode == 2 and "missing.yaml" in done.stderr and "Traceback" not in done.stderr


@pytest.fixture
def running() -> Iterator[tuple[str, subprocess.Popen]]:
    """The command itself, against a database that cannot be reached (nothing listens on its port)."""
    port = free_port()
    process = subprocess.Popen(
        [sys.executable, "-m", "qgen.cli", "dashboard", SPEC, "--url", f"postgresql://ops:hunter2secret@127.0.0.1:{free_port()}/db",
         "--port", str(port), "--refresh", "1s"], cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
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
        out, err = process.communicate(timeout=30)
        assert "Traceback" not in out + err and "hunter2secret" not in out + err, (out, err)


def fetch(url: str, host: Optional[str] = None, method: str = "GET") -> tuple[int, dict[str, str], str]:
    request = urllib.request.Request(url, method=method, data=b"" if method == "POST" else None,
                                     headers={"Host": host} if host else {})
    try:
        with urllib.request.urlopen(request, timeout=10) as answer:
            return answer.status, dict(answer.headers), answer.read().decode()
    except urllib.error.HTTPError as exc:
        return exc.code, dict(exc.headers), exc.read().decode()


def test_an_unreachable_database_is_a_banner_and_the_server_keeps_serving(running):
    base, process = running
    give_up = time.monotonic() + 30  # the page serves before the sampler's first round has ended
    while "The database cannot be reached" not in fetch(base + "/")[2]:
        assert time.monotonic() < give_up, "no banner within 30 s"
        time.sleep(0.2)
    for _ in range(3):  # several sampler rounds: the server stays up, each page says the same
        status, headers, html = fetch(base + "/")
        assert status == 200
        assert 'class="banner" role="alert">The database cannot be reached' in html
        assert "hunter2secret" not in html and "postgresql://ops:***@127.0.0.1" in html
        time.sleep(1)
    assert process.poll() is None


def test_every_answer_carries_the_security_headers_and_the_host_is_checked(running):
    base, _ = running
    status, headers, _ = fetch(base + "/queues/jobs")
    assert status == 200
    assert headers["content-security-policy"].startswith(
        "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:")
    assert "frame-ancestors 'none'" in headers["content-security-policy"]
    assert (headers["x-content-type-options"], headers["x-frame-options"]) == ("nosniff", "DENY")
    port = base.rsplit(":", 1)[1]
    status, headers, text = fetch(base + "/", host=f"evil.example:{port}")
    assert (status, text) == (421, "refused: the Host header does not name this dashboard\n")
    assert "content-security-policy" in {k.lower() for k in headers}
    assert fetch(base + "/", host="127.0.0.1:1")[0] == 421
    assert fetch(base + "/", host=f"localhost:{port}")[0] == 200
    assert fetch(base + "/queues/nope")[0] == 404


def test_a_read_only_dashboard_refuses_every_action(running):
    base, _ = running
    status, _, text = fetch(base + "/queues/jobs/redrive", method="POST")
    assert (status, text) == (403, "refused: this dashboard is read-only (started without --allow-actions)\n")
    status, _, html = fetch(base + "/queues/jobs")
    assert "<form" not in html


def test_the_guard_names_its_own_host_only():
    from qgen.cli.dashboard.guard import Guard

    local, bound, anywhere = Guard("127.0.0.1", 8765), Guard("10.0.0.5", 8765, "t"), Guard("0.0.0.0", 8765, "t")
    assert [local.host_allowed(h) for h in ("127.0.0.1:8765", "localhost:8765", "[::1]:8765")] == [True] * 3
    assert [local.host_allowed(h) for h in ("evil.example:8765", "127.0.0.1:80", "127.0.0.1", "", None)] == [False] * 5
    assert (bound.host_allowed("10.0.0.5:8765"), bound.host_allowed("localhost:8765")) == (True, False)
    assert (anywhere.host_allowed("dash.internal:8765"), anywhere.host_allowed("dash.internal:9")) == (True, False)


def test_the_guard_takes_the_token_as_bearer_or_basic_password_and_nothing_else():
    import base64

    from qgen.cli.dashboard.guard import Guard

    guard = Guard("0.0.0.0", 8765, "tok")
    basic = "Basic " + base64.b64encode(b"ann:tok").decode()
    assert [guard.user(a, "10.1.1.1") for a in ("Bearer tok", basic, "Bearer tok2", "Basic !!!", "tok", None)] == \
        ["token", "ann", None, None, None, None]
    assert Guard("127.0.0.1", 8765).user(None, "127.0.0.1") == "127.0.0.1", "no token: who is the remote address"


def test_a_csrf_token_is_bound_to_its_action_and_expires():
    import time as clock

    from qgen.cli.dashboard.guard import CSRF_MAX_AGE, Guard

    guard = Guard("127.0.0.1", 8765)
    token = guard.csrf_token("redrive:jobs")
    assert guard.csrf_valid("redrive:jobs", token)
    assert not guard.csrf_valid("redrive:urgent", token)
    assert not Guard("127.0.0.1", 8765).csrf_valid("redrive:jobs", token), "another process's secret"
    old = guard.csrf_token("redrive:jobs", issued=int(clock.time()) - CSRF_MAX_AGE - 5)
    assert not guard.csrf_valid("redrive:jobs", old)
    assert not any(guard.csrf_valid("redrive:jobs", t) for t in (None, "", "x.y", token.split(".")[1]))
