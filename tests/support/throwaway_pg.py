"""A PostgreSQL server of the test's own, to restart in the middle of a test (never a shared one).

initdb into a temporary folder (as the `postgres` OS user when the tests run as root: PostgreSQL
refuses to run as root), trust authentication, TCP on a free port of 127.0.0.1, no Unix socket,
fsync off (a server process that is killed loses nothing the kernel holds; only a machine crash would); synchronous_commit stays on, so every commit a client saw survives an immediate restart. `problem()` says why one cannot be
made here (tests skip with it, and fail in CI: tests/conftest.py's `require`).
"""

from __future__ import annotations

import glob
import os
import shutil
import socket
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Optional

BIN_ENV = "QGEN_TEST_PG_BIN"  # a folder holding initdb and pg_ctl, when they are not found by themselves


def _bindir() -> Optional[Path]:
    candidates = [os.environ.get(BIN_ENV)] if os.environ.get(BIN_ENV) else []
    candidates += sorted(glob.glob("/usr/lib/postgresql/*/bin"), key=lambda p: int(p.split("/")[-2]), reverse=True)
    pg_config = shutil.which("pg_config")
    if pg_config:
        candidates.append(subprocess.run([pg_config, "--bindir"], capture_output=True, text=True).stdout.strip())
    for folder in candidates:
        if folder and (Path(folder) / "initdb").is_file() and (Path(folder) / "pg_ctl").is_file():
            return Path(folder)
    return None


def problem() -> Optional[str]:
    """None when a throwaway server can be made here, else why not."""
    if _bindir() is None:
        return f"no PostgreSQL server binaries (initdb, pg_ctl) found; set {BIN_ENV} to their folder"
    if os.geteuid() == 0:
        if shutil.which("runuser") is None:
            return "running as root without runuser: cannot start PostgreSQL as another user"
        try:
            import pwd

            pwd.getpwnam("postgres")
        except KeyError:
            return "running as root and there is no `postgres` OS user to run a throwaway PostgreSQL"
    return None


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class ThrowawayPostgres:
    """start(), restart(mode), stop(); url(database)."""

    def __init__(self, **settings: object) -> None:
        """settings: postgresql.conf values besides the defaults below (e.g. max_locks_per_transaction=10)."""
        self.bindir = _bindir()
        self.folder = Path(tempfile.mkdtemp(prefix="qgen-throwaway-pg-"))
        self.data = self.folder / "data"
        self.log = self.folder / "server.log"
        self.port = _free_port()
        self.restarts = 0
        if os.geteuid() == 0:
            import pwd

            user = pwd.getpwnam("postgres")
            os.chown(self.folder, user.pw_uid, user.pw_gid)
        self._run("initdb", "-D", str(self.data), "-A", "trust", "-U", "postgres", "--no-sync", "-E", "UTF8")
        options = {"port": self.port, "listen_addresses": "'127.0.0.1'", "unix_socket_directories": "''",
                   "fsync": "off", "full_page_writes": "off", "max_connections": 60,
                   "shared_buffers": "'32MB'", **settings}
        with open(self.data / "postgresql.conf", "a") as conf:
            conf.write("".join(f"{k} = {v}\n" for k, v in options.items()))

    def _run(self, tool: str, *args: str) -> subprocess.CompletedProcess:
        command = [str(self.bindir / tool), *args]
        if os.geteuid() == 0:
            command = ["runuser", "-u", "postgres", "--", *command]
        result = subprocess.run(command, capture_output=True, text=True, timeout=120)
        if result.returncode != 0:
            log = self.log.read_text(errors="replace")[-3000:] if self.log.exists() else ""
            raise RuntimeError(f"{' '.join(command)} failed ({result.returncode}):\n{result.stdout}{result.stderr}\n{log}")
        return result

    def url(self, database: str = "postgres") -> str:
        return f"postgresql://postgres@127.0.0.1:{self.port}/{database}"

    def pg_ctl_command(self, action: str, mode: str = "fast") -> list[str]:
        """The command line that does `pg_ctl ACTION` on this server (for a bench's --chaos-restart-db)."""
        command = [str(self.bindir / "pg_ctl"), action, "-D", str(self.data), "-l", str(self.log), "-m", mode, "-w"]
        return (["runuser", "-u", "postgres", "--"] if os.geteuid() == 0 else []) + command

    def start(self) -> None:
        self._run("pg_ctl", "start", "-D", str(self.data), "-l", str(self.log), "-w", "-t", "60")

    def restart(self, mode: str = "fast") -> float:
        """Restart the server (fast: sessions are ended; immediate: the server is killed and recovers);
        returns how long it took."""
        began = time.monotonic()
        self._run("pg_ctl", "restart", "-D", str(self.data), "-l", str(self.log), "-m", mode, "-w", "-t", "60")
        self.restarts += 1
        return time.monotonic() - began

    def stop(self) -> None:
        try:
            self._run("pg_ctl", "stop", "-D", str(self.data), "-m", "immediate", "-w")
        except RuntimeError:
            pass
        shutil.rmtree(self.folder, ignore_errors=True)
