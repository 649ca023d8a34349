package main_test

// Decoding's CPU: a request of two-byte fields that protobuf-go decodes
// one by one (a oneof's members alternated, a message, a text or a number
// sent again, unknown fields) costs work before any clock starts. The
// codec's wire pre-scan refuses a singular field sent more than a few
// times in one message, naming it, and more than 100,000 unknown fields,
// so no request of --max-recv-bytes costs its server more than a small,
// bounded CPU time before it is answered.

import (
	"bytes"
	"context"
	bin "encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"

	ptcsidecarv1 "github.com/ptc-sidecar/ptc-sidecar/gen/ptcsidecar/v1"
)

// resentAttack is a request of many small fields, as raw bytes.
type resentAttack struct {
	name   string
	method string
	wire   []byte
	expect string // the gRPC code name, or "OK"
	path   string // what the refusal names first
}

// wireField is a field of m's type named name holding payload.
func wireField(m proto.Message, name string, payload []byte) []byte {
	fd := m.ProtoReflect().Descriptor().Fields().ByName(protoreflect.Name(name))
	if fd == nil {
		panic("no field " + name)
	}
	b := protowire.AppendTag(nil, fd.Number(), protowire.BytesType)
	return protowire.AppendBytes(b, payload)
}

// wireNumber is the number field name of m's type holding v.
func wireNumber(m proto.Message, name string, v uint64) []byte {
	fd := m.ProtoReflect().Descriptor().Fields().ByName(protoreflect.Name(name))
	return protowire.AppendVarint(protowire.AppendTag(nil, fd.Number(), protowire.VarintType), v)
}

// fill repeats unit up to size bytes after head.
func fill(head, unit []byte, size int) []byte {
	return append(head, bytes.Repeat(unit, (size-len(head))/len(unit))...)
}

// resentAttacks are the worst 15 MiB shapes of every kind of field, each
// with a timeout of 100 ms where the request evaluates.
func resentAttacks() []resentAttack {
	const size = 15 * mib
	stream := &ptcsidecarv1.EvalTurnStreamRequest{}
	eval := &ptcsidecarv1.EvalTurnRequest{}
	tm := &ptcsidecarv1.ToMessagesRequest{}
	rt := &ptcsidecarv1.RenderTraceRequest{}
	limits, err := proto.Marshal(&ptcsidecarv1.Limits{TimeoutMs: 100})
	if err != nil {
		panic(err)
	}
	program := slices.Concat(wireField(eval, "program", []byte("(+ 1 2)")), wireField(eval, "limits", limits))
	unknown := protowire.AppendVarint(protowire.AppendTag(nil, 1000, protowire.VarintType), 0)
	return []resentAttack{
		{"start and tool_result alternated", "EvalTurnStream",
			fill(nil, slices.Concat(wireField(stream, "start", nil), wireField(stream, "tool_result", nil)), size), "INVALID_ARGUMENT", "tool_result"},
		{"limits sent again inside start", "EvalTurnStream",
			wireField(stream, "start", fill(program, wireField(eval, "limits", nil), size-8)), "INVALID_ARGUMENT", "start.limits"},
		{"limits sent again", "EvalTurn", fill(program, wireField(eval, "limits", nil), size), "INVALID_ARGUMENT", "limits"},
		{"the program sent again", "EvalTurn", fill(program, wireField(eval, "program", []byte("ab")), size), "INVALID_ARGUMENT", "program"},
		{"a value's text sent again", "EvalTurn",
			slices.Concat(program, wireField(eval, "data", fill(nil, wireField(&ptcsidecarv1.Value{}, "edn", []byte("ab")), size-16))), "INVALID_ARGUMENT", "data.edn"},
		{"a number sent again", "EvalTurn", fill(program, wireNumber(eval, "turn_number", 1), size), "INVALID_ARGUMENT", "turn_number"},
		{"an optional number sent again", "ToMessages",
			wireField(tm, "options", fill(nil, wireNumber(&ptcsidecarv1.Options{}, "max_turns", 1), size-8)), "INVALID_ARGUMENT", "options.max_turns"},
		{"the memory sent again", "RenderTrace", fill(nil, wireField(rt, "memory", nil), size), "INVALID_ARGUMENT", "memory"},
		{"unknown fields", "EvalTurn", fill(program, unknown, size), "INVALID_ARGUMENT", "1000: "},
		{"a start of unknown fields", "EvalTurnStream", wireField(stream, "start", fill(program, unknown, size-8)), "INVALID_ARGUMENT", "start.1000: "},
		{"100,000 unknown fields", "EvalTurn", fill(program, unknown, len(program)+100_000*len(unknown)), "OK", ""},
		{"a long text", "EvalTurn", slices.Concat(program, wireField(eval, "raw_response", bytes.Repeat([]byte("a"), size-64))), "OK", ""},
		{"empty messages at the element limit", "ToMessages", fill(nil, wireField(tm, "history", nil), size), "INVALID_ARGUMENT", "history"},
	}
}

