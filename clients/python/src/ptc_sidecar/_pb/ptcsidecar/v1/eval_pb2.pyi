from ptc_sidecar._pb.ptcsidecar.v1 import chat_pb2 as _chat_pb2
from ptc_sidecar._pb.ptcsidecar.v1 import turn_pb2 as _turn_pb2
from ptc_sidecar._pb.ptcsidecar.v1 import values_pb2 as _values_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from typing import ClassVar as _ClassVar, Iterable as _Iterable, Mapping as _Mapping, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class EvalTurnRequest(_message.Message):
    __slots__ = ["data", "limits", "prelude", "previous_results", "program", "program_call", "raw_response", "tool_results", "tools", "turn_number"]
    DATA_FIELD_NUMBER: _ClassVar[int]
    LIMITS_FIELD_NUMBER: _ClassVar[int]
    PRELUDE_FIELD_NUMBER: _ClassVar[int]
    PREVIOUS_RESULTS_FIELD_NUMBER: _ClassVar[int]
    PROGRAM_CALL_FIELD_NUMBER: _ClassVar[int]
    PROGRAM_FIELD_NUMBER: _ClassVar[int]
    RAW_RESPONSE_FIELD_NUMBER: _ClassVar[int]
    TOOLS_FIELD_NUMBER: _ClassVar[int]
    TOOL_RESULTS_FIELD_NUMBER: _ClassVar[int]
    TURN_NUMBER_FIELD_NUMBER: _ClassVar[int]
    data: _values_pb2.Value
    limits: Limits
    prelude: _turn_pb2.Memory
    previous_results: _containers.RepeatedCompositeFieldContainer[_values_pb2.Value]
    program: str
    program_call: _chat_pb2.ChatToolCall
    raw_response: str
    tool_results: _containers.RepeatedCompositeFieldContainer[ToolResult]
    tools: _containers.RepeatedCompositeFieldContainer[_values_pb2.ToolSpec]
    turn_number: int
    def __init__(self, program: _Optional[str] = ..., raw_response: _Optional[str] = ..., prelude: _Optional[_Union[_turn_pb2.Memory, _Mapping]] = ..., data: _Optional[_Union[_values_pb2.Value, _Mapping]] = ..., tools: _Optional[_Iterable[_Union[_values_pb2.ToolSpec, _Mapping]]] = ..., turn_number: _Optional[int] = ..., limits: _Optional[_Union[Limits, _Mapping]] = ..., tool_results: _Optional[_Iterable[_Union[ToolResult, _Mapping]]] = ..., previous_results: _Optional[_Iterable[_Union[_values_pb2.Value, _Mapping]]] = ..., program_call: _Optional[_Union[_chat_pb2.ChatToolCall, _Mapping]] = ...) -> None: ...

class EvalTurnResponse(_message.Message):
    __slots__ = ["pending", "turn"]
    PENDING_FIELD_NUMBER: _ClassVar[int]
    TURN_FIELD_NUMBER: _ClassVar[int]
    pending: PendingToolCalls
    turn: _turn_pb2.Turn
    def __init__(self, turn: _Optional[_Union[_turn_pb2.Turn, _Mapping]] = ..., pending: _Optional[_Union[PendingToolCalls, _Mapping]] = ...) -> None: ...

class EvalTurnStreamRequest(_message.Message):
    __slots__ = ["start", "tool_result"]
    START_FIELD_NUMBER: _ClassVar[int]
    TOOL_RESULT_FIELD_NUMBER: _ClassVar[int]
    start: EvalTurnRequest
    tool_result: ToolResult
    def __init__(self, start: _Optional[_Union[EvalTurnRequest, _Mapping]] = ..., tool_result: _Optional[_Union[ToolResult, _Mapping]] = ...) -> None: ...

class EvalTurnStreamResponse(_message.Message):
    __slots__ = ["tool_call", "turn"]
    TOOL_CALL_FIELD_NUMBER: _ClassVar[int]
    TURN_FIELD_NUMBER: _ClassVar[int]
    tool_call: _turn_pb2.ToolCall
    turn: _turn_pb2.Turn
    def __init__(self, tool_call: _Optional[_Union[_turn_pb2.ToolCall, _Mapping]] = ..., turn: _Optional[_Union[_turn_pb2.Turn, _Mapping]] = ...) -> None: ...

class Limits(_message.Message):
    __slots__ = ["max_alloc_bytes", "max_depth", "max_emit_bytes", "max_output_bytes", "max_steps", "max_tool_calls", "timeout_ms", "tool_timeout_ms"]
    MAX_ALLOC_BYTES_FIELD_NUMBER: _ClassVar[int]
    MAX_DEPTH_FIELD_NUMBER: _ClassVar[int]
    MAX_EMIT_BYTES_FIELD_NUMBER: _ClassVar[int]
    MAX_OUTPUT_BYTES_FIELD_NUMBER: _ClassVar[int]
    MAX_STEPS_FIELD_NUMBER: _ClassVar[int]
    MAX_TOOL_CALLS_FIELD_NUMBER: _ClassVar[int]
    TIMEOUT_MS_FIELD_NUMBER: _ClassVar[int]
    TOOL_TIMEOUT_MS_FIELD_NUMBER: _ClassVar[int]
    max_alloc_bytes: int
    max_depth: int
    max_emit_bytes: int
    max_output_bytes: int
    max_steps: int
    max_tool_calls: int
    timeout_ms: int
    tool_timeout_ms: int
    def __init__(self, max_steps: _Optional[int] = ..., max_alloc_bytes: _Optional[int] = ..., max_depth: _Optional[int] = ..., max_output_bytes: _Optional[int] = ..., max_tool_calls: _Optional[int] = ..., timeout_ms: _Optional[int] = ..., max_emit_bytes: _Optional[int] = ..., tool_timeout_ms: _Optional[int] = ...) -> None: ...

class PendingToolCalls(_message.Message):
    __slots__ = ["calls"]
    CALLS_FIELD_NUMBER: _ClassVar[int]
    calls: _containers.RepeatedCompositeFieldContainer[_turn_pb2.ToolCall]
    def __init__(self, calls: _Optional[_Iterable[_Union[_turn_pb2.ToolCall, _Mapping]]] = ...) -> None: ...

class ToolResult(_message.Message):
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
