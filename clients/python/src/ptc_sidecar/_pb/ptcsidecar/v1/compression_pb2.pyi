from ptc_sidecar._pb.ptcsidecar.v1 import chat_pb2 as _chat_pb2
from ptc_sidecar._pb.ptcsidecar.v1 import turn_pb2 as _turn_pb2
from ptc_sidecar._pb.ptcsidecar.v1 import values_pb2 as _values_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from typing import ClassVar as _ClassVar, Iterable as _Iterable, Mapping as _Mapping, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class CacheBreakpoint(_message.Message):
    __slots__ = ["message_index", "offset"]
    MESSAGE_INDEX_FIELD_NUMBER: _ClassVar[int]
    OFFSET_FIELD_NUMBER: _ClassVar[int]
    message_index: int
    offset: int
    def __init__(self, message_index: _Optional[int] = ..., offset: _Optional[int] = ...) -> None: ...

class CompressionStats(_message.Message):
    __slots__ = ["billed_tokens", "cache_breakpoint", "cache_write_tokens", "chars_after", "chars_before", "compaction_replaced", "context_window", "error_turns_collapsed", "greetings_dropped", "messages_after", "messages_before", "messages_dropped", "messages_repaired", "messages_summarized", "min_cacheable_tokens", "model", "next_cache_breakpoint", "nudges_exhausted", "part_tokens", "parts_estimated", "pricing", "printlns_dropped", "printlns_shown", "printlns_total", "program_tool", "prompt_source", "prompts_led", "provider", "stable_prefix_known", "stable_prefix_note", "stable_prefix_tokens", "stable_prefix_uncached", "strategy", "summary_request_prefix_tokens", "summary_request_tokens", "summary_requested", "summary_tokens", "synthetic_nudge", "task_pinned", "thinking_cleared", "thinking_tokens_cleared", "tokenizer", "tokens_after", "tokens_before", "tokens_cleared", "tokens_dropped", "tool_call_ids_rewritten", "tool_calls_dropped", "tool_calls_shown", "tool_calls_total", "tool_loops_dropped", "tool_uses_cleared", "turns_compressed", "uncached_tokens", "units_noted"]
    BILLED_TOKENS_FIELD_NUMBER: _ClassVar[int]
    CACHE_BREAKPOINT_FIELD_NUMBER: _ClassVar[int]
    CACHE_WRITE_TOKENS_FIELD_NUMBER: _ClassVar[int]
    CHARS_AFTER_FIELD_NUMBER: _ClassVar[int]
    CHARS_BEFORE_FIELD_NUMBER: _ClassVar[int]
    COMPACTION_REPLACED_FIELD_NUMBER: _ClassVar[int]
    CONTEXT_WINDOW_FIELD_NUMBER: _ClassVar[int]
    ERROR_TURNS_COLLAPSED_FIELD_NUMBER: _ClassVar[int]
    GREETINGS_DROPPED_FIELD_NUMBER: _ClassVar[int]
    MESSAGES_AFTER_FIELD_NUMBER: _ClassVar[int]
    MESSAGES_BEFORE_FIELD_NUMBER: _ClassVar[int]
    MESSAGES_DROPPED_FIELD_NUMBER: _ClassVar[int]
    MESSAGES_REPAIRED_FIELD_NUMBER: _ClassVar[int]
    MESSAGES_SUMMARIZED_FIELD_NUMBER: _ClassVar[int]
    MIN_CACHEABLE_TOKENS_FIELD_NUMBER: _ClassVar[int]
    MODEL_FIELD_NUMBER: _ClassVar[int]
    NEXT_CACHE_BREAKPOINT_FIELD_NUMBER: _ClassVar[int]
    NUDGES_EXHAUSTED_FIELD_NUMBER: _ClassVar[int]
    PARTS_ESTIMATED_FIELD_NUMBER: _ClassVar[int]
    PART_TOKENS_FIELD_NUMBER: _ClassVar[int]
    PRICING_FIELD_NUMBER: _ClassVar[int]
    PRINTLNS_DROPPED_FIELD_NUMBER: _ClassVar[int]
    PRINTLNS_SHOWN_FIELD_NUMBER: _ClassVar[int]
    PRINTLNS_TOTAL_FIELD_NUMBER: _ClassVar[int]
    PROGRAM_TOOL_FIELD_NUMBER: _ClassVar[int]
    PROMPTS_LED_FIELD_NUMBER: _ClassVar[int]
    PROMPT_SOURCE_FIELD_NUMBER: _ClassVar[int]
    PROVIDER_FIELD_NUMBER: _ClassVar[int]
    STABLE_PREFIX_KNOWN_FIELD_NUMBER: _ClassVar[int]
    STABLE_PREFIX_NOTE_FIELD_NUMBER: _ClassVar[int]
    STABLE_PREFIX_TOKENS_FIELD_NUMBER: _ClassVar[int]
    STABLE_PREFIX_UNCACHED_FIELD_NUMBER: _ClassVar[int]
    STRATEGY_FIELD_NUMBER: _ClassVar[int]
    SUMMARY_REQUESTED_FIELD_NUMBER: _ClassVar[int]
    SUMMARY_REQUEST_PREFIX_TOKENS_FIELD_NUMBER: _ClassVar[int]
    SUMMARY_REQUEST_TOKENS_FIELD_NUMBER: _ClassVar[int]
    SUMMARY_TOKENS_FIELD_NUMBER: _ClassVar[int]
    SYNTHETIC_NUDGE_FIELD_NUMBER: _ClassVar[int]
    TASK_PINNED_FIELD_NUMBER: _ClassVar[int]
    THINKING_CLEARED_FIELD_NUMBER: _ClassVar[int]
    THINKING_TOKENS_CLEARED_FIELD_NUMBER: _ClassVar[int]
    TOKENIZER_FIELD_NUMBER: _ClassVar[int]
    TOKENS_AFTER_FIELD_NUMBER: _ClassVar[int]
    TOKENS_BEFORE_FIELD_NUMBER: _ClassVar[int]
    TOKENS_CLEARED_FIELD_NUMBER: _ClassVar[int]
    TOKENS_DROPPED_FIELD_NUMBER: _ClassVar[int]
    TOOL_CALLS_DROPPED_FIELD_NUMBER: _ClassVar[int]
    TOOL_CALLS_SHOWN_FIELD_NUMBER: _ClassVar[int]
    TOOL_CALLS_TOTAL_FIELD_NUMBER: _ClassVar[int]
    TOOL_CALL_IDS_REWRITTEN_FIELD_NUMBER: _ClassVar[int]
    TOOL_LOOPS_DROPPED_FIELD_NUMBER: _ClassVar[int]
    TOOL_USES_CLEARED_FIELD_NUMBER: _ClassVar[int]
    TURNS_COMPRESSED_FIELD_NUMBER: _ClassVar[int]
    UNCACHED_TOKENS_FIELD_NUMBER: _ClassVar[int]
    UNITS_NOTED_FIELD_NUMBER: _ClassVar[int]
    billed_tokens: float
    cache_breakpoint: CacheBreakpoint
    cache_write_tokens: int
    chars_after: int
    chars_before: int
    compaction_replaced: int
    context_window: int
    error_turns_collapsed: int
    greetings_dropped: int
    messages_after: int
    messages_before: int
    messages_dropped: int
    messages_repaired: int
    messages_summarized: int
    min_cacheable_tokens: int
    model: str
    next_cache_breakpoint: CacheBreakpoint
    nudges_exhausted: bool
    part_tokens: int
    parts_estimated: int
    pricing: str
    printlns_dropped: int
    printlns_shown: int
    printlns_total: int
    program_tool: ProgramTool
    prompt_source: str
    prompts_led: int
    provider: str
    stable_prefix_known: bool
    stable_prefix_note: str
    stable_prefix_tokens: int
    stable_prefix_uncached: bool
    strategy: str
    summary_request_prefix_tokens: int
    summary_request_tokens: int
    summary_requested: bool
    summary_tokens: int
    synthetic_nudge: bool
    task_pinned: bool
    thinking_cleared: int
    thinking_tokens_cleared: int
    tokenizer: str
    tokens_after: int
    tokens_before: int
    tokens_cleared: int
    tokens_dropped: int
    tool_call_ids_rewritten: int
    tool_calls_dropped: int
    tool_calls_shown: int
    tool_calls_total: int
    tool_loops_dropped: int
    tool_uses_cleared: int
    turns_compressed: int
    uncached_tokens: int
    units_noted: int
    def __init__(self, strategy: _Optional[str] = ..., turns_compressed: _Optional[int] = ..., tool_calls_total: _Optional[int] = ..., tool_calls_shown: _Optional[int] = ..., tool_calls_dropped: _Optional[int] = ..., printlns_total: _Optional[int] = ..., printlns_shown: _Optional[int] = ..., printlns_dropped: _Optional[int] = ..., error_turns_collapsed: _Optional[int] = ..., messages_before: _Optional[int] = ..., messages_after: _Optional[int] = ..., chars_before: _Optional[int] = ..., chars_after: _Optional[int] = ..., tokens_before: _Optional[int] = ..., tokens_after: _Optional[int] = ..., tokenizer: _Optional[str] = ..., synthetic_nudge: bool = ..., nudges_exhausted: bool = ..., tool_uses_cleared: _Optional[int] = ..., tokens_cleared: _Optional[int] = ..., stable_prefix_tokens: _Optional[int] = ..., billed_tokens: _Optional[float] = ..., cache_write_tokens: _Optional[int] = ..., stable_prefix_known: bool = ..., stable_prefix_note: _Optional[str] = ..., cache_breakpoint: _Optional[_Union[CacheBreakpoint, _Mapping]] = ..., pricing: _Optional[str] = ..., next_cache_breakpoint: _Optional[_Union[CacheBreakpoint, _Mapping]] = ..., prompt_source: _Optional[str] = ..., messages_dropped: _Optional[int] = ..., tokens_dropped: _Optional[int] = ..., tool_loops_dropped: _Optional[int] = ..., messages_repaired: _Optional[int] = ..., tool_call_ids_rewritten: _Optional[int] = ..., task_pinned: bool = ..., provider: _Optional[str] = ..., prompts_led: _Optional[int] = ..., units_noted: _Optional[int] = ..., greetings_dropped: _Optional[int] = ..., part_tokens: _Optional[int] = ..., parts_estimated: _Optional[int] = ..., thinking_cleared: _Optional[int] = ..., thinking_tokens_cleared: _Optional[int] = ..., compaction_replaced: _Optional[int] = ..., messages_summarized: _Optional[int] = ..., summary_tokens: _Optional[int] = ..., summary_requested: bool = ..., summary_request_tokens: _Optional[int] = ..., summary_request_prefix_tokens: _Optional[int] = ..., model: _Optional[str] = ..., context_window: _Optional[int] = ..., min_cacheable_tokens: _Optional[int] = ..., stable_prefix_uncached: bool = ..., uncached_tokens: _Optional[int] = ..., program_tool: _Optional[_Union[ProgramTool, _Mapping]] = ...) -> None: ...

