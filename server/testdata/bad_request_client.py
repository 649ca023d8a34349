"""Reads the google.rpc.BadRequest details of the sidecar's INVALID_ARGUMENT
errors from Python, as a client would.

Usage: bad_request_client.py ADDRESS DESCRIPTORS

DESCRIPTORS is a serialized FileDescriptorSet holding google.rpc.Status and
google.rpc.BadRequest (Debian ships neither grpc_status nor the googleapis
Python modules, so the message classes are built from the descriptors the
server itself was compiled with). Prints one JSON object per case: the
status code, the message and the field violations found in the
grpc-status-details-bin trailer.
"""

import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "clients", "python", "src"))

import grpc  # noqa: E402
from google.protobuf import descriptor_pb2, message_factory  # noqa: E402

from ptc_sidecar._pb.ptcsidecar.v1 import (  # noqa: E402
    compression_pb2,
    eval_pb2,
    service_pb2_grpc,
    turn_pb2,
    values_pb2,
)


def main():
    address, descriptors = sys.argv[1], sys.argv[2]
    with open(descriptors, "rb") as f:
        files = descriptor_pb2.FileDescriptorSet.FromString(f.read()).file
    classes = message_factory.GetMessages(list(files))
    status_class, bad_request_class = classes["google.rpc.Status"], classes["google.rpc.BadRequest"]

    stub = service_pb2_grpc.SidecarServiceStub(grpc.insecure_channel(address))
    cases = {
        "unknown strategy": lambda: stub.ToMessages(
            compression_pb2.ToMessagesRequest(options=compression_pb2.Options(strategy="zip"))),
        "turns to a history strategy": lambda: stub.ToMessages(
            compression_pb2.ToMessagesRequest(
                options=compression_pb2.Options(strategy="turn-aware"),
                turns=[turn_pb2.Turn(number=1, program="1", success=True)])),
        "malformed data": lambda: stub.EvalTurn(
            eval_pb2.EvalTurnRequest(program="1", data=values_pb2.Value(edn="{:a"))),
        "tool answer without result or error": lambda: stub.EvalTurn(
            eval_pb2.EvalTurnRequest(
                program="(tool/search {:q 1})", tools=[values_pb2.ToolSpec(name="search")],
                tool_results=[eval_pb2.ToolResult(index=0, name="search", args=values_pb2.Value(edn="{:q 1}"))])),
    }
    for name, call in cases.items():
        try:
            call()
            print(json.dumps({"case": name, "code": "OK"}))
            continue
        except grpc.RpcError as err:
            trailers = dict(err.trailing_metadata() or ())
            violations = []
            details = trailers.get("grpc-status-details-bin")
            if details is not None:
                status = status_class.FromString(details)
                for any_detail in status.details:
                    if any_detail.type_url.endswith("/google.rpc.BadRequest"):
                        bad_request = bad_request_class.FromString(any_detail.value)
                        violations += [{"field": v.field, "description": v.description}
                                       for v in bad_request.field_violations]
            print(json.dumps({"case": name, "code": err.code().name, "message": err.details(),
                              "violations": violations}))


if __name__ == "__main__":
    main()
