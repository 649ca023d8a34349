"""The errors the package raises: one base class and a subclass per thing
a caller handles differently (fix the request, wait, give up, look at the
run).

    SidecarError
    ├── InvalidArgumentError     the request is wrong: fix the field named
    ├── ResourceExhaustedError   the sidecar is busy, or the request too large
    ├── UnavailableError         no sidecar answered, after the retries
    ├── DeadlineExceededError    the call's timeout ran out (also a TimeoutError)
    ├── ClientClosedError        a call on a closed client
    ├── RunFinishedError         a run asked for more after it ended
    └── RunFailedError           a run's result asked for when it has none
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import grpc

# The trailer in which gRPC servers send a google.rpc.Status with details.
_STATUS_DETAILS_KEY = "grpc-status-details-bin"
_BAD_REQUEST_TYPE = "type.googleapis.com/google.rpc.BadRequest"
# The sidecar's messages start with the field they are about:
# "turns[0].result.edn: parse_error ...".
_FIELD_PREFIX = re.compile(r"^([a-z_][a-z0-9_]*(?:\[\d+\])?(?:\.[a-z_][a-z0-9_]*(?:\[\d+\])?)*): ")
# grpc's refusal of a message over the receiver's size limit, which no
# retry can change.
_TOO_LARGE = re.compile(r"larger than max")


@dataclass(frozen=True)
class FieldViolation:
    """One bad field of a request: its path and what is wrong with it."""

    field: str
    description: str


class SidecarError(Exception):
    """The base of every error the package raises.

    Attributes:
        code: the gRPC status code (grpc.StatusCode) when the sidecar or
            the channel answered with one, else None.
        message: the sidecar's own message, without the advice str() adds.
        violations: every bad field the server listed (google.rpc.BadRequest
            details when it sends them, else the field its message names).
        field: the first violation's field (e.g. "data"), or None.
    """

    def __init__(self, text: str, *, code: grpc.StatusCode | None = None, message: str | None = None,
                 violations: tuple[FieldViolation, ...] = ()):
        super().__init__(text)
        self.code = code
        self.message = text if message is None else message
        self.violations = violations
        self.field: str | None = violations[0].field if violations else None


class InvalidArgumentError(SidecarError, ValueError):
    """The sidecar refused the request as malformed (INVALID_ARGUMENT):
    `violations` names each bad field; fix it and send again."""


class ResourceExhaustedError(SidecarError):
    """RESOURCE_EXHAUSTED: the sidecar was at its most evaluations at once
    through every retry, or the request is over its size limit."""


class UnavailableError(SidecarError, ConnectionError):
    """UNAVAILABLE through every retry: no sidecar answered at the target."""


class DeadlineExceededError(SidecarError, TimeoutError):
    """The call's timeout ran out. For eval_turn it covers the whole
    evaluation, the tools' time included."""


class ClientClosedError(SidecarError):
    """A call on a client after close()."""


class RunFinishedError(SidecarError):
    """next_messages() or step() on a run that has returned, failed or used
    its turns."""


class RunFailedError(SidecarError):
    """A run's result was asked for, and the run has none: its program
    called (fail ...), or it used every turn without returning.

    Attributes:
        status: "failed" or "out_of_turns".
        turn: the last Turn of the run.
    """

    def __init__(self, text: str, *, status: str, turn: object):
        super().__init__(text)
        self.status = status
        self.turn = turn


@dataclass(frozen=True)
class CallContext:
    """What the error's advice needs to know about the call that failed."""

    method: str
    target: str
    timeout: float | None
    attempts: int
    elapsed: float


def is_retryable(err: grpc.RpcError) -> bool:
    """Whether trying the same request again may succeed: the sidecar was
    unreachable or busy. Every RPC of the sidecar is pure, so a retry
    repeats no effect; a request over the size limit fails the same way
    every time."""
    code = _code(err)
    if code == grpc.StatusCode.UNAVAILABLE:
        return True
    return code == grpc.StatusCode.RESOURCE_EXHAUSTED and not _TOO_LARGE.search(_details(err))