class Options(_message.Message):
    __slots__ = ["cache_read_rate", "cache_write_rate", "clear_at_least", "clear_tool_inputs", "data", "exclude_tools", "keep", "keep_thinking_turns", "max_response_bytes", "max_tokens", "max_tokens_fraction", "max_turns", "min_cacheable_tokens", "mission", "model", "nudge_attempt", "nudge_messages", "placeholder", "pricing", "println_limit", "program_form", "prompt", "provider", "sample_limit", "sample_printable_limit", "scan_window", "signature", "snapshot_tool_prefixes", "strategy", "summary_header", "summary_keep", "summary_prompt", "summary_request_form", "summary_trigger", "system_prompt", "tokenizer", "tool_call_limit", "tools", "trigger", "trigger_fraction", "trim_to", "turns_left", "window_only"]
    CACHE_READ_RATE_FIELD_NUMBER: _ClassVar[int]
    CACHE_WRITE_RATE_FIELD_NUMBER: _ClassVar[int]
    CLEAR_AT_LEAST_FIELD_NUMBER: _ClassVar[int]
    CLEAR_TOOL_INPUTS_FIELD_NUMBER: _ClassVar[int]
    DATA_FIELD_NUMBER: _ClassVar[int]
    EXCLUDE_TOOLS_FIELD_NUMBER: _ClassVar[int]
    KEEP_FIELD_NUMBER: _ClassVar[int]
    KEEP_THINKING_TURNS_FIELD_NUMBER: _ClassVar[int]
    MAX_RESPONSE_BYTES_FIELD_NUMBER: _ClassVar[int]
    MAX_TOKENS_FIELD_NUMBER: _ClassVar[int]
    MAX_TOKENS_FRACTION_FIELD_NUMBER: _ClassVar[int]
    MAX_TURNS_FIELD_NUMBER: _ClassVar[int]
    MIN_CACHEABLE_TOKENS_FIELD_NUMBER: _ClassVar[int]
    MISSION_FIELD_NUMBER: _ClassVar[int]
    MODEL_FIELD_NUMBER: _ClassVar[int]
    NUDGE_ATTEMPT_FIELD_NUMBER: _ClassVar[int]
    NUDGE_MESSAGES_FIELD_NUMBER: _ClassVar[int]
    PLACEHOLDER_FIELD_NUMBER: _ClassVar[int]
    PRICING_FIELD_NUMBER: _ClassVar[int]
    PRINTLN_LIMIT_FIELD_NUMBER: _ClassVar[int]
    PROGRAM_FORM_FIELD_NUMBER: _ClassVar[int]
    PROMPT_FIELD_NUMBER: _ClassVar[int]
    PROVIDER_FIELD_NUMBER: _ClassVar[int]
    SAMPLE_LIMIT_FIELD_NUMBER: _ClassVar[int]
    SAMPLE_PRINTABLE_LIMIT_FIELD_NUMBER: _ClassVar[int]
    SCAN_WINDOW_FIELD_NUMBER: _ClassVar[int]
    SIGNATURE_FIELD_NUMBER: _ClassVar[int]
    SNAPSHOT_TOOL_PREFIXES_FIELD_NUMBER: _ClassVar[int]
    STRATEGY_FIELD_NUMBER: _ClassVar[int]
    SUMMARY_HEADER_FIELD_NUMBER: _ClassVar[int]
    SUMMARY_KEEP_FIELD_NUMBER: _ClassVar[int]
    SUMMARY_PROMPT_FIELD_NUMBER: _ClassVar[int]
    SUMMARY_REQUEST_FORM_FIELD_NUMBER: _ClassVar[int]
    SUMMARY_TRIGGER_FIELD_NUMBER: _ClassVar[int]
    SYSTEM_PROMPT_FIELD_NUMBER: _ClassVar[int]
    TOKENIZER_FIELD_NUMBER: _ClassVar[int]
    TOOLS_FIELD_NUMBER: _ClassVar[int]
    TOOL_CALL_LIMIT_FIELD_NUMBER: _ClassVar[int]
    TRIGGER_FIELD_NUMBER: _ClassVar[int]
    TRIGGER_FRACTION_FIELD_NUMBER: _ClassVar[int]
    TRIM_TO_FIELD_NUMBER: _ClassVar[int]
    TURNS_LEFT_FIELD_NUMBER: _ClassVar[int]
    WINDOW_ONLY_FIELD_NUMBER: _ClassVar[int]
    cache_read_rate: float
    cache_write_rate: float
    clear_at_least: int
    clear_tool_inputs: bool
    data: _values_pb2.Value
    exclude_tools: _containers.RepeatedScalarFieldContainer[str]
    keep: int
    keep_thinking_turns: int
    max_response_bytes: int
    max_tokens: int
    max_tokens_fraction: float
    max_turns: int
    min_cacheable_tokens: int
    mission: str
    model: str
    nudge_attempt: int
    nudge_messages: _containers.RepeatedScalarFieldContainer[str]
    placeholder: str
    pricing: str
    println_limit: int
    program_form: str
    prompt: str
    provider: str
    sample_limit: int
    sample_printable_limit: int
    scan_window: int
    signature: str
    snapshot_tool_prefixes: _containers.RepeatedScalarFieldContainer[str]
    strategy: str
    summary_header: str
    summary_keep: int
    summary_prompt: str
    summary_request_form: str
    summary_trigger: int
    system_prompt: str
    tokenizer: str
    tool_call_limit: int
    tools: _containers.RepeatedCompositeFieldContainer[_values_pb2.ToolSpec]
    trigger: int
    trigger_fraction: float
    trim_to: int
    turns_left: int
    window_only: bool
    def __init__(self, strategy: _Optional[str] = ..., mission: _Optional[str] = ..., system_prompt: _Optional[str] = ..., tools: _Optional[_Iterable[_Union[_values_pb2.ToolSpec, _Mapping]]] = ..., data: _Optional[_Union[_values_pb2.Value, _Mapping]] = ..., signature: _Optional[str] = ..., max_turns: _Optional[int] = ..., turns_left: _Optional[int] = ..., println_limit: _Optional[int] = ..., tool_call_limit: _Optional[int] = ..., sample_limit: _Optional[int] = ..., sample_printable_limit: _Optional[int] = ..., tokenizer: _Optional[str] = ..., scan_window: _Optional[int] = ..., nudge_attempt: _Optional[int] = ..., snapshot_tool_prefixes: _Optional[_Iterable[str]] = ..., nudge_messages: _Optional[_Iterable[str]] = ..., trigger: _Optional[int] = ..., keep: _Optional[int] = ..., clear_at_least: _Optional[int] = ..., exclude_tools: _Optional[_Iterable[str]] = ..., clear_tool_inputs: bool = ..., placeholder: _Optional[str] = ..., max_tokens: _Optional[int] = ..., prompt: _Optional[str] = ..., pricing: _Optional[str] = ..., cache_read_rate: _Optional[float] = ..., cache_write_rate: _Optional[float] = ..., window_only: bool = ..., trim_to: _Optional[int] = ..., provider: _Optional[str] = ..., keep_thinking_turns: _Optional[int] = ..., program_form: _Optional[str] = ..., summary_trigger: _Optional[int] = ..., summary_keep: _Optional[int] = ..., summary_prompt: _Optional[str] = ..., summary_header: _Optional[str] = ..., summary_request_form: _Optional[str] = ..., max_response_bytes: _Optional[int] = ..., model: _Optional[str] = ..., max_tokens_fraction: _Optional[float] = ..., trigger_fraction: _Optional[float] = ..., min_cacheable_tokens: _Optional[int] = ...) -> None: ...

