from ptc_sidecar._pb.ptcsidecar.v1 import chat_pb2 as _chat_pb2
from ptc_sidecar._pb.ptcsidecar.v1 import compression_pb2 as _compression_pb2
from ptc_sidecar._pb.ptcsidecar.v1 import turn_pb2 as _turn_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from typing import ClassVar as _ClassVar, Iterable as _Iterable, Mapping as _Mapping, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class RenderTraceRequest(_message.Message):
    __slots__ = ["history", "memory", "options", "raw", "turns", "usage", "view"]
    HISTORY_FIELD_NUMBER: _ClassVar[int]
    MEMORY_FIELD_NUMBER: _ClassVar[int]
    OPTIONS_FIELD_NUMBER: _ClassVar[int]
    RAW_FIELD_NUMBER: _ClassVar[int]
    TURNS_FIELD_NUMBER: _ClassVar[int]
    USAGE_FIELD_NUMBER: _ClassVar[int]
    VIEW_FIELD_NUMBER: _ClassVar[int]
    history: _containers.RepeatedCompositeFieldContainer[_chat_pb2.ChatMessage]
    memory: _turn_pb2.Memory
    options: _compression_pb2.Options
    raw: bool
    turns: _containers.RepeatedCompositeFieldContainer[_turn_pb2.Turn]
    usage: bool
    view: str
    def __init__(self, turns: _Optional[_Iterable[_Union[_turn_pb2.Turn, _Mapping]]] = ..., memory: _Optional[_Union[_turn_pb2.Memory, _Mapping]] = ..., options: _Optional[_Union[_compression_pb2.Options, _Mapping]] = ..., view: _Optional[str] = ..., raw: bool = ..., usage: bool = ..., history: _Optional[_Iterable[_Union[_chat_pb2.ChatMessage, _Mapping]]] = ...) -> None: ...

class RenderTraceResponse(_message.Message):
    __slots__ = ["text"]
    TEXT_FIELD_NUMBER: _ClassVar[int]
    text: str
    def __init__(self, text: _Optional[str] = ...) -> None: ...
