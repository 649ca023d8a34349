from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from typing import ClassVar as _ClassVar, Optional as _Optional

DESCRIPTOR: _descriptor.FileDescriptor

class ToolSpec(_message.Message):
    __slots__ = ["description", "name", "signature"]
    DESCRIPTION_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    SIGNATURE_FIELD_NUMBER: _ClassVar[int]
    description: str
    name: str
    signature: str
    def __init__(self, name: _Optional[str] = ..., signature: _Optional[str] = ..., description: _Optional[str] = ...) -> None: ...

class Value(_message.Message):
    __slots__ = ["edn", "json"]
    EDN_FIELD_NUMBER: _ClassVar[int]
    JSON_FIELD_NUMBER: _ClassVar[int]
    edn: str
    json: str
    def __init__(self, edn: _Optional[str] = ..., json: _Optional[str] = ...) -> None: ...