class ProgramTool(_message.Message):
    __slots__ = ["description", "name", "parameters"]
    DESCRIPTION_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    PARAMETERS_FIELD_NUMBER: _ClassVar[int]
    description: str
    name: str
    parameters: str
    def __init__(self, name: _Optional[str] = ..., description: _Optional[str] = ..., parameters: _Optional[str] = ...) -> None: ...

class Summary(_message.Message):
    __slots__ = ["asked_at", "digest", "text", "through"]
    ASKED_AT_FIELD_NUMBER: _ClassVar[int]
    DIGEST_FIELD_NUMBER: _ClassVar[int]
    TEXT_FIELD_NUMBER: _ClassVar[int]
    THROUGH_FIELD_NUMBER: _ClassVar[int]
    asked_at: int
    digest: str
    text: str
    through: int
    def __init__(self, text: _Optional[str] = ..., through: _Optional[int] = ..., asked_at: _Optional[int] = ..., digest: _Optional[str] = ...) -> None: ...

class SummaryRequest(_message.Message):
    __slots__ = ["asked_at", "digest", "messages", "prefix_messages", "through"]
    ASKED_AT_FIELD_NUMBER: _ClassVar[int]
    DIGEST_FIELD_NUMBER: _ClassVar[int]
    MESSAGES_FIELD_NUMBER: _ClassVar[int]
    PREFIX_MESSAGES_FIELD_NUMBER: _ClassVar[int]
    THROUGH_FIELD_NUMBER: _ClassVar[int]
    asked_at: int
    digest: str
    messages: _containers.RepeatedCompositeFieldContainer[_chat_pb2.ChatMessage]
    prefix_messages: int
    through: int
    def __init__(self, messages: _Optional[_Iterable[_Union[_chat_pb2.ChatMessage, _Mapping]]] = ..., through: _Optional[int] = ..., asked_at: _Optional[int] = ..., digest: _Optional[str] = ..., prefix_messages: _Optional[int] = ...) -> None: ...

