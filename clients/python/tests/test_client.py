"""ptc_sidecar against the real server (the target fixture starts it)."""

from __future__ import annotations

import grpc
import pytest
from google.protobuf import any_pb2, descriptor_pb2, descriptor_pool, message_factory

import ptc_sidecar
from ptc_sidecar._errors import bad_request_violations

PROTOCOLS = ["replay", "stream"]

ORDERS = {7: [{"id": 1, "total": 30.5}, {"id": 2, "total": 12.0}]}


def lookup_user(name: str) -> dict:
    return {"id": 7, "name": name}


def orders(user_id: int) -> list:
    return ORDERS[user_id]


TOOLS = {
    "lookup-user": lookup_user,
    "orders": ptc_sidecar.Tool(lambda **kw: orders(kw["user-id"]), signature="(user-id :int) -> [:map]",
                               description="The user's orders."),
}



@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_three_turn_agent(client, protocol):
    data = {"customer": "Ada"}
    one = client.eval_turn(
        '(def user (tool/lookup-user {:name data/customer}))\n'
        '(def order-list (tool/orders {:user-id (:id user)}))\n'
        '(println "orders:" (count order-list))',
        tools=TOOLS, data=data, protocol=protocol)
    assert one.success, one.error
    assert one.prints == ["orders: 2"]
    assert [(c.name, c.args, c.result) for c in one.tool_calls] == [
        ("lookup-user", {"name": "Ada"}, {"id": 7, "name": "Ada"}),
        ("orders", {"user-id": 7}, ORDERS[7]),
    ]
    assert one.defined == ["user", "order-list"]

    # A failed turn: the error is for the LLM, and memory is unchanged.
    two = client.eval_turn("(+ 1 (:name user))", tools=TOOLS, data=data, memory=one.memory,
                           turn_number=2, protocol=protocol)
    assert not two.success and two.result is None
    assert two.error.type == "type_error" and two.error.message
    assert [b.name for b in two.memory.bindings] == ["user", "order-list"]

    # The next turn recovers with what the first one defined.
    three = client.eval_turn("(return {:user (:name user), :spent (reduce + (map :total order-list))})",
                             tools=TOOLS, data=data, memory=two.memory, turn_number=3, protocol=protocol)
    assert three.success and three.returned
    assert three.result == {"user": "Ada", "spent": 42.5}
    assert three.tool_calls == []

    prompt = client.to_messages([one, two, three], mission="What did Ada spend?", tools=TOOLS, data=data)
    assert [m["role"] for m in prompt.messages] == ["system", "user"]
    assert "What did Ada spend?" in prompt.messages[1]["content"]
    assert "lookup-user" in prompt.messages[0]["content"] + prompt.messages[1]["content"]
    assert prompt.stats["strategy"] == "single-user-coalesced"
    assert prompt.stats["turns_compressed"] == 3 and prompt.stats["error_turns_collapsed"] == 1


@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_a_tool_that_raises_is_a_tool_error(client, protocol):
    def broken(**kw):
        raise RuntimeError("the warehouse is closed")

    turn = client.eval_turn('(tool/stock {:sku "A-1"})', tools={"stock": broken}, protocol=protocol)
    assert not turn.success and turn.error.type == "tool_error"
    assert "the warehouse is closed" in turn.error.message
    (call,) = turn.tool_calls
    assert call.args == {"sku": "A-1"} and call.result is None
    assert call.error == "RuntimeError: the warehouse is closed"


@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_awkward_values(client, protocol):
    seen = {}

    def echo(**kw):
        seen.update(kw)
        return {"back": kw["n"], "huge": 2**63 - 1}

    turn = client.eval_turn(
        "(def r (tool/echo {:n 9007199254740993, :tags #{:b :a}, :kw :ok, :f 2.0}))\n"
        "(println (:back r) (:huge r))\n"
        "[(:back r) {1 :int-key} ##NaN]",
        tools={"echo": echo}, protocol=protocol)
    assert turn.success, turn.error
    # Integers beyond 2^53 arrive exact; keywords as strings; sets as lists.
    assert seen == {"n": 9007199254740993, "tags": ["a", "b"], "kw": "ok", "f": 2.0}
    assert isinstance(seen["f"], float)
    assert turn.prints == ["9007199254740993 9223372036854775807"]
    assert turn.tool_calls[0].result == {"back": 9007199254740993, "huge": 2**63 - 1}
    # No JSON form (an integer map key, NaN): the EDN text, flagged by type.
    assert turn.result == ptc_sidecar.EDN("[9007199254740993 {1 :int-key} ##NaN]")

    keyed = client.eval_turn('{:a 1, "a" 2}', protocol=protocol)
    assert isinstance(keyed.result, ptc_sidecar.EDN)
    fn = client.eval_turn("(fn [x] x)", protocol=protocol)
    assert isinstance(fn.result, ptc_sidecar.EDN)


def test_data_and_results_in_edn(client):
    turn = client.eval_turn("(get data/m 1)", data=ptc_sidecar.EDN('{:m {1 "one"}}'))
    assert turn.result == "one"


