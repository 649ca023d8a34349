"""Starts the real ptc-sidecar on a free loopback port for the tests.

PTC_SIDECAR_BIN names a built binary; without it the server is built from
the repository with `go build`.
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


@pytest.fixture(scope="session")
def target():
    """The address of a running server, stopped when the session ends."""
    with running_server() as address:
        yield address


@contextlib.contextmanager
def running_server():
    """Starts the server on a free loopback port; yields its address."""
    with tempfile.TemporaryDirectory() as work:
        binary = os.environ.get("PTC_SIDECAR_BIN")
        if not binary:
            binary = os.path.join(work, "ptc-sidecar")
            subprocess.run(["go", "build", "-o", binary, "./cmd/ptc-sidecar"], cwd=REPO, check=True)
        log_path = os.path.join(work, "server.log")
        with open(log_path, "wb") as log:
            server = subprocess.Popen([binary, "serve", "--listen", "127.0.0.1:0"], stderr=log,
                                      stdout=subprocess.DEVNULL)
        try:
            yield _serving_address(server, log_path)
        finally:
            server.terminate()
            server.wait(timeout=20)


def _serving_address(server: subprocess.Popen, log_path: str) -> str:
    # Port 0: the server logs the address it bound in its "serving" line
    # once it is ready. It is waited for as long as the server runs, however
    # busy the machine: a server that cannot start exits.
    while True:
        with open(log_path, encoding="utf-8") as log:
            for line in log:
                try:
                    entry = json.loads(line)
                except ValueError:
                    continue
                if entry.get("msg") == "serving":
                    return entry["addr"]
        if server.poll() is not None:
            break
        time.sleep(0.05)
    with open(log_path, encoding="utf-8") as log:
        raise RuntimeError("the server did not start:\n" + log.read())
