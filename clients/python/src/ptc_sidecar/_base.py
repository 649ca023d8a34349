"""What Client and AsyncClient share: settings, deadlines and retries."""

from __future__ import annotations

import enum
import hashlib
import ipaddress
import json
import os
import random
import socket
import threading
import time
from dataclasses import dataclass
from typing import Any, Callable, Sequence

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


BALANCINGS = ("by_run", "round_robin")


def resolve_target(target: str | Sequence[str] | None) -> str:
    """The gRPC target of target, else of $PTC_SIDECAR_TARGET, else the
    sidecar's default address. A sequence of "ip:port" addresses (a pool's
    replicas) becomes gRPC's ipv4:/ipv6: list; a string is taken as it is
    ("host:port", "dns:///name:port", "ipv4:a:1,b:2", ...)."""
    if target is not None and not isinstance(target, str):
        return address_list(list(target))
    return target or os.environ.get("PTC_SIDECAR_TARGET") or DEFAULT_TARGET


def address_list(addresses: list[str]) -> str:
    if not addresses or not all(isinstance(a, str) for a in addresses):
        raise ValueError(f"target: want a 'host:port' string or a non-empty list of 'ip:port' strings, got {addresses!r}")
    families = set()
    for a in addresses:
        host, sep, port = a.rpartition(":")
        try:
            ip = ipaddress.ip_address(host.strip("[]"))
        except ValueError:
            raise ValueError(f"target: {a!r} in the list is not an ip:port address; for a name whose addresses "
                             "are the replicas (a headless Service) pass 'dns:///name:port' instead") from None
        if not sep or not port.isdigit():
            raise ValueError(f"target: {a!r} in the list has no port")
        families.add(ip.version)
    if len(families) > 1:
        raise ValueError(f"target: the list mixes IPv4 and IPv6 addresses: {addresses!r}")
    return f"ipv{families.pop()}:" + ",".join(addresses)


def names_a_pool(target: str) -> bool:
    """Whether target may name several replicas: a list or a dns:/// name."""
    return target.startswith("dns:") or (target.startswith(("ipv4:", "ipv6:")) and "," in target)


def check_balancing(balancing: str) -> str:
    if balancing not in BALANCINGS:
        raise ValueError(f"balancing must be one of {', '.join(BALANCINGS)}, got {balancing!r}")
    return balancing


# The sidecar's unary methods: gRPC itself tries one again, on another
# replica, when it failed UNAVAILABLE (a replica went away); every call is
# pure, so that repeats no effect. The client's own retries (Call) back
# this up with longer waits, for a sidecar restarting in its pod.
_SERVICE = "ptcsidecar.v1.SidecarService"
_RETRY = {"maxAttempts": 3, "initialBackoff": "0.05s", "maxBackoff": "0.5s", "backoffMultiplier": 2,
          "retryableStatusCodes": ["UNAVAILABLE"]}


def service_config(policy: str, retries: bool) -> str:
    config: dict[str, Any] = {"loadBalancingConfig": [{policy: {}}]}
    if retries:  # max_retries=0 turns gRPC's retries off as well as the client's
        config["methodConfig"] = [{
            "name": [{"service": _SERVICE, "method": m} for m in ("EvalTurn", "ToMessages", "ListStrategies")],
            "retryPolicy": _RETRY}]
    return json.dumps(config)


def channel_options(max_message_bytes: int, extra: Sequence[tuple[str, Any]],
                    policy: str = "round_robin", retries: bool = True) -> list[tuple[str, Any]]:
    # A sidecar is next door: after it restarts, try to connect again at
    # least every second, not after gRPC's default backoff of up to two
    # minutes. round_robin spreads calls over every address the target
    # resolves to (one, for a sidecar in the pod; the replicas, for a pool).
    options = {"grpc.max_receive_message_length": max_message_bytes,
               "grpc.max_send_message_length": max_message_bytes,
               "grpc.initial_reconnect_backoff_ms": 200,
               "grpc.max_reconnect_backoff_ms": 1000,
               "grpc.enable_retries": 1,
               "grpc.service_config_disable_resolution": 1,
               "grpc.service_config": service_config(policy, retries)}
    options.update(dict(extra))
    return list(options.items())


# How often Pins looks a dns:/// name up again when nothing failed.
RESOLVE_EVERY = 30.0


