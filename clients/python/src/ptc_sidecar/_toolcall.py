"""The program as a tool call (option program_form="tool_call").

The LLM calls one function tool, run_ptc_lisp, with {"program": "..."}
instead of writing a fenced block. Messages.tools (and anthropic_tools,
responses_tools) is the tool's definition in each provider's shape, from the
stats' program_tool; program_call finds the call in an LLM's reply, in any
of the shapes step takes, so that a run sends it to EvalTurn as
program_call; tool_call reads one call the caller found itself, for
eval_turn(program_call=...).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from ptc_sidecar._chat import as_dict, reply_text
from ptc_sidecar._pb.ptcsidecar.v1 import chat_pb2

PROGRAM_TOOL = "run_ptc_lisp"


def openai_tools(program_tool: Mapping[str, Any] | None) -> list[dict[str, Any]]:
    """The program tool as Chat Completions tools ([] when there is none)."""
    if not program_tool:
        return []
    return [{"type": "function", "function": {"name": program_tool["name"], "description": program_tool["description"],
                                              "parameters": json.loads(program_tool["parameters"])}}]


def anthropic_tools(program_tool: Mapping[str, Any] | None) -> list[dict[str, Any]]:
    """The program tool as Anthropic Messages tools."""
    if not program_tool:
        return []
    return [{"name": program_tool["name"], "description": program_tool["description"],
             "input_schema": json.loads(program_tool["parameters"])}]


def responses_tools(program_tool: Mapping[str, Any] | None) -> list[dict[str, Any]]:
    """The program tool as OpenAI Responses API (and Agents SDK) tools."""
    if not program_tool:
        return []
    return [{"type": "function", "name": program_tool["name"], "description": program_tool["description"],
             "parameters": json.loads(program_tool["parameters"]), "strict": True}]


def program_call(reply: Any) -> tuple[chat_pb2.ChatToolCall | None, str]:
    """The first run_ptc_lisp call a reply makes and the reply's text beside
    it, or (None, the reply's text) when it makes none. reply is what step
    takes: a str, an OpenAI ChatCompletion or its message, an Anthropic
    Message, or a Responses API response or its output items, as dicts or
    the SDKs' objects. Calls of other tools are not the run's and are left
    out; the prompt asks for one call per reply, and a second is ignored."""
    if isinstance(reply, str):
        return None, reply
    if isinstance(reply, (list, tuple)):  # Responses API output items
        return _responses_call([as_dict(item, f"reply[{i}]") for i, item in enumerate(reply)])
    d = as_dict(reply, "reply")
    if isinstance(d.get("output"), list):  # a Responses API response
        return _responses_call([as_dict(item, f"reply.output[{i}]") for i, item in enumerate(d["output"])])
    if "choices" in d:
        choices = d.get("choices") or []
        if not choices:
            raise ValueError("reply: the completion has no choices")
        d = as_dict(as_dict(choices[0], "reply.choices[0]").get("message") or {}, "reply.choices[0].message")
    text = reply_text(d)
    for i, call in enumerate(d.get("tool_calls") or []):  # OpenAI Chat Completions
        c = as_dict(call, f"reply.tool_calls[{i}]")
        fn = as_dict(c.get("function") or {}, f"reply.tool_calls[{i}].function")
        if fn.get("name") == PROGRAM_TOOL:
            return chat_pb2.ChatToolCall(id=str(c.get("id") or ""), name=PROGRAM_TOOL,
                                         arguments=_arguments(fn.get("arguments"))), text
    content = d.get("content")
    if isinstance(content, list):  # Anthropic content blocks
        for i, block in enumerate(content):
            b = as_dict(block, f"reply.content[{i}]")
            if b.get("type") == "tool_use" and b.get("name") == PROGRAM_TOOL:
                return chat_pb2.ChatToolCall(id=str(b.get("id") or ""), name=PROGRAM_TOOL,
                                             arguments=_arguments(b.get("input"))), text
    return None, text


def tool_call(call: Any, what: str = "program_call") -> chat_pb2.ChatToolCall:
    """One tool call as the wire's ChatToolCall: an OpenAI Chat Completions
    tool call, an Anthropic tool_use block, a Responses API function_call
    item (dicts or the SDKs' objects) or a ChatToolCall. The server checks
    that it calls run_ptc_lisp and reads its arguments."""
    if isinstance(call, chat_pb2.ChatToolCall):
        return call
    if isinstance(call, (str, bytes)):
        raise TypeError(f"{what}: want a tool call (OpenAI's, an Anthropic tool_use block or a Responses "
                        f"function_call item), got a {type(call).__name__}: pass a program as program")
    d = as_dict(call, what)
    kind = d.get("type")
    if isinstance(d.get("function"), Mapping) or kind == "function":  # OpenAI Chat Completions
        fn = as_dict(d.get("function") or {}, f"{what}.function")
        return chat_pb2.ChatToolCall(id=str(d.get("id") or ""), name=str(fn.get("name") or ""),
                                     arguments=_arguments(fn.get("arguments")))
    if kind == "tool_use":  # Anthropic
        return chat_pb2.ChatToolCall(id=str(d.get("id") or ""), name=str(d.get("name") or ""),
                                     arguments=_arguments(d.get("input")))
    if kind == "function_call":  # Responses API, Agents SDK
        return chat_pb2.ChatToolCall(id=str(d.get("call_id") or ""), name=str(d.get("name") or ""),
                                     arguments=_arguments(d.get("arguments")))
    raise ValueError(f"{what}.type: {kind!r} is not a tool call: want an OpenAI tool call (type function), an "
                     "Anthropic tool_use block or a Responses API function_call item")


def _responses_call(items: list[dict[str, Any]]) -> tuple[chat_pb2.ChatToolCall | None, str]:
    """The run_ptc_lisp function_call among Responses API output items, and
    the text of their output messages."""
    texts = []
    call = None
    for item in items:
        kind = item.get("type")
        if kind == "message":
            content = item.get("content")
            if isinstance(content, str):
                texts.append(content)
            for part in content if isinstance(content, list) else []:
                p = as_dict(part, "reply.output content")
                if p.get("type") in ("output_text", "input_text", "text") and isinstance(p.get("text"), str):
                    texts.append(p["text"])
        elif kind == "function_call" and item.get("name") == PROGRAM_TOOL and call is None:
            call = chat_pb2.ChatToolCall(id=str(item.get("call_id") or ""), name=PROGRAM_TOOL,
                                         arguments=_arguments(item.get("arguments")))
    return call, "\n".join(texts)


def _arguments(args: Any) -> str:
    """A call's arguments as JSON text: OpenAI sends text (passed on as it
    is, for the server to read), Anthropic a parsed object."""
    if isinstance(args, str):
        return args
    if args is None:
        return ""
    return json.dumps(args, ensure_ascii=False)
