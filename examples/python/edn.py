"""A small reader for the EDN text that ptc-sidecar emits.

The sidecar always sends values (tool arguments, turn results, memory) as
EDN, PTC-Lisp's literal syntax. Callers may answer in JSON, so only this
direction needs a parser. It reads what the sidecar prints: nil, booleans,
integers, floats (including ##Inf, ##-Inf and ##NaN), strings, keywords,
symbols, vectors, lists, maps and sets.

Keywords read as Keyword, a str subclass, so a map {:product-id "p1"} can
be indexed with args["product-id"] while still printing as :product-id.
"""

import math

__all__ = ["Keyword", "Symbol", "loads"]


class Keyword(str):
    """An EDN keyword, :name. Equal to, and hashed as, the plain string name."""

    def __repr__(self):
        return ":" + self


class Symbol(str):
    """An EDN symbol, as found in the source of a function held in memory."""


_ESCAPES = {'"': '"', "\\": "\\", "n": "\n", "t": "\t", "r": "\r"}
_DELIMITERS = set("()[]{}\"")
_SPECIAL_FLOATS = {"##Inf": math.inf, "##-Inf": -math.inf, "##NaN": math.nan}


def loads(text):
    """Returns the Python value of one EDN value.

    Maps become dicts, vectors and lists become lists, sets become
    frozensets. Raises ValueError on text that is not one EDN value.
    """
    reader = _Reader(text)
    value = reader.value()
    reader.skip_space()
    if reader.pos != len(text):
        raise ValueError(f"EDN: unexpected text at offset {reader.pos}: {text[reader.pos:reader.pos + 20]!r}")
    return value


class _Reader:
    def __init__(self, text):
        self.text = text
        self.pos = 0

    def skip_space(self):
        text = self.text
        while self.pos < len(text) and (text[self.pos].isspace() or text[self.pos] == ","):
            self.pos += 1

    def value(self):
        self.skip_space()
        if self.pos >= len(self.text):
            raise ValueError("EDN: unexpected end of text")
        c = self.text[self.pos]
        if c == '"':
            return self.string()
        if c == "[":
            return self.sequence("]")
        if c == "(":
            return self.sequence(")")
        if c == "{":
            items = self.sequence("}")
            if len(items) % 2:
                raise ValueError("EDN: a map needs an even number of forms")
            return {_hashable(items[i]): items[i + 1] for i in range(0, len(items), 2)}
        if self.text.startswith("#{", self.pos):
            self.pos += 1
            return frozenset(_hashable(v) for v in self.sequence("}"))
        return self.atom()

    def sequence(self, close):
        self.pos += 1  # the opening bracket
        items = []
        while True:
            self.skip_space()
            if self.pos >= len(self.text):
                raise ValueError(f"EDN: missing {close!r}")
            if self.text[self.pos] == close:
                self.pos += 1
                return items
            items.append(self.value())

    def string(self):
        out = []
        self.pos += 1  # the opening quote
        text = self.text
        while self.pos < len(text):
            c = text[self.pos]
            self.pos += 1
            if c == '"':
                return "".join(out)
            if c == "\\":
                if self.pos >= len(text) or text[self.pos] not in _ESCAPES:
                    raise ValueError(f"EDN: bad escape at offset {self.pos - 1}")
                out.append(_ESCAPES[text[self.pos]])
                self.pos += 1
            else:
                out.append(c)
        raise ValueError("EDN: unterminated string")

    def atom(self):
        start = self.pos
        text = self.text
        while self.pos < len(text) and not text[self.pos].isspace() and text[self.pos] not in _DELIMITERS and text[self.pos] != ",":
            self.pos += 1
        token = text[start:self.pos]
        if token == "":
            raise ValueError(f"EDN: unexpected {text[start]!r} at offset {start}")
        if token == "nil":
            return None
        if token in ("true", "false"):
            return token == "true"
        if token in _SPECIAL_FLOATS:
            return _SPECIAL_FLOATS[token]
        if token.startswith(":"):
            return Keyword(token[1:])
        if token[0].isdigit() or (token[0] in "+-" and token[1:2].isdigit()):
            try:
                return int(token)
            except ValueError:
                return float(token)  # also reads Java's 1.0E7
        return Symbol(token)


def _hashable(value):
    """Map keys and set elements must hash: collections become tuples."""
    if isinstance(value, list):
        return tuple(_hashable(v) for v in value)
    if isinstance(value, dict):
        return tuple((k, _hashable(v)) for k, v in value.items())
    return value
