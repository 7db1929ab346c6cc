"""A TCP proxy in front of a database server that can cut its connections at a chosen moment, to
lose a call's request before the server sees it, or its answer after the server committed it.

    with CuttingProxy("127.0.0.1", 5432) as proxy:
        url = proxy.url("postgresql://postgres@127.0.0.1:5432/db")   # the same URL, through the proxy
        proxy.cut_after_answer()   # the next answer from the server is dropped, the connection closed

PostgreSQL flushes a command's answer when the command is over (in autocommit: after its commit),
so the first bytes that come back after cut_after_answer() belong to a call that has committed.
"""

from __future__ import annotations

import socket
import threading
import urllib.parse
from typing import Optional


class CuttingProxy:
    def __init__(self, host: str, port: int):
        self.target = (host, port)
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port = self.listener.getsockname()[1]
        self._cut: Optional[str] = None  # "request" | "answer": cut at the next bytes that way
        self._lock = threading.Lock()
        self._pairs: list[tuple[socket.socket, socket.socket]] = []
        self.cuts = 0
        self._closed = False
        threading.Thread(target=self._accept, daemon=True, name="proxy-accept").start()

    def url(self, url: str) -> str:
        """The URL with its host and port replaced by the proxy's."""
        parts = urllib.parse.urlsplit(url)
        userinfo = parts.netloc.rpartition("@")[0]
        netloc = f"{userinfo + '@' if userinfo else ''}127.0.0.1:{self.port}"
        return urllib.parse.urlunsplit(parts._replace(netloc=netloc))

    def cut_before_request(self) -> None:
        """Close the connection instead of forwarding the next request: the server never sees it."""
        with self._lock:
            self._cut = "request"

    def cut_after_answer(self) -> None:
        """Close the connection instead of forwarding the next answer: the call ran, its result is lost."""
        with self._lock:
            self._cut = "answer"

    def _accept(self) -> None:
        while not self._closed:
            try:
                client, _ = self.listener.accept()
            except OSError:
                return
            upstream = socket.create_connection(self.target)
            with self._lock:
                self._pairs.append((client, upstream))
            threading.Thread(target=self._pump, args=(client, upstream, "request"), daemon=True).start()
            threading.Thread(target=self._pump, args=(upstream, client, "answer"), daemon=True).start()

    def _pump(self, source: socket.socket, sink: socket.socket, direction: str) -> None:
        try:
            while True:
                data = source.recv(65536)
                if not data:
                    break
                with self._lock:
                    cut = self._cut == direction
                    if cut:
                        self._cut = None
                        self.cuts += 1
                if cut:
                    break
                sink.sendall(data)
        except OSError:
            pass
        for s in (source, sink):
            try:
                s.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            s.close()

    def close(self) -> None:
        self._closed = True
        self.listener.close()
        with self._lock:
            for pair in self._pairs:
                for s in pair:
                    try:
                        s.close()
                    except OSError:
                        pass

    def __enter__(self) -> "CuttingProxy":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
