"""Review 2 (defects, not fixes): a SQL Server URL with an unclosed IPv6 bracket ([::1 without ]) passes
_check_url's port check (it splits after the last ']', finds none, takes ':1' as the port part) and
SQLAlchemy's make_url then raises ValueError("invalid literal for int() ... ':1'"): `qgen worker` ends in a
traceback (exit 1), and qgen status / maintain / the dashboard say it as if the queue failed
('rv.jobs: invalid literal for int()'), not that the URL is wrong. (The first review's non-numeric-port
finding, in another form.)"""

from __future__ import annotations

import pytest

from qgen.cli import dburl
from qgen.cli import main as qgen_main
from tests.conftest import ROOT

URL = "mssql+pyodbc://app:Sekrit-9@[::1/app?driver=FreeTDS"
SPEC = ROOT / "examples" / "004_rainfall.yaml"


def test_connect_refuses_it_as_a_url_error():
    with pytest.raises(dburl.DatabaseUnavailable) as refused:
        dburl.connect(URL)
    assert "accepted" in str(refused.value), str(refused.value)


def test_qgen_worker_says_it_in_one_line_without_a_traceback(tmp_path, monkeypatch, capsys):
    (tmp_path / "hmod.py").write_text("def h(job):\n    pass\n")
    monkeypatch.chdir(tmp_path)
    try:
        code = qgen_main(["worker", str(SPEC), "rainfall_events", "--handler", "hmod:h", "--url", URL])
    except ValueError as exc:  # what reaches the user as a traceback
        pytest.fail(f"qgen worker raised {exc!r} (a traceback) instead of a one-line error")
    assert code == 1
    err = capsys.readouterr().err
    assert "Sekrit-9" not in err and "not started" in err, err
