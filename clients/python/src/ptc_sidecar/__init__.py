"""Python client for ptc-sidecar.

    import ptc_sidecar

    with ptc_sidecar.Client("127.0.0.1:50051") as client:
        turn = client.eval_turn(program, tools={"search": search}, data={"budget": 100})
        turn.result, turn.tool_calls, turn.prints    # native Python values
        prompt = client.to_messages([turn], mission="...", tools={"search": search})
        prompt.messages                              # chat-completions dicts

Values arrive as native Python values read from their JSON form; a value
with no JSON form arrives as an EDN object (docs/VALUES.md). Memory is
opaque: pass a Turn's memory back to the next eval_turn. Every refused
call raises SidecarError with the gRPC code and the request field.
"""

from ptc_sidecar._client import (
    Client,
    Messages,
    Strategy,
    StrategyOption,
    Tool,
    ToolCall,
    Turn,
    TurnError,
)
from ptc_sidecar._errors import FieldViolation, SidecarError
from ptc_sidecar._values import EDN

__all__ = [
    "Client",
    "EDN",
    "FieldViolation",
    "Messages",
    "SidecarError",
    "Strategy",
    "StrategyOption",
    "Tool",
    "ToolCall",
    "Turn",
    "TurnError",
]