class Pins:
    """Which replica a run's calls go to when balancing is "by_run": each
    replica remembers what it has read, so a run kept on one replica is
    read once rather than once per replica (docs/BENCHMARKS.md, "A pool
    of replicas"). A run's id ranks the addresses by rendezvous hashing:
    the first is its replica, the next ones where its calls go when that
    one is gone, so that the loss of a replica spreads its runs over the
    others and a new replica takes runs only from the others' share.

    The addresses are the target's list, or what its dns:/// name resolves
    to, looked up again after a run's replica failed (at most once a
    second) and every RESOLVE_EVERY seconds, to see the pool grow. Pins
    also holds the channels the client opened for the rankings. A target of one address pins nothing: target_for is None and
    calls use the client's round-robin channel."""

    def __init__(self, target: str):
        self._target = target
        self._lock = threading.Lock()
        self._addresses: list[str] = []
        self._resolved = 0.0
        self._stale = True
        # Counts the changes of the addresses: a channel made for a ranking
        # of older ones is not used again.
        self.generation = 0
        self._made: dict[str, Any] = {}  # by target: what the client opened for it
        self._made_generation = 0
        self._closed = False

    def made_for(self, key: str | None, open_channel: Callable[[str, str], Any]) -> Any:
        """What open_channel(target, "pick_first") made for the run with id
        key, made once per target; None when the call goes round-robin (or
        the client is closed). When the addresses changed, the channels made
        for the old ones are let go: each closes once the last call using
        it lets go of it (a call holds its channel), and a run's next call
        opens one for the new addresses, on the connections gRPC already
        has."""
        target = self.target_for(key)
        with self._lock:
            if target is None or self._closed:
                return None
            if self._made_generation != self.generation:
                self._made, self._made_generation = {}, self.generation
            if target not in self._made:
                self._made[target] = open_channel(target, "pick_first")
            return self._made[target]

    def close(self) -> list[Any]:
        """What was made, for the client to close; nothing is made after."""
        with self._lock:
            self._closed = True
            return list(self._made.values())

    def target_for(self, key: str | None) -> str | None:
        """The gRPC target (pick_first over the run's ranking) of the run
        with id key; None for the round-robin channel."""
        if key is None:
            return None
        addresses = self._current()
        if len(addresses) < 2:
            return None
        ranked = sorted(addresses, key=lambda a: hashlib.blake2b(f"{key}\0{a}".encode(), digest_size=8).digest(),
                        reverse=True)
        # Runs ranking the same two first share a channel: the rest of the
        # order only matters once two replicas are gone.
        head = ranked[:2]
        rest = [a for a in addresses if a not in head]
        family = "ipv6" if ":" in ranked[0].rpartition(":")[0] else "ipv4"
        return f"{family}:" + ",".join(head + rest)

    def failed(self) -> None:
        """A run's replica failed UNAVAILABLE: resolve the name again."""
        with self._lock:
            self._stale = True

    def _current(self) -> list[str]:
        with self._lock:
            since = time.monotonic() - self._resolved
            if (self._stale and since >= 1.0) or since >= RESOLVE_EVERY:
                self._resolved = time.monotonic()
                try:
                    addresses = pool_addresses(self._target)
                    self._stale = False
                    if addresses != self._addresses:
                        self._addresses = addresses
                        self.generation += 1
                except OSError:
                    pass  # the name did not resolve: keep the last addresses
            return self._addresses


def pool_addresses(target: str) -> list[str]:
    """The replicas' "ip:port" addresses a target names: an ipv4:/ipv6:
    list's, or a dns:///name:port's as resolved now; [] for anything else
    (one address, a Unix socket, another resolver)."""
    for scheme in ("ipv4:", "ipv6:"):
        if target.startswith(scheme):
            return [a for a in target[len(scheme):].split(",") if a]
    if not target.startswith("dns:"):
        return []
    host_port = target[len("dns:"):].lstrip("/")
    if "/" in host_port:  # dns://authority/name: the authority is gRPC's to use
        host_port = host_port.split("/", 1)[1]
    host, _, port = host_port.rpartition(":")
    if not host or not port.isdigit():
        return []
    host = host.strip("[]")
    infos = socket.getaddrinfo(host, int(port), type=socket.SOCK_STREAM)
    # One family, as one ipv4:/ipv6: target holds: IPv4 when there is any.
    v4 = sorted({f"{s[0]}:{s[1]}" for f, _, _, _, s in infos if f == socket.AF_INET})
    return v4 or sorted({f"[{s[0]}]:{s[1]}" for f, _, _, _, s in infos if f == socket.AF_INET6})


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

    def call(self, method: str, timeout: float | None | NotGiven, key: str | None = None) -> "Call":
        """key is the id of the run the call is for, None outside a run."""
        chosen = self.timeout if timeout is NOT_GIVEN else timeout
        if chosen is not None and chosen <= 0:
            raise ValueError(f"timeout must be positive seconds or None (no deadline), got {chosen!r}")
        return Call(self, method, chosen, key)


class Call:
    """One call's deadline and retry count. The deadline covers the whole
    call: every RPC of a replayed evaluation, the tools' time and the
    waits between retries."""

    def __init__(self, settings: Settings, method: str, timeout: float | None, key: str | None = None):
        self.settings = settings
        self.method = method
        self.timeout = timeout
        self.key = key
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
