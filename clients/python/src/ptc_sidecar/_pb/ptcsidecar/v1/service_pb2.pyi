from ptc_sidecar._pb.ptcsidecar.v1 import compression_pb2 as _compression_pb2
from ptc_sidecar._pb.ptcsidecar.v1 import eval_pb2 as _eval_pb2
from ptc_sidecar._pb.ptcsidecar.v1 import strategies_pb2 as _strategies_pb2
from ptc_sidecar._pb.ptcsidecar.v1 import trace_pb2 as _trace_pb2
from google.protobuf import descriptor as _descriptor
from typing import ClassVar as _ClassVar

DESCRIPTOR: _descriptor.FileDescriptor
