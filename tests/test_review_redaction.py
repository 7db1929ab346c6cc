"""Review (DBA): a libpq sslpassword (the SSL key's passphrase) is a password too."""

from __future__ import annotations

import pytest

from qgen.cli import main as qgen_main
from qgen.dialects.urls import redacted
from tests.conftest import ROOT

SECRET = "Hunter2-keypass"
FORMS = {
    "dsn-sslpassword": f"host=127.0.0.1 port=1 dbname=app user=app sslpassword={SECRET}",
    "url-query-sslpassword": f"postgresql://app@127.0.0.1:1/app?sslpassword={SECRET}&sslmode=disable",
}


@pytest.mark.parametrize("form", sorted(FORMS))
def test_sslpassword_is_hidden_by_the_redaction_rule_and_qgen_status(form, capsys):
    assert SECRET not in redacted(FORMS[form]), redacted(FORMS[form])
    code = qgen_main(["status", str(ROOT / "examples" / "000_flag_worker.yaml"), "--url", FORMS[form]])
    out = capsys.readouterr()
    assert code != 0
    assert SECRET not in out.out + out.err, out.err
