"""Starts the real ptc-sidecar on a loopback port for the tests.

PTC_SIDECAR_BIN names a built binary; without it the server is built from
the repository with `go build`, once per session.
"""

from __future__ import annotations

import contextlib
import json
import os
import pathlib
import subprocess
import tempfile
import time

import pytest

REPO = pathlib.Path(__file__).resolve().parents[3]
TESTS = pathlib.Path(__file__).resolve().parent


@pytest.fixture(scope="session")
def binary(tmp_path_factory):
    """The server binary."""
    path = os.environ.get("PTC_SIDECAR_BIN")
    if not path:
        path = str(tmp_path_factory.mktemp("bin") / "ptc-sidecar")
        subprocess.run(["go", "build", "-o", path, "./cmd/ptc-sidecar"], cwd=REPO, check=True)
    return path


@pytest.fixture(scope="session")
def target(binary):
    """The address of a running server, stopped when the session ends."""
    with Server(binary) as server:
        yield server.target


@pytest.fixture
def client(target):
    """A Client of the session's server."""
    import ptc_sidecar

    with ptc_sidecar.Client(target) as c:
        yield c


class Server:
    """The server as a process that can be stopped and started again on the
    same address, as a sidecar container is restarted in its pod."""

    def __init__(self, binary: str, *args: str):
        self.binary = binary
        self.args = args
        self.target = "127.0.0.1:0"
        self.metrics: str | None = None  # the /metrics address, with --metrics-listen
        self.process: subprocess.Popen | None = None
        self._work = tempfile.TemporaryDirectory()

    def __enter__(self) -> "Server":
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()
        self._work.cleanup()

    def start(self) -> None:
        log_path = os.path.join(self._work.name, f"server-{time.monotonic_ns()}.log")
        with open(log_path, "wb") as log:
            self.process = subprocess.Popen([self.binary, "serve", "--listen", self.target, *self.args],
                                            stderr=log, stdout=subprocess.DEVNULL)
        self.target, self.metrics = _serving_address(self.process, log_path)

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            self.process.wait(timeout=20)
        self.process = None


def _serving_address(server: subprocess.Popen, log_path: str) -> tuple[str, str | None]:
    # Port 0: the server logs the address it bound in its "serving" line
    # once it is ready (and its metrics address before). It is waited for as
    # long as the server runs, however busy the machine: a server that
    # cannot start exits.
    while True:
        metrics = None
        with open(log_path, encoding="utf-8") as log:
            for line in log:
                try:
                    entry = json.loads(line)
                except ValueError:
                    continue
                if entry.get("msg") == "metrics listening":
                    metrics = entry["addr"]
                if entry.get("msg") == "serving":
                    return entry["addr"], metrics
        if server.poll() is not None:
            break
        time.sleep(0.05)
    with open(log_path, encoding="utf-8") as log:
        raise RuntimeError("the server did not start:\n" + log.read())


@contextlib.contextmanager
def running_server(binary: str | None = None):
    """Starts a server (built when binary is None); yields its address.
    For scripts outside pytest, such as bench/overhead.py."""
    with tempfile.TemporaryDirectory() as work:
        if binary is None:
            binary = os.environ.get("PTC_SIDECAR_BIN") or os.path.join(work, "ptc-sidecar")
            if not os.environ.get("PTC_SIDECAR_BIN"):
                subprocess.run(["go", "build", "-o", binary, "./cmd/ptc-sidecar"], cwd=REPO, check=True)
        with Server(binary) as server:
            yield server.target