def error_from_rpc(err: grpc.RpcError, ctx: CallContext) -> SidecarError:
    """The package's error for what grpc raised, with advice on what to do."""
    code = _code(err)
    details = _details(err)
    violations = _violations(err, details)
    if code == grpc.StatusCode.INVALID_ARGUMENT:
        listed = "; ".join(f"{v.field}: {v.description}" for v in violations[1:])
        text = f"INVALID_ARGUMENT: {details}" + (f" (also {listed})" if listed else "")
        return InvalidArgumentError(text, code=code, message=details, violations=violations)
    if code == grpc.StatusCode.DEADLINE_EXCEEDED:
        return deadline_error(ctx, details)
    tries = f"{ctx.attempts} attempt{'s' if ctx.attempts != 1 else ''} over {ctx.elapsed:.1f} s"
    if code == grpc.StatusCode.UNAVAILABLE:
        text = (f"UNAVAILABLE: {details} ({ctx.method} to {ctx.target}, {tries}): check that the sidecar runs "
                "there (ptc-sidecar serve), or raise max_retries to wait longer through a restart")
        return UnavailableError(text, code=code, message=details, violations=violations)
    if code == grpc.StatusCode.RESOURCE_EXHAUSTED:
        if _TOO_LARGE.search(details):
            advice = ("the request is larger than the sidecar accepts (its --max-recv-bytes): send fewer turns, "
                      "a shorter history or smaller data")
        else:
            advice = (f"still busy after {tries}: run fewer evaluations at once, raise max_retries, or give the "
                      "sidecar more --max-concurrent-evals")
        return ResourceExhaustedError(f"RESOURCE_EXHAUSTED: {details}; {advice}", code=code, message=details,
                                      violations=violations)
    name = code.name if code is not None else "UNKNOWN"
    return SidecarError(f"{name}: {details} ({ctx.method})", code=code, message=details, violations=violations)


def deadline_error(ctx: CallContext, details: str = "") -> DeadlineExceededError:
    """The error of a call whose timeout ran out, on the server or here."""
    what = "the evaluation, its tools' time included," if ctx.method.startswith("EvalTurn") else ctx.method
    text = (f"DEADLINE_EXCEEDED: {what} did not finish within the timeout of {ctx.timeout:g} s; "
            "pass a longer timeout= to the call or the client")
    if details and details != "Deadline Exceeded":
        text += f" ({details})"
    return DeadlineExceededError(text, code=grpc.StatusCode.DEADLINE_EXCEEDED, message=details or "deadline exceeded")


def _code(err: grpc.RpcError) -> grpc.StatusCode | None:
    return err.code() if hasattr(err, "code") else None


def _details(err: grpc.RpcError) -> str:
    return (err.details() if hasattr(err, "details") else None) or str(err)


def _violations(err: grpc.RpcError, details: str) -> tuple[FieldViolation, ...]:
    violations: tuple[FieldViolation, ...] = ()
    trailers = err.trailing_metadata() if hasattr(err, "trailing_metadata") else None
    for key, value in trailers or ():
        if key == _STATUS_DETAILS_KEY and isinstance(value, bytes):
            violations = bad_request_violations(value)
    if not violations:
        match = _FIELD_PREFIX.match(details)
        if match:
            violations = (FieldViolation(match.group(1), details[match.end():]),)
    return violations


def bad_request_violations(status: bytes) -> tuple[FieldViolation, ...]:
    """The field violations of the google.rpc.BadRequest details in a
    serialized google.rpc.Status; none when it holds no BadRequest or does
    not parse.

    The google.rpc messages are not part of protobuf's runtime, and they
    are small and frozen, so their three levels are read here from the wire
    format (Status.details = 3, Any.type_url = 1, Any.value = 2,
    BadRequest.field_violations = 1, FieldViolation.field = 1,
    FieldViolation.description = 2) rather than adding a dependency.
    """
    out = []
    try:
        for number, detail in _fields(status):
            if number != 3 or not isinstance(detail, bytes):
                continue
            any_fields = dict(_fields(detail))
            if any_fields.get(1) != _BAD_REQUEST_TYPE.encode():
                continue
            for vnumber, violation in _fields(any_fields.get(2, b"")):
                if vnumber == 1 and isinstance(violation, bytes):
                    parts = dict(_fields(violation))
                    out.append(FieldViolation(parts.get(1, b"").decode(), parts.get(2, b"").decode()))
    except (ValueError, UnicodeDecodeError):
        return ()
    return tuple(out)


def _fields(buf: bytes):
    """Yields (field number, value) of one protobuf message: ints for
    varints, bytes for length-delimited fields, fixed-width fields skipped."""
    i = 0
    while i < len(buf):
        key, i = _varint(buf, i)
        number, wire_type = key >> 3, key & 7
        if wire_type == 0:
            value, i = _varint(buf, i)
            yield number, value
        elif wire_type == 2:
            size, i = _varint(buf, i)
            if i + size > len(buf):
                raise ValueError("truncated field")
            yield number, buf[i:i + size]
            i += size
        elif wire_type in (1, 5):
            i += 8 if wire_type == 1 else 4
        else:
            raise ValueError(f"wire type {wire_type}")


def _varint(buf: bytes, i: int) -> tuple[int, int]:
    value = shift = 0
    while True:
        if i >= len(buf) or shift > 63:
            raise ValueError("bad varint")
        b = buf[i]
        i += 1
        value |= (b & 0x7F) << shift
        shift += 7
        if b < 0x80:
            return value, i