def test_tool_arguments_without_json_form_are_a_tool_error(client):
    turn = client.eval_turn("(tool/t {1 2})", tools={"t": lambda **kw: kw})
    assert not turn.success
    assert "no JSON form" in turn.tool_calls[0].error


def test_bad_requests_raise_with_the_field(client):
    with pytest.raises(ptc_sidecar.SidecarError) as err:
        client.eval_turn("(+ 1 2)", data=[1, 2])
    assert err.value.code == grpc.StatusCode.INVALID_ARGUMENT
    assert err.value.field == "data"
    assert "must be a map" in str(err.value)

    with pytest.raises(ptc_sidecar.SidecarError) as err:
        client.eval_turn("")
    assert err.value.code == grpc.StatusCode.INVALID_ARGUMENT and err.value.field == "program"

    with pytest.raises(ptc_sidecar.SidecarError) as err:
        client.to_messages([], strategy="no-such-strategy")
    assert err.value.code == grpc.StatusCode.INVALID_ARGUMENT
    assert err.value.field and err.value.field.startswith("options.strategy")

    with pytest.raises(TypeError, match="max_turnz"):
        client.to_messages([], max_turnz=3)
    with pytest.raises(ValueError, match="protocol"):
        client.eval_turn("1", protocol="carrier-pigeon")


def test_list_strategies(client):
    strategies = {s.name: s for s in client.list_strategies()}
    assert strategies["single-user-coalesced"].input == "turns"
    assert any(o.name == "max_turns" for o in strategies["single-user-coalesced"].options)


def test_chat_history_round_trips_in_chat_completions_shape(client):
    history = [
        {"role": "system", "content": "You are a shop assistant."},
        {"role": "user", "content": "Find headphones."},
        {"role": "assistant", "content": "", "tool_calls": [
            {"id": "c1", "type": "function", "function": {"name": "search", "arguments": '{"q":"headphones"}'}}]},
        {"role": "tool", "tool_call_id": "c1", "content": "[]"},
    ]
    out = client.to_messages([], history=history, strategy="loop-slice")
    assert out.messages == history


def _google_rpc_classes():
    """google.rpc.Status and BadRequest built from their descriptors, to
    produce the bytes a server sends (protobuf's runtime does not ship them)."""
    f = descriptor_pb2.FileDescriptorProto(name="test_google_rpc.proto", package="google.rpc", syntax="proto3",
                                           dependency=["google/protobuf/any.proto"])
    T = descriptor_pb2.FieldDescriptorProto
    status = f.message_type.add(name="Status")
    status.field.add(name="code", number=1, type=T.TYPE_INT32, label=T.LABEL_OPTIONAL)
    status.field.add(name="message", number=2, type=T.TYPE_STRING, label=T.LABEL_OPTIONAL)
    status.field.add(name="details", number=3, type=T.TYPE_MESSAGE, label=T.LABEL_REPEATED,
                     type_name=".google.protobuf.Any")
    bad = f.message_type.add(name="BadRequest")
    violation = bad.nested_type.add(name="FieldViolation")
    violation.field.add(name="field", number=1, type=T.TYPE_STRING, label=T.LABEL_OPTIONAL)
    violation.field.add(name="description", number=2, type=T.TYPE_STRING, label=T.LABEL_OPTIONAL)
    bad.field.add(name="field_violations", number=1, type=T.TYPE_MESSAGE, label=T.LABEL_REPEATED,
                  type_name=".google.rpc.BadRequest.FieldViolation")
    pool = descriptor_pool.DescriptorPool()
    pool.AddSerializedFile(_any_file())
    pool.AddSerializedFile(f.SerializeToString())
    factory = message_factory.MessageFactory(pool)
    return (factory.GetPrototype(pool.FindMessageTypeByName("google.rpc.Status")),
            factory.GetPrototype(pool.FindMessageTypeByName("google.rpc.BadRequest")))


def _any_file() -> bytes:
    proto = descriptor_pb2.FileDescriptorProto()
    any_pb2.DESCRIPTOR.CopyToProto(proto)
    return proto.SerializeToString()


def test_bad_request_details_are_read_from_the_status():
    Status, BadRequest = _google_rpc_classes()
    bad = BadRequest()
    bad.field_violations.add(field="turns[2].result.edn", description="parse_error at line 1")
    bad.field_violations.add(field="options.max_turns", description="must not be negative")
    detail = any_pb2.Any()
    detail.Pack(bad)
    other = any_pb2.Any(type_url="type.googleapis.com/google.rpc.DebugInfo", value=b"\x0a\x01x")
    status = Status(code=3, message="two problems")
    for d in (other, detail):  # Any of this pool's class, with the same fields
        added = status.details.add()
        added.type_url, added.value = d.type_url, d.value
    assert bad_request_violations(status.SerializeToString()) == (
        ptc_sidecar.FieldViolation("turns[2].result.edn", "parse_error at line 1"),
        ptc_sidecar.FieldViolation("options.max_turns", "must not be negative"),
    )
    assert bad_request_violations(b"\x1a\x05\x0a\x03") == ()  # truncated: ignored
    assert bad_request_violations(Status(code=3).SerializeToString()) == ()
