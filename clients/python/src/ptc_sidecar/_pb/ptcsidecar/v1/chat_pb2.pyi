from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from typing import ClassVar as _ClassVar, Iterable as _Iterable, Mapping as _Mapping, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class ChatMessage(_message.Message):
    __slots__ = ["content", "name", "parts", "reasoning", "role", "sender_id", "source", "tool_call_id", "tool_calls"]
    CONTENT_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    PARTS_FIELD_NUMBER: _ClassVar[int]
    REASONING_FIELD_NUMBER: _ClassVar[int]
    ROLE_FIELD_NUMBER: _ClassVar[int]
    SENDER_ID_FIELD_NUMBER: _ClassVar[int]
    SOURCE_FIELD_NUMBER: _ClassVar[int]
    TOOL_CALLS_FIELD_NUMBER: _ClassVar[int]
    TOOL_CALL_ID_FIELD_NUMBER: _ClassVar[int]
    content: str
    name: str
    parts: _containers.RepeatedCompositeFieldContainer[ContentPart]
    reasoning: str
    role: str
    sender_id: str
    source: str
    tool_call_id: str
    tool_calls: _containers.RepeatedCompositeFieldContainer[ChatToolCall]
    def __init__(self, role: _Optional[str] = ..., content: _Optional[str] = ..., source: _Optional[str] = ..., sender_id: _Optional[str] = ..., tool_calls: _Optional[_Iterable[_Union[ChatToolCall, _Mapping]]] = ..., tool_call_id: _Optional[str] = ..., reasoning: _Optional[str] = ..., name: _Optional[str] = ..., parts: _Optional[_Iterable[_Union[ContentPart, _Mapping]]] = ...) -> None: ...

class ChatToolCall(_message.Message):
    __slots__ = ["arguments", "id", "name"]
    ARGUMENTS_FIELD_NUMBER: _ClassVar[int]
    ID_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    arguments: str
    id: str
    name: str
    def __init__(self, id: _Optional[str] = ..., name: _Optional[str] = ..., arguments: _Optional[str] = ...) -> None: ...

class ContentPart(_message.Message):
    __slots__ = ["data", "detail", "duration_ms", "file_id", "height", "media_type", "pages", "provider_json", "signature", "text", "type", "url", "width"]
    DATA_FIELD_NUMBER: _ClassVar[int]
    DETAIL_FIELD_NUMBER: _ClassVar[int]
    DURATION_MS_FIELD_NUMBER: _ClassVar[int]
    FILE_ID_FIELD_NUMBER: _ClassVar[int]
    HEIGHT_FIELD_NUMBER: _ClassVar[int]
    MEDIA_TYPE_FIELD_NUMBER: _ClassVar[int]
    PAGES_FIELD_NUMBER: _ClassVar[int]
    PROVIDER_JSON_FIELD_NUMBER: _ClassVar[int]
    SIGNATURE_FIELD_NUMBER: _ClassVar[int]
    TEXT_FIELD_NUMBER: _ClassVar[int]
    TYPE_FIELD_NUMBER: _ClassVar[int]
    URL_FIELD_NUMBER: _ClassVar[int]
    WIDTH_FIELD_NUMBER: _ClassVar[int]
    data: str
    detail: str
    duration_ms: int
    file_id: str
    height: int
    media_type: str
    pages: int
    provider_json: str
    signature: str
    text: str
    type: str
    url: str
    width: int
    def __init__(self, type: _Optional[str] = ..., text: _Optional[str] = ..., signature: _Optional[str] = ..., data: _Optional[str] = ..., media_type: _Optional[str] = ..., url: _Optional[str] = ..., file_id: _Optional[str] = ..., width: _Optional[int] = ..., height: _Optional[int] = ..., detail: _Optional[str] = ..., pages: _Optional[int] = ..., duration_ms: _Optional[int] = ..., provider_json: _Optional[str] = ...) -> None: ...