class ToMessagesRequest(_message.Message):
    __slots__ = ["history", "memory", "options", "summary", "turns"]
    HISTORY_FIELD_NUMBER: _ClassVar[int]
    MEMORY_FIELD_NUMBER: _ClassVar[int]
    OPTIONS_FIELD_NUMBER: _ClassVar[int]
    SUMMARY_FIELD_NUMBER: _ClassVar[int]
    TURNS_FIELD_NUMBER: _ClassVar[int]
    history: _containers.RepeatedCompositeFieldContainer[_chat_pb2.ChatMessage]
    memory: _turn_pb2.Memory
    options: Options
    summary: Summary
    turns: _containers.RepeatedCompositeFieldContainer[_turn_pb2.Turn]
    def __init__(self, turns: _Optional[_Iterable[_Union[_turn_pb2.Turn, _Mapping]]] = ..., memory: _Optional[_Union[_turn_pb2.Memory, _Mapping]] = ..., options: _Optional[_Union[Options, _Mapping]] = ..., history: _Optional[_Iterable[_Union[_chat_pb2.ChatMessage, _Mapping]]] = ..., summary: _Optional[_Union[Summary, _Mapping]] = ...) -> None: ...

class ToMessagesResponse(_message.Message):
    __slots__ = ["messages", "stats", "summary_request"]
    MESSAGES_FIELD_NUMBER: _ClassVar[int]
    STATS_FIELD_NUMBER: _ClassVar[int]
    SUMMARY_REQUEST_FIELD_NUMBER: _ClassVar[int]
    messages: _containers.RepeatedCompositeFieldContainer[_chat_pb2.ChatMessage]
    stats: CompressionStats
    summary_request: SummaryRequest
    def __init__(self, messages: _Optional[_Iterable[_Union[_chat_pb2.ChatMessage, _Mapping]]] = ..., stats: _Optional[_Union[CompressionStats, _Mapping]] = ..., summary_request: _Optional[_Union[SummaryRequest, _Mapping]] = ...) -> None: ...
