"""The exception every failed call raises, with the field it names."""

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


@dataclass(frozen=True)
class FieldViolation:
    """One bad field of a request: its path and what is wrong with it."""

    field: str
    description: str


class SidecarError(Exception):
    """A call the sidecar refused or could not complete.

    Attributes:
        code: the gRPC status code, e.g. grpc.StatusCode.INVALID_ARGUMENT.
        message: the server's message.
        field: the request field the error is about (e.g. "data.json"),
            or None when it names none.
        violations: every bad field the server listed (google.rpc.BadRequest
            details when it sends them, else the field its message names).
    """

    def __init__(self, code: grpc.StatusCode, message: str, violations: tuple[FieldViolation, ...] = ()):
        super().__init__(f"{code.name}: {message}")
        self.code = code
        self.message = message
        self.violations = violations
        self.field: str | None = violations[0].field if violations else None

    @classmethod
    def from_rpc_error(cls, err: grpc.RpcError) -> "SidecarError":
        """Builds the error from what grpc raised."""
        code = err.code() if hasattr(err, "code") else grpc.StatusCode.UNKNOWN
        message = (err.details() if hasattr(err, "details") else None) or str(err)
        violations: tuple[FieldViolation, ...] = ()
        trailers = err.trailing_metadata() if hasattr(err, "trailing_metadata") else None
        for key, value in trailers or ():
            if key == _STATUS_DETAILS_KEY and isinstance(value, bytes):
                violations = bad_request_violations(value)
        if not violations:
            match = _FIELD_PREFIX.match(message)
            if match:
                violations = (FieldViolation(match.group(1), message[match.end():]),)
        return cls(code, message, violations)


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
