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


def test_a_query_password_with_a_bad_percent_escape_is_not_echoed_by_libpq(capsys):
    """The change refuses a stray % in a URL's user info ('the driver's message would show it') but not in
    ?password=: libpq answers 'invalid percent-encoded token: "<the whole password>"', and qgen prints it
    after the redacted URL (qgen status, qgen worker's 'not started', Alembic's env.py)."""
    from qgen.cli import dburl

    url = "postgresql://app@127.0.0.1:1/app?password=Sek%zzrit9"
    with pytest.raises(dburl.DatabaseUnavailable) as refused:
        dburl.connect(url)
    assert "Sek" not in str(refused.value) and "rit9" not in str(refused.value), str(refused.value)
    code = qgen_main(["status", str(ROOT / "examples" / "000_flag_worker.yaml"), "--url", url])
    out = capsys.readouterr()
    assert code != 0
    assert "rit9" not in out.out + out.err, out.err
