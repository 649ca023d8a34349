"""A scripted stand-in for an OpenAI client, so that agents run offline.

AsyncScriptedOpenAI().chat.completions.create(model=..., messages=...)
answers like openai.AsyncOpenAI's: a completion object whose
choices[0].message has attributes and model_dump, as the SDK's pydantic
models do. The reply for turn n is SCRIPT[n-1]; before answering, the
script checks that the prompt holds what a model would need to write that
reply (the error it fixes, the output it reads), so a prompt that lacks it
fails the run.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field


class UnexpectedPrompt(AssertionError):
    """The prompt does not hold what the scripted reply relies on."""


class Model:
    """An object like the SDKs' pydantic models: attributes and model_dump."""

    def __init__(self, **fields):
        self._fields = fields
        for k, v in fields.items():
            setattr(self, k, v)

    def model_dump(self, exclude_unset=False):
        def dump(v):
            if isinstance(v, Model):
                return v.model_dump(exclude_unset=exclude_unset)
            if isinstance(v, list):
                return [dump(x) for x in v]
            return v
        return {k: dump(v) for k, v in self._fields.items()}


@dataclass
class Step:
    program: str
    expect: list = field(default_factory=list)  # text the USER message must hold
    absent: list = field(default_factory=list)  # text it must no longer hold


MISSION = "What was the revenue in the quarter data/quarter names? Return it with the report's title."

SCRIPT = [
    Step('(def hits (tool/search {:query data/quarter}))\n(println "found" (count hits))\n(mapv :id hits)',
         expect=[MISSION, "tool/search(query string)", "data/quarter"]),
    # A mistake: read takes :id. The tool raises and the turn fails.
    Step("(def doc (tool/read {:doc-id (first *1)}))", expect=["found 1", "hits"]),
    # The prompt shows the error; *1 is still turn 1's result.
    Step("(def doc (tool/read {:id (first *1)}))\n(println \"title:\" (:title doc))\n(:revenue doc)",
         expect=["read needs :id"]),
    Step("(return {:quarter data/quarter, :revenue *1, :title (:title doc)})",
         expect=["title: Q3 report", "doc"], absent=["read needs :id"]),
]


def turn_of(user: str, max_turns: int) -> int:
    """The turn a prompt is for, from the turns indicator it ends with."""
    left = re.search(r"Turns left: (\d+)", user)
    if not left:
        raise UnexpectedPrompt(f"no turns indicator in the prompt:\n{user}")
    return max_turns - int(left.group(1)) + 1


class _Completions:
    def __init__(self, max_turns: int):
        self.max_turns = max_turns
        self.prompts = []

    async def create(self, *, model: str, messages: list) -> Model:
        roles = [m["role"] for m in messages]
        if roles != ["system", "user"] or not all(isinstance(m["content"], str) for m in messages):
            raise UnexpectedPrompt(f"messages are not [system, user] with text: {messages}")
        user = messages[1]["content"]
        self.prompts.append(user)
        n = turn_of(user, self.max_turns)
        if n > len(SCRIPT):
            raise UnexpectedPrompt(f"turn {n}: the script has {len(SCRIPT)} replies")
        step = SCRIPT[n - 1]
        for text in step.expect:
            if text not in user:
                raise UnexpectedPrompt(f"turn {n}: the prompt lacks {text!r}:\n{user}")
        for text in step.absent:
            if text in user:
                raise UnexpectedPrompt(f"turn {n}: the prompt still holds {text!r}:\n{user}")
        reply = f"Turn {n}.\n\n```clojure\n{step.program}\n```"
        message = Model(role="assistant", content=reply, refusal=None)
        return Model(id=f"chatcmpl-{n}", model=model, choices=[Model(index=0, message=message,
                                                                       finish_reason="stop")])


class AsyncScriptedOpenAI:
    def __init__(self, max_turns: int):
        self.chat = Model(completions=_Completions(max_turns))
