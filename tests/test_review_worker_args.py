"""Review (DBA): qgen worker's argument errors exit 2 ('2 for an argument or spec error'); a negative
--poll-interval is not checked: the worker connects, starts its threads, and the first claim refuses it (exit 1)."""

from __future__ import annotations

import pytest

from qgen.cli import main as qgen_main
from tests.conftest import ROOT


def test_a_negative_poll_interval_is_an_argument_error(tmp_path, monkeypatch, capsys):
    (tmp_path / "hmod.py").write_text("def h(job):\n    pass\n")
    monkeypatch.chdir(tmp_path)
    with pytest.raises(SystemExit) as ended:  # argparse's usage error: the process exits 2
        qgen_main(["worker", str(ROOT / "examples" / "004_rainfall.yaml"), "rainfall_events", "--handler", "hmod:h",
                   "--url", "postgresql://nobody@127.0.0.1:1/none", "--poll-interval=-1"])
    assert ended.value.code == 2
    assert "--poll-interval: '-1': accepted: seconds from 0.01 to 3600" in capsys.readouterr().err
