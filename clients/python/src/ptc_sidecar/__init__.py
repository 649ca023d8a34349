"""Python client for ptc-sidecar.

    import ptc_sidecar

    async with ptc_sidecar.AsyncClient("127.0.0.1:50051") as client:
        run = client.run(mission="...", tools={"search": search}, data={"budget": 100})
        while not run.done:
            prompt = await run.next_messages()             # OpenAI message dicts
            await run.step(await my_llm(prompt.messages))  # tools run here
            save(run.to_json())                            # the whole state
        print(run.result)

Client is the same on blocking gRPC. A run resumes from its JSON with
client.resume(saved, tools=...). Values arrive as native Python values read
from their JSON form; a value with no JSON form arrives as an EDN object
(docs/VALUES.md). Errors are SidecarError and its subclasses. Calls log
through the standard logging module, as the logger "ptc_sidecar".
"""

from ptc_sidecar._async_client import AsyncClient
from ptc_sidecar._base import NOT_GIVEN, NotGiven
from ptc_sidecar._chat import AnthropicHistory, AnthropicPrompt, from_anthropic, reply_text
from ptc_sidecar._responses import ResponsesHistory, ResponsesPrompt, from_responses
from ptc_sidecar._client import Client, summary_request_messages
from ptc_sidecar._errors import (
    ClientClosedError,
    DeadlineExceededError,
    FieldViolation,
    InvalidArgumentError,
    ResourceExhaustedError,
    RunFailedError,
    RunFinishedError,
    SidecarError,
    UnavailableError,
)
from ptc_sidecar._models import (
    Binding,
    Memory,
    Messages,
    Strategy,
    StrategyOption,
    Summary,
    SummaryRequest,
    Tool,
    ToolCall,
    Turn,
    TurnError,
    TurnWarning,
)
from ptc_sidecar._run import RUN_VERSION, AsyncRun, Run
from ptc_sidecar._values import EDN
from ptc_sidecar._version import __version__

__all__ = [
    "NOT_GIVEN",
    "RUN_VERSION",
    "AnthropicHistory",
    "AnthropicPrompt",
    "AsyncClient",
    "AsyncRun",
    "Binding",
    "Client",
    "ClientClosedError",
    "DeadlineExceededError",
    "EDN",
    "FieldViolation",
    "InvalidArgumentError",
    "Memory",
    "Messages",
    "NotGiven",
    "ResourceExhaustedError",
    "ResponsesHistory",
    "ResponsesPrompt",
    "Run",
    "RunFailedError",
    "RunFinishedError",
    "SidecarError",
    "Strategy",
    "StrategyOption",
    "Summary",
    "SummaryRequest",
    "Tool",
    "ToolCall",
    "Turn",
    "TurnError",
    "TurnWarning",
    "UnavailableError",
    "__version__",
    "from_anthropic",
    "from_responses",
    "reply_text",
    "summary_request_messages",
]
