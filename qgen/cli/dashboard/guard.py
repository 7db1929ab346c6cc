"""What keeps qgen dashboard safe to leave running, as plain functions of a request's headers (the
Starlette middleware in app.py applies them): the Host header checked against the bind address (a DNS
rebinding page cannot read a dashboard on 127.0.0.1), a token from an environment variable (Bearer, or
basic auth with it as the password), a CSRF token (HMAC of a per-process secret) and an Origin/Referer
check on every action, and the response headers that forbid inline scripts, styles and framing."""

from __future__ import annotations

import base64
import re
import binascii
import hashlib
import hmac
import secrets
import time
from dataclasses import dataclass, field
from typing import Mapping, Optional

CSP = ("default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; "
       "form-action 'self'; frame-ancestors 'none'; base-uri 'none'")
HEADERS = {
    "Content-Security-Policy": CSP,
    "X-Content-Type-Options": "nosniff",
    "X-Frame-Options": "DENY",
    "Referrer-Policy": "same-origin",
    "Cache-Control": "no-store",
}
LOOPBACK = {"127.0.0.1", "localhost", "::1"}
WILDCARD = {"0.0.0.0", "::", ""}
CSRF_MAX_AGE = 3600  # seconds a page's action tokens stay good


def bracketed(host: str) -> str:
    return f"[{host}]" if ":" in host and not host.startswith("[") else host


@dataclass(frozen=True)
class Guard:
    host: str
    port: int
    token: Optional[str] = None     # None: no authentication (bound to the loopback only)
    secret: bytes = field(default_factory=lambda: secrets.token_bytes(32))

    # Host -----------------------------------------------------------------------------------
    def host_allowed(self, header: Optional[str]) -> bool:
        """The Host header names this server: a loopback name on a loopback bind, the bound address
        otherwise; on a wildcard bind (0.0.0.0, ::, authentication required) any name, on the bound port."""
        if not header:
            return False
        name, _, port = header.rpartition(":") if not header.endswith("]") else (header, "", "")
        if not name and self.port == 80:  # a browser leaves out http's default port
            name, port = header, "80"
        if not name or port != str(self.port):
            return False
        name = name.strip("[]").lower()
        if self.host in WILDCARD:
            return True
        if self.host in LOOPBACK:
            return name in LOOPBACK
        return name == self.host.strip("[]").lower()

    # Authentication -------------------------------------------------------------------------
    def user(self, authorization: Optional[str], remote: str) -> Optional[str]:
        """Who is asking: the basic-auth user name (or "token" for a Bearer token), the remote
        address when no token is configured, None when the credentials are missing or wrong."""
        if self.token is None:
            return remote
        scheme, _, value = (authorization or "").partition(" ")
        value = value.strip()
        if scheme.lower() == "bearer":
            return "token" if _same(value, self.token) else None
        if scheme.lower() == "basic":
            try:
                name, _, password = base64.b64decode(value, validate=True).decode("utf-8").partition(":")
            except (binascii.Error, UnicodeDecodeError):
                return None
            return (name or "basic") if _same(password, self.token) else None
        return None

    # Actions ---------------------------------------------------------------------------------
    def csrf_token(self, action: str, issued: Optional[int] = None) -> str:
        issued = int(time.time()) if issued is None else issued
        return f"{issued}.{self._mac(action, issued)}"

    def csrf_valid(self, action: str, token: Optional[str]) -> bool:
        issued, _, mac = (token or "").partition(".")
        if not re.fullmatch(r"[0-9]{1,12}", issued) or not mac:
            return False
        if not 0 <= time.time() - int(issued) <= CSRF_MAX_AGE:
            return False
        return _same(mac, self._mac(action, int(issued)))

    def sign(self, notice: str) -> str:
        """A notice's signature: a page shows a notice only with it, so a link cannot put its own text
        on the dashboard."""
        return hmac.new(self.secret, f"notice\n{notice}".encode(), hashlib.sha256).hexdigest()

    def signed(self, notice: Optional[str], signature: Optional[str]) -> Optional[str]:
        """The notice when its signature is this server's, else None."""
        if notice is None or signature is None:
            return None
        return notice if _same(signature, self.sign(notice)) else None

    def _mac(self, action: str, issued: int) -> str:
        return hmac.new(self.secret, f"{action}\n{issued}".encode(), hashlib.sha256).hexdigest()


def same_origin(headers: Mapping[str, str], origin: str) -> bool:
    """An action's request comes from one of this server's own pages: its Origin header is this
    server's origin (scheme://host:port), or, without one, its Referer is a page of it."""
    sent = headers.get("origin")
    if sent is not None:
        return sent == origin
    referer = headers.get("referer")
    return referer is not None and (referer == origin or referer.startswith(origin + "/"))


def _same(given: str, expected: str) -> bool:
    return hmac.compare_digest(given.encode("utf-8"), expected.encode("utf-8"))