// TestResentFieldsCostLittleCPU sends each shape three times over gRPC and
// over HTTP (Connect's protobuf; JSON has no way to send a field twice,
// protojson refuses it): each gets its answer, the same in three runs, and
// the server spends under half a second of CPU time on it, read from
// /proc (past it, judged against the yardstick: checkCPU).
func TestResentFieldsCostLittleCPU(t *testing.T) {
	skipIfShort(t) // 15 MiB requests, three times each, over two listeners
	p := start(t, "--listen", "127.0.0.1:0", "--http-listen", "127.0.0.1:0")
	for _, a := range resentAttacks() {
		for _, listener := range []string{"gRPC", "HTTP"} {
			t.Run(a.name+"/"+listener, func(t *testing.T) {
				for run := range 3 {
					pid := p.cmd.Process.Pid
					cpu := serverCPUTime(t, pid)
					got, message := sendResent(t, p, listener, a)
					cpu = serverCPUTime(t, pid) - cpu
					t.Logf("run %d: %s in %v of server CPU (%.160s)", run+1, got, cpu, message)
					if got != a.expect || a.path != "" && !strings.HasPrefix(message, a.path) {
						t.Errorf("run %d: %s (%.300s), want %s naming %q", run+1, got, message, a.expect, a.path)
					}
					checkCPU(t, p, fmt.Sprintf("run %d, %d bytes", run+1, len(a.wire)), cpu, 500*time.Millisecond, func() time.Duration {
						cpu := serverCPUTime(t, pid)
						sendResent(t, p, listener, a)
						return serverCPUTime(t, pid) - cpu
					})
				}
			})
		}
	}
}

// sendResent sends a's bytes over listener and returns the answer's code
// name and message.
func sendResent(t *testing.T, p *process, listener string, a resentAttack) (got, message string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(testContext(t), hangGuard*raceSlowdown)
	defer cancel()
	if listener == "HTTP" {
		return sendResentHTTP(t, ctx, p, a)
	}
	opts := []grpc.CallOption{grpc.ForceCodecV2(rawCodec{}), grpc.MaxCallSendMsgSize(64 * mib), grpc.MaxCallRecvMsgSize(64 * mib)}
	var err error
	if a.method == "EvalTurnStream" {
		var s grpc.ClientStream
		s, err = p.client().NewStream(ctx, &grpc.StreamDesc{ClientStreams: true, ServerStreams: true},
			"/ptcsidecar.v1.SidecarService/EvalTurnStream", opts...)
		if err == nil {
			if err = s.SendMsg(a.wire); err == nil {
				s.CloseSend()
				err = s.RecvMsg(&ptcsidecarv1.EvalTurnStreamResponse{})
			}
			if err == io.EOF {
				err = s.RecvMsg(&ptcsidecarv1.EvalTurnStreamResponse{})
			}
		}
	} else {
		resp := map[string]proto.Message{"EvalTurn": &ptcsidecarv1.EvalTurnResponse{}, "ToMessages": &ptcsidecarv1.ToMessagesResponse{},
			"RenderTrace": &ptcsidecarv1.RenderTraceResponse{}}[a.method]
		err = p.client().Invoke(ctx, "/ptcsidecar.v1.SidecarService/"+a.method, a.wire, resp, opts...)
	}
	if err == nil {
		return "OK", ""
	}
	st := status.Convert(err)
	return strings.ToUpper(codeName(st.Code())), st.Message()
}

// sendResentHTTP posts a's bytes as Connect's protobuf: a unary method's
// body, or a stream's one enveloped message.
func sendResentHTTP(t *testing.T, ctx context.Context, p *process, a resentAttack) (got, message string) {
	t.Helper()
	body, contentType := a.wire, "application/proto"
	if a.method == "EvalTurnStream" {
		envelope := make([]byte, 5, 5+len(a.wire))
		bin.BigEndian.PutUint32(envelope[1:], uint32(len(a.wire)))
		body, contentType = append(envelope, a.wire...), "application/connect+proto"
	}
	hr, err := http.NewRequestWithContext(ctx, http.MethodPost, "http://"+p.httpAddr+"/ptcsidecar.v1.SidecarService/"+a.method, bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	hr.Header.Set("Content-Type", contentType)
	hr.Header.Set("Connect-Protocol-Version", "1")
	got, message = postAnswer(t, hr)
	return strings.ToUpper(got), message
}

// connectStreamError is the message of the error a Connect stream's
// answer raw ends with.
func connectStreamError(raw []byte) string {
	for len(raw) >= 5 {
		flag, n := raw[0], int(bin.BigEndian.Uint32(raw[1:5]))
		msg := raw[5:min(5+n, len(raw))]
		raw = raw[min(5+n, len(raw)):]
		var end struct{ Error struct{ Message string } }
		if flag&0x02 != 0 && json.Unmarshal(msg, &end) == nil {
			return end.Error.Message
		}
	}
	return ""
}
