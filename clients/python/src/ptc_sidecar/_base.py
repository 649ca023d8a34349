"""What Client and AsyncClient share: settings, deadlines and retries."""

from __future__ import annotations

import enum
import os
import random
import time
from dataclasses import dataclass
from typing import Any, Sequence

import grpc

from ptc_sidecar._errors import (
    CallContext,
    ClientClosedError,
    SidecarError,
    deadline_error,
    error_from_rpc,
    is_retryable,
)
from ptc_sidecar._requests import log

# Responses carry every value twice (EDN and JSON): room beyond gRPC's
# 4 MiB default receive limit.
DEFAULT_MAX_MESSAGE_BYTES = 64 << 20
DEFAULT_TIMEOUT = 30.0
# With the delays below, retries cover about four seconds: a sidecar
# container restarting in its pod.
DEFAULT_MAX_RETRIES = 4
INITIAL_RETRY_DELAY = 0.25
MAX_RETRY_DELAY = 4.0
DEFAULT_TARGET = "127.0.0.1:50051"


class NotGiven(enum.Enum):
    """The type of NOT_GIVEN: an argument left out, as opposed to None."""

    NOT_GIVEN = "NOT_GIVEN"

    def __repr__(self) -> str:
        return "NOT_GIVEN"


NOT_GIVEN = NotGiven.NOT_GIVEN


def resolve_target(target: str | None) -> str:
    """target, else $PTC_SIDECAR_TARGET, else the sidecar's default address."""
    return target or os.environ.get("PTC_SIDECAR_TARGET") or DEFAULT_TARGET


def channel_options(max_message_bytes: int, extra: Sequence[tuple[str, Any]]) -> list[tuple[str, Any]]:
    # A sidecar is next door: after it restarts, try to connect again at
    # least every second, not after gRPC's default backoff of up to two
    # minutes.
    options = {"grpc.max_receive_message_length": max_message_bytes,
               "grpc.max_send_message_length": max_message_bytes,
               "grpc.initial_reconnect_backoff_ms": 200,
               "grpc.max_reconnect_backoff_ms": 1000}
    options.update(dict(extra))
    return list(options.items())


@dataclass(frozen=True)
class Settings:
    """A client's settings, which every call reads."""

    target: str
    timeout: float | None
    max_retries: int

    def __post_init__(self) -> None:
        if self.timeout is not None and self.timeout <= 0:
            raise ValueError(f"timeout must be positive seconds or None (no deadline), got {self.timeout!r}")
        if self.max_retries < 0:
            raise ValueError(f"max_retries must not be negative, got {self.max_retries}")

    def call(self, method: str, timeout: float | None | NotGiven) -> "Call":
        chosen = self.timeout if timeout is NOT_GIVEN else timeout
        if chosen is not None and chosen <= 0:
            raise ValueError(f"timeout must be positive seconds or None (no deadline), got {chosen!r}")
        return Call(self, method, chosen)


class Call:
    """One call's deadline and retry count. The deadline covers the whole
    call: every RPC of a replayed evaluation, the tools' time and the
    waits between retries."""

    def __init__(self, settings: Settings, method: str, timeout: float | None):
        self.settings = settings
        self.method = method
        self.timeout = timeout
        self.started = time.monotonic()
        self.attempts = 0

    def remaining(self) -> float | None:
        """Seconds left for the next RPC (None: no deadline); raises
        DeadlineExceededError when none are."""
        if self.timeout is None:
            return None
        left = self.started + self.timeout - time.monotonic()
        if left <= 0:
            raise deadline_error(self.context())
        return left

    def context(self) -> CallContext:
        return CallContext(self.method, self.settings.target, self.timeout, self.attempts,
                           time.monotonic() - self.started)

    def progressed(self) -> None:
        """An RPC of the call succeeded: the retries start over."""
        self.attempts = 0

    def retry_delay(self, err: BaseException, closed: bool) -> float:
        """How long to wait before trying again after err; raises the
        package's error when the call should not be tried again."""
        if closed:
            raise ClientClosedError(f"{self.method}: the client was closed; open a new one") from None
        if not isinstance(err, grpc.RpcError):
            raise err
        self.attempts += 1
        if not is_retryable(err) or self.attempts > self.settings.max_retries:
            raise error_from_rpc(err, self.context()) from None
        delay = min(MAX_RETRY_DELAY, INITIAL_RETRY_DELAY * 2 ** (self.attempts - 1))
        delay *= 1 - 0.25 * random.random()  # jitter: callers that failed together retry apart
        left = None if self.timeout is None else self.started + self.timeout - time.monotonic()
        if left is not None and delay >= left:
            raise error_from_rpc(err, self.context()) from None
        log.info("%s to %s: %s; retrying in %.2f s (retry %d of %d)", self.method, self.settings.target,
                 err.code().name if hasattr(err, "code") else err, delay, self.attempts, self.settings.max_retries)
        return delay


def closed_error(method: str) -> SidecarError:
    return ClientClosedError(f"{method}: the client is closed; open a new one (or use it in a with block)")
