"""One turn of an agent in a process of its own, written as the package's
README says: AsyncClient, async and plain tools, OpenAI-format messages,
the run saved to JSON after the turn and resumed from it by the next
process.

    python agent_step.py STATE_FILE TARGET TOOL_LOG

prints the turn as one JSON line. The tools append each call to TOOL_LOG,
so that the test can count how often each really ran.
"""

import asyncio
import json
import pathlib
import sys

import ptc_sidecar
from scripted_llm import MISSION, AsyncScriptedOpenAI

STATE, TARGET, TOOL_LOG = pathlib.Path(sys.argv[1]), sys.argv[2], pathlib.Path(sys.argv[3])
MAX_TURNS = 6


def logged(name, args):
    with TOOL_LOG.open("a") as log:
        log.write(json.dumps([name, args]) + "\n")


async def search(query):
    logged("search", {"query": query})
    await asyncio.sleep(0.01)
    return [{"id": "q3-report", "title": "Q3 report"}]


def read(**args):
    logged("read", args)
    if "id" not in args:
        raise ValueError(f"read needs :id (got {', '.join(':' + k for k in args)})")
    return {"title": "Q3 report", "revenue": 12.5}


TOOLS = {
    "search": ptc_sidecar.Tool(search, signature="(query :string) -> [{id :string, title :string}]",
                               description="Reports whose title matches the query"),
    "read": ptc_sidecar.Tool(read, signature="(id :string) -> {title :string, revenue :float}"),
}


async def main():
    llm = AsyncScriptedOpenAI(MAX_TURNS)
    async with ptc_sidecar.AsyncClient(TARGET) as sidecar:
        if STATE.exists():
            run = sidecar.resume(STATE.read_text(), tools=TOOLS)
        else:
            run = sidecar.run(mission=MISSION, tools=TOOLS, data={"quarter": "Q3"}, max_turns=MAX_TURNS)
        prompt = await run.next_messages()
        completion = await llm.chat.completions.create(model="gpt-4.1", messages=prompt.messages)
        turn = await run.step(completion.choices[0].message)
        STATE.write_text(run.to_json())
    print(json.dumps({"turn": turn.number, "success": turn.success, "status": run.status,
                      "result": run.result if run.status == "returned" else None}))


if __name__ == "__main__":
    asyncio.run(main())
