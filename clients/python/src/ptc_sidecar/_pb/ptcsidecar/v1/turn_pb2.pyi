from ptc_sidecar._pb.ptcsidecar.v1 import values_pb2 as _values_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from typing import ClassVar as _ClassVar, Iterable as _Iterable, Mapping as _Mapping, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class Binding(_message.Message):
    __slots__ = ["docstring", "is_fn", "name", "params", "return_type", "turn", "value"]
    DOCSTRING_FIELD_NUMBER: _ClassVar[int]
    IS_FN_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    PARAMS_FIELD_NUMBER: _ClassVar[int]
    RETURN_TYPE_FIELD_NUMBER: _ClassVar[int]
    TURN_FIELD_NUMBER: _ClassVar[int]
    VALUE_FIELD_NUMBER: _ClassVar[int]
    docstring: str
    is_fn: bool
    name: str
    params: _containers.RepeatedScalarFieldContainer[str]
    return_type: str
    turn: int
    value: _values_pb2.Value
    def __init__(self, name: _Optional[str] = ..., value: _Optional[_Union[_values_pb2.Value, _Mapping]] = ..., is_fn: bool = ..., params: _Optional[_Iterable[str]] = ..., docstring: _Optional[str] = ..., return_type: _Optional[str] = ..., turn: _Optional[int] = ...) -> None: ...

class Memory(_message.Message):
    __slots__ = ["bindings"]
    BINDINGS_FIELD_NUMBER: _ClassVar[int]
    bindings: _containers.RepeatedCompositeFieldContainer[Binding]
    def __init__(self, bindings: _Optional[_Iterable[_Union[Binding, _Mapping]]] = ...) -> None: ...

class ToolCall(_message.Message):
    __slots__ = ["args", "duration_ms", "error", "index", "name", "result"]
    ARGS_FIELD_NUMBER: _ClassVar[int]
    DURATION_MS_FIELD_NUMBER: _ClassVar[int]
    ERROR_FIELD_NUMBER: _ClassVar[int]
    INDEX_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    RESULT_FIELD_NUMBER: _ClassVar[int]
    args: _values_pb2.Value
    duration_ms: int
    error: str
    index: int
    name: str
    result: _values_pb2.Value
    def __init__(self, index: _Optional[int] = ..., name: _Optional[str] = ..., args: _Optional[_Union[_values_pb2.Value, _Mapping]] = ..., result: _Optional[_Union[_values_pb2.Value, _Mapping]] = ..., error: _Optional[str] = ..., duration_ms: _Optional[int] = ...) -> None: ...

class Turn(_message.Message):
    __slots__ = ["defined", "duration_ms", "error", "failed", "memory", "number", "prints", "program", "program_call_id", "raw_response", "result", "returned", "success", "tool_calls", "warnings"]
    DEFINED_FIELD_NUMBER: _ClassVar[int]
    DURATION_MS_FIELD_NUMBER: _ClassVar[int]
    ERROR_FIELD_NUMBER: _ClassVar[int]
    FAILED_FIELD_NUMBER: _ClassVar[int]
    MEMORY_FIELD_NUMBER: _ClassVar[int]
    NUMBER_FIELD_NUMBER: _ClassVar[int]
    PRINTS_FIELD_NUMBER: _ClassVar[int]
    PROGRAM_CALL_ID_FIELD_NUMBER: _ClassVar[int]
    PROGRAM_FIELD_NUMBER: _ClassVar[int]
    RAW_RESPONSE_FIELD_NUMBER: _ClassVar[int]
    RESULT_FIELD_NUMBER: _ClassVar[int]
    RETURNED_FIELD_NUMBER: _ClassVar[int]
    SUCCESS_FIELD_NUMBER: _ClassVar[int]
    TOOL_CALLS_FIELD_NUMBER: _ClassVar[int]
    WARNINGS_FIELD_NUMBER: _ClassVar[int]
    defined: _containers.RepeatedScalarFieldContainer[str]
    duration_ms: int
    error: TurnError
    failed: bool
    memory: Memory
    number: int
    prints: _containers.RepeatedScalarFieldContainer[str]
    program: str
    program_call_id: str
    raw_response: str
    result: _values_pb2.Value
    returned: bool
    success: bool
    tool_calls: _containers.RepeatedCompositeFieldContainer[ToolCall]
    warnings: _containers.RepeatedCompositeFieldContainer[TurnWarning]
    def __init__(self, number: _Optional[int] = ..., raw_response: _Optional[str] = ..., program: _Optional[str] = ..., result: _Optional[_Union[_values_pb2.Value, _Mapping]] = ..., prints: _Optional[_Iterable[str]] = ..., tool_calls: _Optional[_Iterable[_Union[ToolCall, _Mapping]]] = ..., memory: _Optional[_Union[Memory, _Mapping]] = ..., defined: _Optional[_Iterable[str]] = ..., success: bool = ..., error: _Optional[_Union[TurnError, _Mapping]] = ..., returned: bool = ..., failed: bool = ..., duration_ms: _Optional[int] = ..., warnings: _Optional[_Iterable[_Union[TurnWarning, _Mapping]]] = ..., program_call_id: _Optional[str] = ...) -> None: ...

class TurnError(_message.Message):
    __slots__ = ["hint", "message", "type"]
    HINT_FIELD_NUMBER: _ClassVar[int]
    MESSAGE_FIELD_NUMBER: _ClassVar[int]
    TYPE_FIELD_NUMBER: _ClassVar[int]
    hint: str
    message: str
    type: str
    def __init__(self, type: _Optional[str] = ..., message: _Optional[str] = ..., hint: _Optional[str] = ...) -> None: ...

class TurnWarning(_message.Message):
    __slots__ = ["message", "type"]
    MESSAGE_FIELD_NUMBER: _ClassVar[int]
    TYPE_FIELD_NUMBER: _ClassVar[int]
    message: str
    type: str
    def __init__(self, type: _Optional[str] = ..., message: _Optional[str] = ...) -> None: ...
