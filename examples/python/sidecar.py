"""Running a turn's program through ptc-sidecar, with the tools on this side.

The sidecar offers two tool protocols; both give the same Turn.

- eval_turn_replay uses the unary EvalTurn. The sidecar holds no state, so
  when the program reaches a tool call it has no answer for, the response
  lists that call as pending. We run the tool, append its answer to
  tool_results and send the same request again; the sidecar re-runs the
  program from the start and replays the answered calls from tool_results
  (the tools are not run again) until the next unanswered call or the end.
  n tool calls cost n+1 round trips, each one stateless: any replica of the
  sidecar can serve any of them.

- eval_turn_stream uses EvalTurnStream: one bidirectional stream, the
  server sends each tool call as it happens and waits for our answer; the
  last message is the Turn. One evaluation, one connection, no replay.
"""

import json
import queue
import time

from ptcsidecar.v1 import eval_pb2, values_pb2

import edn

# Every RPC gets a deadline: a sidecar that hangs must not hang the agent.
RPC_TIMEOUT_SECONDS = 30


def eval_turn_replay(stub, request, shop):
    """Evaluates request with the unary replay protocol; returns the Turn.

    request.tool_results grows by one answer per round trip; the caller's
    request object is left as it was.
    """
    request = _copy(request)
    # Each round answers one more call, and the server's tool-call limit
    # fails a program that calls too often, so this loop ends.
    while True:
        response = stub.EvalTurn(request, timeout=RPC_TIMEOUT_SECONDS)
        if response.WhichOneof("outcome") == "turn":
            return response.turn
        for call in response.pending.calls:
            request.tool_results.append(run_tool(shop, call))


def eval_turn_stream(stub, request, shop):
    """Evaluates request over EvalTurnStream; returns the Turn."""
    answers = queue.Queue()

    def outgoing():
        # gRPC reads this generator on its own thread: the first message
        # carries the request, then one tool_result per tool_call received.
        yield eval_pb2.EvalTurnStreamRequest(start=request)
        while (answer := answers.get()) is not None:
            yield eval_pb2.EvalTurnStreamRequest(tool_result=answer)

    responses = stub.EvalTurnStream(outgoing(), timeout=RPC_TIMEOUT_SECONDS)
    try:
        for message in responses:
            if message.WhichOneof("message") == "turn":
                return message.turn
            answers.put(run_tool(shop, message.tool_call))
    finally:
        answers.put(None)  # ends the generator, and with it the stream
    raise RuntimeError("EvalTurnStream ended without a turn")


def run_tool(shop, call):
    """Runs one tool call and returns the ToolResult that answers it.

    The answer echoes the call's index, name and args: on replay the sidecar
    checks them against the call the program makes, so an answer can never
    be matched to the wrong call. A tool that raises becomes an error the
    program (and so the LLM) sees as a tool_error.
    """
    answer = eval_pb2.ToolResult(index=call.index, name=call.name, args=call.args)
    started = time.monotonic()
    try:
        args = edn.loads(call.args.edn) if call.args.HasField("edn") else None
        result = shop.call(call.name, args)
        answer.result.CopyFrom(values_pb2.Value(json=json.dumps(result)))
    except Exception as e:  # noqa: BLE001 - any tool failure goes back to the program
        answer.error = str(e)
    answer.duration_ms = round((time.monotonic() - started) * 1000)
    return answer


def _copy(message):
    out = type(message)()
    out.CopyFrom(message)
    return out
