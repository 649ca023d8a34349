from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from typing import ClassVar as _ClassVar, Iterable as _Iterable, Mapping as _Mapping, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class ChatMessage(_message.Message):
    __slots__ = ["content", "name", "reasoning", "role", "sender_id", "source", "tool_call_id", "tool_calls"]
    CONTENT_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    REASONING_FIELD_NUMBER: _ClassVar[int]
    ROLE_FIELD_NUMBER: _ClassVar[int]
    SENDER_ID_FIELD_NUMBER: _ClassVar[int]
    SOURCE_FIELD_NUMBER: _ClassVar[int]
    TOOL_CALLS_FIELD_NUMBER: _ClassVar[int]
    TOOL_CALL_ID_FIELD_NUMBER: _ClassVar[int]
    content: str
    name: str
    reasoning: str
    role: str
    sender_id: str
    source: str
    tool_call_id: str
    tool_calls: _containers.RepeatedCompositeFieldContainer[ChatToolCall]
    def __init__(self, role: _Optional[str] = ..., content: _Optional[str] = ..., source: _Optional[str] = ..., sender_id: _Optional[str] = ..., tool_calls: _Optional[_Iterable[_Union[ChatToolCall, _Mapping]]] = ..., tool_call_id: _Optional[str] = ..., reasoning: _Optional[str] = ..., name: _Optional[str] = ...) -> None: ...

class ChatToolCall(_message.Message):
    __slots__ = ["arguments", "id", "name"]
    ARGUMENTS_FIELD_NUMBER: _ClassVar[int]
    ID_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    arguments: str
    id: str
    name: str
    def __init__(self, id: _Optional[str] = ..., name: _Optional[str] = ..., arguments: _Optional[str] = ...) -> None: ...
