"""Values between Python and the sidecar's wire Value (docs/VALUES.md)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from ptc_sidecar._pb.ptcsidecar.v1 import values_pb2


@dataclass(frozen=True)
class EDN:
    """A value that has no JSON form, kept as its PTC-Lisp (EDN) text.

    The sidecar sends a JSON form next to the EDN whenever the value has a
    faithful one; a function, a regex, NaN or infinity, or a map with a key
    that is neither a string nor a keyword has none. Such a value arrives as
    an EDN object instead of a guess. Passing an EDN object as data or as a
    tool's result sends the text as it is.
    """

    text: str

    def __str__(self) -> str:
        return self.text


def from_wire(value: values_pb2.Value) -> Any:
    """The native form of a wire value: its JSON read by the json module,
    an EDN object when it has no JSON form, None when it is absent."""
    if value.json:
        return json.loads(value.json)
    if value.edn:
        return EDN(value.edn)
    return None


def to_wire(value: Any) -> values_pb2.Value:
    """A native value as a wire Value: EDN objects as their text, anything
    else as JSON. Sets and tuples go as arrays.

    Raises ValueError for what JSON cannot carry (NaN, infinity, other
    objects), TypeError for objects json cannot write.
    """
    if isinstance(value, EDN):
        return values_pb2.Value(edn=value.text)
    return values_pb2.Value(json=json.dumps(value, allow_nan=False, default=_json_default,
                                            ensure_ascii=False, separators=(",", ":")))


def _json_default(value: Any) -> Any:
    if isinstance(value, (set, frozenset)):
        return list(value)
    raise TypeError(f"a {type(value).__name__} has no JSON form")
