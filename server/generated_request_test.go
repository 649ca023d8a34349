package server

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"runtime"
	"runtime/metrics"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"

	ptcsidecarv1 "github.com/ptc-sidecar/ptc-sidecar/gen/ptcsidecar/v1"
	"github.com/ptc-sidecar/ptc-sidecar/strategies"
)

// The generator below writes hostile requests from the service's proto
// descriptors: every field of every method's request message, walked by
// protoreflect, so a field added to the schema is filled without a change
// here. What a field gets depends on its kind (a string, a repeated field,
// an enum, an integer, a message) and its role, read from its name and
// the message it sits in: a value (Value.edn, Value.json) gets EDN, source
// or JSON of every value kind, deep, wide and repeated; a program gets
// hostile source; an id or a name gets names that collide; a role or a
// strategy gets one the server knows, most of the time; any other text is
// long, many-lined, or of 4-byte characters. Repeated fields hold up to
// thousands of elements, enums take numbers out of range, integers their
// limits. The same seed always writes the same request.

// requestRoom is the most bytes of text one generated request holds: the
// default --max-recv-bytes is 16 MiB, and a few MiB reach every limit that
// scales with the request.
const requestRoom = 3 << 20

// requestGen writes hostile requests from a seed.
type requestGen struct {
	r          *rand.Rand
	room       int    // bytes of text the request may still take
	wildOdds   int    // one field in wildOdds gets hostile content
	names      int    // tame names written so far, which keep them apart
	collide    string // when set, every tame name and id is this one
	strategies []string
}

func newRequestGen(seed uint64) *requestGen {
	g := &requestGen{r: rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15)), room: requestRoom}
	g.wildOdds = []int{3, 8, 20}[g.r.IntN(3)]
	for _, s := range strategies.All() {
		g.strategies = append(g.strategies, s.Name())
	}
	return g
}

func (g *requestGen) pick(xs ...string) string { return xs[g.r.IntN(len(xs))] }

// take is n, or what room is left, whichever is less, and spends it.
func (g *requestGen) take(n int) int {
	n = max(0, min(n, g.room))
	g.room -= n
	return n
}

// repeatTo is s repeated to about n bytes, within the room.
func (g *requestGen) repeatTo(s string, n int) string {
	n = g.take(n)
	if n < len(s) {
		return ""
	}
	return strings.Repeat(s, n/len(s))
}

// size is a text size, mostly small, sometimes large.
func (g *requestGen) size() int {
	return []int{0, 1, 16, 300, 4 << 10, 64 << 10, 512 << 10, 2 << 20}[g.r.IntN(8)]
}

// count is how many elements a repeated field gets.
func (g *requestGen) count() int {
	if !g.wild() {
		return max(0, g.r.IntN(6)-2)
	}
	return []int{0, 1, 2, 3, 40, 1000, 5000}[g.r.IntN(7)]
}

// wild is whether the next field gets hostile content. The others get
// what an ordinary caller sends, so that a request reaches the code past
// the first check it would fail.
func (g *requestGen) wild() bool { return g.r.IntN(g.wildOdds) == 0 }

// tameStr is what an ordinary caller sends in a string field.
func (g *requestGen) tameStr(fd protoreflect.FieldDescriptor) string {
	name := string(fd.Name())
	switch {
	case name == "edn":
		return g.pick(`{:a 1}`, `{:items [1 2 3] :name "x"}`, `{"k" [1.5 nil true]}`, `{:s #{:x}}`)
	case name == "json":
		return ""
	case name == "role":
		return g.pick("system", "user", "assistant", "tool")
	case name == "strategy":
		return g.strategies[g.r.IntN(len(g.strategies))]
	case name == "program":
		return g.pick("(+ 1 2)", `(tool/search {:q "x"})`, "(reduce + (range 1000))", "(def total 3)", "(map inc [1 2 3])", `(println "hi")`)
	case name == "signature", name == "return_type":
		return g.pick("", "(query :string) -> :string", "-> :int")
	case name == "id", name == "name", strings.HasSuffix(name, "_id"), name == "params", name == "defined":
		if g.collide != "" {
			return g.collide
		}
		g.names++
		if g.names == 1 {
			return "search"
		}
		return fmt.Sprintf("%s%d", g.pick("x", "total", "call_", "items"), g.names)
	case name == "content", name == "text", name == "mission":
		return g.pick("Find the total.", "ok", "```clojure\n(+ 1 2)\n```")
	}
	return ""
}

// hostileNames are ids and names that collide once sanitized or trimmed,
// or are not names at all.
var hostileNames = []string{"", "_", "a", "a b", "a-b", "a_b", "A", "tool/x", "x/", "/", "é", "e\u0301", "\x00", "\u202e", "💥", "1", "-1",
	"search", "search ", " search", "call_1", "call-1", "toolu_01", "a.b", "ns/a", ":k", "nil", "true", "(", "\"", "\n", "*1", "&", "%1"}

// hostileSource is source text: programs that build, loop, nest, call
// tools, define, or do not read.
var hostileSource = []string{"1", "(+ 1 2)", "(tool/search {:q \"x\"})", "(def x (range))", "(defn f [x] (f x))", "(loop [] (recur))",
	"(reduce + (range 1000000))", "(vec (range 100000))", "(apply str (repeat 100000 \"ab\"))", "(map inc (range))",
	"(reduce (fn [s _] (map inc s)) (range) (range 2000))", "(println (apply str (repeat 70000 \"x\")))",
	"(do (tool/search {}) (tool/search {}) (tool/search {}))", "(fail {:a 1})", "(/ 1 0)", "[1 2", "\"unclosed", ")))",
	"(let [m (zipmap (range 20000) (range))] (str m))", "(def memory/x 1)", "(return (range 10))", "*1", "(first *1)",
	"(str (keyword \"a b\") (symbol \"x y\"))", "(re-pattern \"(a*)*b\")", "(memoize inc)", "#{1 1}", "{:a 1 :a 2}"}

// hostileSignatures are signature texts, valid, deep and broken.
var hostileSignatures = []string{"", "-> :int", "(query :string) -> :string", "(a :int, b [:map]) -> {:x :string}", "->", "(",
	"(x :nope) -> :int", "(a :int, a :int) -> :int", "-> [[[[[[[[[[:int]]]]]]]]]]", "(x {:a {:b {:c :int}}}) -> :any"}

// valueText is the text of a value for a field that holds one: EDN or
// source of every kind the printer emits, deep, wide, or one part shared
// many times.
func (g *requestGen) valueText() string {
	switch g.r.IntN(9) {
	case 0:
		return randomValueExpr(g.r, 5)
	case 1: // deep
		d := []int{10, 100, 1000, 100000}[g.r.IntN(4)]
		open, closing := g.pick("[", "(", "{:a ", "#{", "'("), ""
		switch open {
		case "[":
			closing = "]"
		case "#{":
			closing = "}"
		case "{:a ":
			closing = "}"
		default:
			closing = ")"
		}
		d = g.take(d*(len(open)+len(closing))) / (len(open) + len(closing))
		return strings.Repeat(open, d) + "1" + strings.Repeat(closing, d)
	case 2: // wide
		return "[" + g.repeatTo(g.pick("1 ", "\"é中😀\" ", ":k ", "nil ", "1.5M ", "1/3 ", "##NaN ", "\\c ", "#{} ", "{} "), g.size()) + "]"
	case 3: // one part repeated: what a shared value prints as
		part := randomValueExpr(g.r, 4)
		return "[" + g.repeatTo(part+" ", g.size()) + "]"
	case 4: // a map of keys that collide
		return "{" + g.repeatTo(g.pick(`"a" 1 `, `:a 1 `, `(keyword "a") 1 `, `'a 1 `), g.size()) + "}"
	case 5: // a set of one element many times
		return "#{" + g.repeatTo("1 ", g.size()) + "}"
	case 6:
		return g.pick("nil", "", " ", "#inst \"2024-01-01T00:00:00Z\"", "#uuid \"00000000-0000-0000-0000-000000000000\"", "#foo 1",
			"#_ 1", "##NaN", "1e999999", "99999999999999999999999999999999N", "\\u0000", "(fn [] 1)", "#'x", "@x", "~x", "`x",
			"#\"(\"", "(quote", "1 2", "{:a}", ":", "::a", "#:a{:b 1}", "^:m [1]", "#?(:clj 1)")
	case 7:
		return g.pick(hostileSource...)
	}
	return g.jsonText()
}

// jsonText is JSON text: deep, wide, colliding keys, lone surrogates,
// numbers past every range.
func (g *requestGen) jsonText() string {
	switch g.r.IntN(5) {
	case 0:
		d := g.take(2*[]int{10, 1000, 100000}[g.r.IntN(3)]) / 2
		return strings.Repeat("[", d) + strings.Repeat("]", d)
	case 1:
		return "[" + g.repeatTo(`{"a":1,"a":2},`, g.size()) + "0]"
	case 2:
		return "{" + g.repeatTo(`"k":"\ud800",`, g.size()) + `"z":1e400}`
	case 3:
		return g.pick(`{"a":1}`, `[1,2.5,"x",true,null]`, `1e999`, `-0`, `"\u0000"`, `{"":{"":{}}}`, `[1,]`, `{"a" 1}`, `nul`, ``, `123456789012345678901234567890`)
	}
	return `{"items":[` + g.repeatTo(`{"id":1,"name":"é"},`, g.size()) + `{}]}`
}

// text is free text: long, many-lined, 4-byte characters, control
// characters, markup the renderers quote.
func (g *requestGen) text() string {
	return g.repeatTo(g.pick("a", "\n", "é中😀", "\x01", "```", "<|im_end|>", "\r\n", " ", "\t", "\\", "\"", "{{x}}", "%s", "\u202e"), g.size())
}

// str fills a string field by its role.
func (g *requestGen) str(fd protoreflect.FieldDescriptor) string {
	if !g.wild() {
		return g.tameStr(fd)
	}
	name := string(fd.Name())
	parent := string(fd.ContainingMessage().Name())
	switch {
	case parent == "Value" && name == "json":
		return g.jsonText()
	case parent == "Value":
		return g.valueText()
	case name == "role":
		if g.r.IntN(4) == 0 {
			return g.pick(hostileNames...)
		}
		return g.pick("system", "user", "assistant", "tool", "developer")
	case name == "strategy":
		if g.r.IntN(8) == 0 {
			return g.pick(hostileNames...)
		}
		return g.strategies[g.r.IntN(len(g.strategies))]
	case name == "program", name == "raw_response", name == "content" && g.r.IntN(2) == 0:
		if g.r.IntN(3) == 0 {
			return "```clojure\n" + g.pick(hostileSource...) + "\n```" + g.text()
		}
		return g.pick(hostileSource...) + g.repeatTo(g.pick(")", " ", "\n", "1 ", "(+ 1 2) "), g.size()/4)
	case name == "signature", name == "return_type":
		return g.pick(hostileSignatures...)
	case name == "arguments", name == "parameters", name == "provider_json":
		return g.jsonText()
	case name == "id", name == "name", strings.HasSuffix(name, "_id"), name == "params", name == "defined", name == "exclude_tools":
		if g.r.IntN(6) == 0 {
			return g.repeatTo(g.pick(hostileNames[1:]...), g.size())
		}
		return g.pick(hostileNames...)
	}
	if g.r.IntN(2) == 0 {
		return "" // most options read empty as their default
	}
	return g.text()
}

// scalar is a hostile value of a field of a kind other than a message.
func (g *requestGen) scalar(fd protoreflect.FieldDescriptor) protoreflect.Value {
	switch fd.Kind() {
	case protoreflect.StringKind:
		return protoreflect.ValueOfString(g.str(fd))
	}
	if !g.wild() {
		return g.tameScalar(fd)
	}
	switch fd.Kind() {
	case protoreflect.BytesKind:
		return protoreflect.ValueOfBytes([]byte(g.text()))
	case protoreflect.BoolKind:
		return protoreflect.ValueOfBool(g.r.IntN(2) == 0)
	case protoreflect.EnumKind:
		values := fd.Enum().Values()
		if g.r.IntN(3) == 0 {
			return protoreflect.ValueOfEnum(protoreflect.EnumNumber([]int32{-1, 99, math.MaxInt32, math.MinInt32}[g.r.IntN(4)]))
		}
		return protoreflect.ValueOfEnum(values.Get(g.r.IntN(values.Len())).Number())
	case protoreflect.Int32Kind, protoreflect.Sint32Kind, protoreflect.Sfixed32Kind:
		return protoreflect.ValueOfInt32([]int32{0, 1, -1, 2, 7, 1000, 1 << 20, math.MaxInt32, math.MinInt32}[g.r.IntN(9)])
	case protoreflect.Int64Kind, protoreflect.Sint64Kind, protoreflect.Sfixed64Kind:
		return protoreflect.ValueOfInt64([]int64{0, 1, -1, 2, 1000, 1 << 40, math.MaxInt64, math.MinInt64}[g.r.IntN(8)])
	case protoreflect.Uint32Kind, protoreflect.Fixed32Kind:
		return protoreflect.ValueOfUint32([]uint32{0, 1, 1000, math.MaxUint32}[g.r.IntN(4)])
	case protoreflect.Uint64Kind, protoreflect.Fixed64Kind:
		return protoreflect.ValueOfUint64([]uint64{0, 1, 1000, math.MaxUint64}[g.r.IntN(4)])
	case protoreflect.FloatKind:
		return protoreflect.ValueOfFloat32([]float32{0, -1, 0.5, float32(math.Inf(1)), float32(math.NaN()), math.MaxFloat32}[g.r.IntN(6)])
	case protoreflect.DoubleKind:
		return protoreflect.ValueOfFloat64([]float64{0, -1, 0.5, math.Inf(1), math.Inf(-1), math.NaN(), math.MaxFloat64}[g.r.IntN(7)])
	}
	panic(fmt.Sprintf("no hostile value for %s of kind %s", fd.FullName(), fd.Kind()))
}

// tameScalar is what an ordinary caller sends in a field other than a
// string: a small count, the first enum value, false.
func (g *requestGen) tameScalar(fd protoreflect.FieldDescriptor) protoreflect.Value {
	n := 1 + g.r.IntN(3)
	if fd.Name() == "index" {
		n = 0 // answers come in call order
	}
	switch fd.Kind() {
	case protoreflect.BoolKind:
		return protoreflect.ValueOfBool(false)
	case protoreflect.EnumKind:
		return protoreflect.ValueOfEnum(fd.Enum().Values().Get(0).Number())
	case protoreflect.Int32Kind, protoreflect.Sint32Kind, protoreflect.Sfixed32Kind:
		return protoreflect.ValueOfInt32(int32(n))
	case protoreflect.Int64Kind, protoreflect.Sint64Kind, protoreflect.Sfixed64Kind:
		return protoreflect.ValueOfInt64(int64(n))
	case protoreflect.Uint32Kind, protoreflect.Fixed32Kind:
		return protoreflect.ValueOfUint32(uint32(n))
	case protoreflect.Uint64Kind, protoreflect.Fixed64Kind:
		return protoreflect.ValueOfUint64(uint64(n))
	case protoreflect.FloatKind:
		return protoreflect.ValueOfFloat32(float32(n))
	case protoreflect.DoubleKind:
		return protoreflect.ValueOfFloat64(float64(n))
	}
	return protoreflect.ValueOfBytes(nil)
}

// fill sets every field of m (one member of each oneof) to hostile
// content, nested messages filled the same way, less often the deeper
// they sit.
func (g *requestGen) fill(m protoreflect.Message, depth int) {
	fields := m.Descriptor().Fields()
	chosen := map[protoreflect.FullName]protoreflect.Name{}
	for i := range m.Descriptor().Oneofs().Len() {
		o := m.Descriptor().Oneofs().Get(i)
		member := 0
		if g.wild() {
			member = g.r.IntN(o.Fields().Len())
		}
		chosen[o.FullName()] = o.Fields().Get(member).Name()
	}
	for i := range fields.Len() {
		fd := fields.Get(i)
		if o := fd.ContainingOneof(); o != nil && !o.IsSynthetic() && chosen[o.FullName()] != fd.Name() {
			continue
		}
		if g.room <= 0 || (fd.Message() != nil || fd.IsList()) && g.r.IntN(depth+2) > 1 {
			continue // deeper messages leave more of their parts unset
		}
		switch {
		case fd.IsMap():
			mp := m.Mutable(fd).Map()
			for range g.count() {
				key := protoreflect.ValueOfString(g.pick(hostileNames...)).MapKey()
				if fd.MapValue().Message() != nil {
					g.fill(mp.Mutable(key).Message(), depth+1)
				} else {
					mp.Set(key, g.scalar(fd.MapValue()))
				}
			}
		case fd.IsList():
			list := m.Mutable(fd).List()
			n := g.count()
			for range n {
				if g.room <= 0 {
					break
				}
				if fd.Message() != nil {
					g.fill(list.AppendMutable().Message(), depth+1)
				} else {
					list.Append(g.scalar(fd))
				}
			}
		case fd.Message() != nil:
			g.fill(m.Mutable(fd).Message(), depth+1)
		case fd.HasPresence() && !g.wild():
			// An option left unset takes its default; set, it must be in range.
		default:
			m.Set(fd, g.scalar(fd))
		}
	}
}

// requestMessages are the request messages of every method of the
// service, read from its descriptor.
func requestMessages(t testing.TB) []protoreflect.MessageType {
	var out []protoreflect.MessageType
	methods := ptcsidecarv1.File_ptcsidecar_v1_service_proto.Services().Get(0).Methods()
	for i := range methods.Len() {
		mt, err := protoregistry.GlobalTypes.FindMessageByName(methods.Get(i).Input().FullName())
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, mt)
	}
	return out
}

// generatedRequest is the request seed writes for a method's message.
func generatedRequest(mt protoreflect.MessageType, seed uint64) proto.Message {
	m := mt.New()
	newRequestGen(seed).fill(m, 0)
	return m.Interface()
}

// onceStream is an EvalTurnStream that sends its start message, then
// ends: a tool call waits for an answer that never comes, and the stream
// answers what a closed stream answers.
type onceStream struct {
	grpc.ServerStream
	ctx   context.Context
	first *ptcsidecarv1.EvalTurnStreamRequest
	sent  []*ptcsidecarv1.EvalTurnStreamResponse
}

func (s *onceStream) Context() context.Context { return s.ctx }

func (s *onceStream) Send(m *ptcsidecarv1.EvalTurnStreamResponse) error {
	s.sent = append(s.sent, m)
	return nil
}

func (s *onceStream) Recv() (*ptcsidecarv1.EvalTurnStreamRequest, error) {
	if m := s.first; m != nil {
		s.first = nil
		return m, nil
	}
	return nil, io.EOF
}

// serveGenerated sends req through the server's codec, as the gRPC
// server does, then to its method. It returns the response (the stream's
// last message for EvalTurnStream) and the error; a panic is returned as
// an error the caller fails on.
func serveGenerated(svc *Service, req proto.Message) (resp proto.Message, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("panic: %v", p)
			resp = nil
		}
	}()
	wire, err := proto.Marshal(req)
	if err != nil {
		return nil, fmt.Errorf("marshal: %w", err)
	}
	m := req.ProtoReflect().Type().New().Interface()
	if err := svc.limits.unmarshal(wire, m, svc.limits.schemas[m.ProtoReflect().Descriptor().FullName()]); err != nil {
		return nil, fmt.Errorf("codec: %w", err)
	}
	ctx := context.Background()
	unary := func(resp proto.Message, err error) (proto.Message, error) { return resp, CutStatus(err) } // the binary's interceptor
	switch in := m.(type) {
	case *ptcsidecarv1.ToMessagesRequest:
		return unary(svc.ToMessages(ctx, in))
	case *ptcsidecarv1.EvalTurnRequest:
		return unary(svc.EvalTurn(ctx, in))
	case *ptcsidecarv1.RenderTraceRequest:
		return unary(svc.RenderTrace(ctx, in))
	case *ptcsidecarv1.ListStrategiesRequest:
		return unary(svc.ListStrategies(ctx, in))
	case *ptcsidecarv1.EvalTurnStreamRequest:
		stream := &onceStream{ctx: ctx, first: in}
		err := CutStatus(svc.EvalTurnStream(stream))
		if len(stream.sent) > 0 {
			resp = stream.sent[len(stream.sent)-1]
		}
		return resp, err
	}
	return nil, fmt.Errorf("no method takes %T", m)
}

// outcome is what a call answered, reduced to what must not change from
// one call to the next: the status code and message, or the response's
// text, less what measures time. An evaluation's outcome is its value or
// its error's type (a limit's message names the figures reached, which
// vary).
func outcome(resp proto.Message, err error) string {
	if err != nil {
		st := status.Convert(err)
		return st.Code().String() + ": " + st.Message()
	}
	turn := evaluatedTurn(resp)
	if turn == nil {
		return "ok " + prototextOf(resp)
	}
	if e := turn.GetError(); e != nil {
		return "error " + e.GetType()
	}
	return "value " + turn.GetResult().GetEdn()
}

// evaluatedTurn is the turn an EvalTurn or EvalTurnStream response holds.
func evaluatedTurn(resp proto.Message) *ptcsidecarv1.Turn {
	switch r := resp.(type) {
	case *ptcsidecarv1.EvalTurnResponse:
		return r.GetTurn()
	case *ptcsidecarv1.EvalTurnStreamResponse:
		return r.GetTurn()
	}
	return nil
}

// prototextOf is a response's wire bytes as text, deterministic.
func prototextOf(m proto.Message) string {
	if m == nil {
		return "<nil>"
	}
	b, _ := proto.MarshalOptions{Deterministic: true}.Marshal(m)
	return string(b)
}

// namesAField is whether an error message starts with the path of a field
// of the request message md: "turns[2].prints: ...".
func namesAField(md protoreflect.MessageDescriptor, msg string) bool {
	path, _, ok := strings.Cut(msg, ": ")
	if !ok {
		return false
	}
	first := path
	if i := strings.IndexAny(path, ".[ "); i >= 0 {
		first = path[:i]
	}
	return md.Fields().ByName(protoreflect.Name(first)) != nil
}

// heapPeak runs call while sampling the heap's objects (live or not yet
// collected: what the process holds, the part of RSS a request moves)
// every millisecond, and returns the most they grew past where they
// started.
func heapPeak(call func()) uint64 {
	runtime.GC()
	start := heapObjectBytes()
	var peak atomic.Uint64
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
		tick := time.NewTicker(time.Millisecond)
		defer tick.Stop()
		for {
			metrics.Read(s)
			if v := s[0].Value.Uint64(); v > peak.Load() {
				peak.Store(v)
			}
			select {
			case <-done:
				return
			case <-tick.C:
			}
		}
	}()
	call()
	close(done)
	wg.Wait()
	if end := heapObjectBytes(); end > peak.Load() {
		peak.Store(end)
	}
	return max(peak.Load(), start) - start
}

// heapBound is the bound on what serving req may hold: 16 times
// the request and 32 MiB for decoding it, and for a method that evaluates,
// the allocation budget on top.
func heapBound(svc *Service, req proto.Message, wireSize int) uint64 {
	bound := uint64(16*wireSize) + 32<<20
	switch req.(type) {
	case *ptcsidecarv1.EvalTurnRequest, *ptcsidecarv1.EvalTurnStreamRequest:
		bound += uint64(svc.cfg.Limits.WithDefaults().MaxAllocBytes)
	}
	return bound
}

// checkGenerated serves one generated request twice and checks the
// issue's bounds; it returns what went wrong, "" when nothing did.
func checkGenerated(svc *Service, req proto.Message, measure bool) string {
	wireSize := proto.Size(req)
	var resp proto.Message
	var err error
	call := func() { resp, err = serveGenerated(svc, req) }
	var held uint64
	if measure {
		held = heapPeak(call)
	} else {
		call()
	}
	if err != nil && strings.HasPrefix(err.Error(), "panic: ") || err != nil && status.Code(err) == codes.Unknown {
		return err.Error()
	}
	first := outcome(resp, err)
	switch code := status.Code(err); code {
	case codes.OK, codes.ResourceExhausted, codes.DeadlineExceeded, codes.Canceled, codes.Unavailable:
	case codes.InvalidArgument, codes.FailedPrecondition, codes.OutOfRange:
		if !namesAField(req.ProtoReflect().Descriptor(), status.Convert(err).Message()) {
			return "the error names no field: " + first
		}
	default:
		return "answered " + first
	}
	if bound := heapBound(svc, req, wireSize); measure && held > bound {
		// The least of three: a collection that ran late is not the request's.
		for range 2 {
			held = min(held, heapPeak(call))
		}
		if held > bound {
			return fmt.Sprintf("a %d-byte request held %.1f MiB, over its bound of %.1f MiB", wireSize, float64(held)/(1<<20), float64(bound)/(1<<20))
		}
	}
	again, againErr := serveGenerated(svc, req)
	if second := outcome(again, againErr); second != first {
		return fmt.Sprintf("answered %.300s, then %.300s", first, second)
	}
	if turn := evaluatedTurn(resp); turn != nil {
		return readsBack(svc, turn)
	}
	return ""
}

// readsBack is "" when every value turn emits is accepted back as a
// previous result and as a turn's result in ToMessages, the fields a
// caller sends an emitted value in; else what was refused.
func readsBack(svc *Service, turn *ptcsidecarv1.Turn) string {
	ctx := context.Background()
	fields, values := emitted(turn)
	for i, v := range values {
		if _, err := svc.EvalTurn(ctx, &ptcsidecarv1.EvalTurnRequest{Program: "1", PreviousResults: []*ptcsidecarv1.Value{v}}); err != nil {
			return fmt.Sprintf("%s %.200s is refused as a previous result: %v", fields[i], v.GetEdn(), err)
		}
		req := &ptcsidecarv1.ToMessagesRequest{Options: &ptcsidecarv1.Options{Strategy: "full"},
			Turns: []*ptcsidecarv1.Turn{{Number: 1, Program: "1", Result: &ptcsidecarv1.Value{Edn: v.GetEdn()}, Success: true}}}
		if _, err := svc.ToMessages(ctx, req); err != nil {
			return fmt.Sprintf("%s %.200s is refused as a turn's result: %v", fields[i], v.GetEdn(), err)
		}
	}
	return ""
}

// generatedRequestService is the server the binary runs by default.
func generatedRequestService() *Service {
	cfg := DefaultConfig()
	cfg.LargeRequestBytes = -1 // admission is about load; one request at a time here
	cfg.StreamStartTimeout = time.Second
	return New(cfg)
}

// TestGeneratedRequests writes hostile requests for every method from
// the schema and checks each against the bounds: no panic and no
// INTERNAL, a refusal that names the field, the heap within 16 times the
// request and 32 MiB (and the allocation budget for an evaluation), the
// same outcome on a second call, and every emitted value accepted back.
func TestGeneratedRequests(t *testing.T) {
	seeds := 200
	switch {
	case raceEnabled:
		seeds = 20 // the detector is the check here, not the heap
	case testing.Short():
		seeds = 60
	}
	svc := generatedRequestService()
	measure := !raceEnabled
	for _, mt := range requestMessages(t) {
		for seed := range uint64(seeds) {
			req := generatedRequest(mt, seed)
			if problem := checkGenerated(svc, req, measure); problem != "" {
				t.Errorf("%s seed %d: %s", mt.Descriptor().Name(), seed, problem)
			}
		}
	}
}

// FuzzGeneratedRequests explores more seeds of the generator, for every
// method.
func FuzzGeneratedRequests(f *testing.F) {
	for seed := range uint64(4) {
		f.Add(seed, uint8(seed))
	}
	svc := generatedRequestService()
	types := requestMessages(f)
	f.Fuzz(func(t *testing.T, seed uint64, method uint8) {
		mt := types[int(method)%len(types)]
		if problem := checkGenerated(svc, generatedRequest(mt, seed), !raceEnabled); problem != "" {
			t.Errorf("%s seed %d: %s", mt.Descriptor().Name(), seed, problem)
		}
	})
}

// A sized field is a path from a request message to a string or repeated
// field, which the doubling test fills at growing sizes.
type sizedField struct {
	path []protoreflect.FieldDescriptor
	// collide, for a repeated field of messages, is the name and id its
	// elements all take ("" keeps them apart).
	collide string
}

func (f sizedField) String() string {
	var b strings.Builder
	for i, fd := range f.path {
		if i > 0 {
			b.WriteByte('.')
		}
		b.WriteString(string(fd.Name()))
		if fd.IsList() && i < len(f.path)-1 {
			b.WriteString("[0]")
		}
	}
	if f.collide != "" {
		fmt.Fprintf(&b, " (names and ids all %q)", f.collide)
	}
	return b.String()
}

// sizedFields lists every string and repeated field reachable from md,
// read from the descriptors: a field added to the schema is listed too.
func sizedFields(md protoreflect.MessageDescriptor, prefix []protoreflect.FieldDescriptor) []sizedField {
	var out []sizedField
	for i := range md.Fields().Len() {
		fd := md.Fields().Get(i)
		path := append(append([]protoreflect.FieldDescriptor(nil), prefix...), fd)
		if fd.IsList() || fd.Kind() == protoreflect.StringKind {
			out = append(out, sizedField{path: path})
		}
		if fd.IsList() && fd.Message() != nil {
			// Names and ids that sanitize to one, which a renderer rewrites
			// apart, and one name sent many times.
			out = append(out, sizedField{path: path, collide: "a b"}, sizedField{path: path, collide: "search"})
		}
		if fd.Message() != nil && !fd.IsMap() {
			out = append(out, sizedFields(fd.Message(), path)...)
		}
	}
	return out
}

// tameGen writes only what an ordinary caller sends.
func tameGen() *requestGen {
	g := newRequestGen(1)
	g.wildOdds = math.MaxInt
	return g
}

// sizedText is n bytes of text of the kind the field holds: a value for a
// value, a program for a program, words for other text.
func sizedText(fd protoreflect.FieldDescriptor, n int) string {
	unit := "a"
	switch name := string(fd.Name()); {
	case name == "edn":
		return "[" + strings.Repeat("1 ", n/2) + "]"
	case name == "json":
		return "[" + strings.Repeat("1,", n/2) + "1]"
	case name == "program", name == "raw_response":
		unit = "(+ 1 2)\n"
	case name == "content", name == "text", name == "mission", name == "message", name == "error":
		unit = "word "
	}
	return strings.Repeat(unit, n/len(unit))
}

// withSize is base with the field at path filled to size n: n bytes of
// text for a string, n elements for a repeated field.
func withSize(base proto.Message, f sizedField, n int) proto.Message {
	req := proto.Clone(base)
	m := req.ProtoReflect()
	g := tameGen()
	for _, fd := range f.path[:len(f.path)-1] {
		if !fd.IsList() {
			m = m.Mutable(fd).Message()
			continue
		}
		list := m.Mutable(fd).List()
		if list.Len() == 0 {
			g.fill(list.AppendMutable().Message(), 1)
		}
		m = list.Get(0).Message()
	}
	g.collide = f.collide
	leaf := f.path[len(f.path)-1]
	if !leaf.IsList() {
		m.Set(leaf, protoreflect.ValueOfString(sizedText(leaf, n)))
		return req
	}
	m.Clear(leaf)
	list := m.Mutable(leaf).List()
	for range n {
		if leaf.Message() != nil {
			g.fill(list.AppendMutable().Message(), 1)
		} else {
			list.Append(g.tameScalarOrString(leaf))
		}
	}
	return req
}

// tameScalarOrString is what an ordinary caller sends in an element of a
// repeated field of a kind other than a message.
func (g *requestGen) tameScalarOrString(fd protoreflect.FieldDescriptor) protoreflect.Value {
	if fd.Kind() == protoreflect.StringKind {
		return protoreflect.ValueOfString(g.tameStr(fd))
	}
	return g.tameScalar(fd)
}

// leastWork is the fewest bytes serving req allocated in calls calls,
// each to a new server: what the server remembers of a request (a value's
// printed text, a read program) would make a second call cheaper below
// the size it remembers and not above it, a step the doubling would take
// for growth.
func leastWork(req proto.Message, calls int) uint64 {
	least := uint64(math.MaxUint64)
	for range calls {
		svc := generatedRequestService()
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		serveGenerated(svc, req)
		runtime.ReadMemStats(&after)
		least = min(least, after.TotalAlloc-before.TotalAlloc)
	}
	return least
}

// doublingBases are ordinary requests of every method that takes fields,
// one a strategy reading turns and one reading a chat log for the methods
// that render: each sized field is doubled inside each.
func doublingBases() []proto.Message {
	history := []*ptcsidecarv1.ChatMessage{{Role: "system", Content: "You help."}, {Role: "user", Content: "Find the total."},
		{Role: "assistant", ToolCalls: []*ptcsidecarv1.ChatToolCall{{Id: "call_1", Name: "search", Arguments: `{"q":"x"}`}}},
		{Role: "tool", ToolCallId: "call_1", Content: "3"}}
	var bases []proto.Message
	for _, strategy := range []string{"full", "summarize"} {
		req := agentRequest()
		req.Options.Strategy = strategy
		if strategy == "summarize" {
			req.Turns, req.History = nil, history
		}
		bases = append(bases, req, &ptcsidecarv1.RenderTraceRequest{Turns: req.Turns, Memory: req.Memory, Options: req.Options, History: req.History})
	}
	eval := &ptcsidecarv1.EvalTurnRequest{Program: `(def n (count data/items)) (tool/search {:q "x"})`, Data: edn(`{:items [1 2 3]}`),
		Tools: []*ptcsidecarv1.ToolSpec{{Name: "search"}}, ToolResults: []*ptcsidecarv1.ToolResult{{Name: "search", Args: edn(`{:q "x"}`), Result: edn("[1 2]")}}}
	return append(bases, eval, &ptcsidecarv1.EvalTurnStreamRequest{Message: &ptcsidecarv1.EvalTurnStreamRequest_Start{Start: &ptcsidecarv1.EvalTurnRequest{
		Program: `(def n (count data/items)) (inc n)`, Data: eval.Data, Tools: eval.Tools}}})
}

// doubling is one sized field's work at three sizes.
type doubling struct {
	method, field string
	work          [4]uint64
}

// growth is the work's growth per doubling over the three doublings.
func (d doubling) growth() float64 {
	return math.Cbrt(float64(d.work[3]) / float64(max(d.work[0], 1)))
}

// worstStep is the most the work grew over one doubling.
func (d doubling) worstStep() float64 {
	worst := 0.0
	for i := 1; i < len(d.work); i++ {
		worst = max(worst, float64(d.work[i])/float64(max(d.work[i-1], 1)))
	}
	return worst
}

// measureDoublings fills every sized field of every base at n, 2n, 4n and 8n
// (bytes of text, elements of a list) and measures the work of each.
func measureDoublings(textBytes, elements int, short bool) []doubling {
	var out []doubling

	for _, base := range doublingBases() {
		switch base.(type) {
		case *ptcsidecarv1.RenderTraceRequest, *ptcsidecarv1.EvalTurnStreamRequest:
			if short {
				continue // the fields of ToMessages and EvalTurn, served another way
			}
		}
		method := string(base.ProtoReflect().Descriptor().Name())
		if req, ok := base.(*ptcsidecarv1.ToMessagesRequest); ok {
			method += " " + req.Options.Strategy
		} else if req, ok := base.(*ptcsidecarv1.RenderTraceRequest); ok {
			method += " " + req.Options.Strategy
		}
		for _, f := range sizedFields(base.ProtoReflect().Descriptor(), nil) {
			n := textBytes
			if f.path[len(f.path)-1].IsList() {
				n = elements
			}
			d := doubling{method: method, field: f.String()}
			for calls := 1; calls <= 3 && (calls == 1 || d.growth() > maxDoublingGrowth); calls += 2 {
				// Serving is deterministic: one call each, and the least of
				// three when the growth is over, against a stray collection.
				for i := range d.work {
					d.work[i] = leastWork(withSize(base, f, n<<i), calls)
				}
			}
			out = append(out, d)
		}
	}
	return out
}

// maxDoublingGrowth is the most the work may grow per doubling of a
// field, over three doublings: linear work doubles; a quadratic path
// grows 4 times. Allocation grows in steps (a slice's or a builder's
// capacity, a buffer kept for reuse up to a size: fmt's 64 KiB, the
// printer's 256 KiB, 1 MiB ones further down), which may overshoot one
// doubling; over three, a one-off step of up to 1.5 times still passes.
const maxDoublingGrowth = 2.3

// TestGeneratedRequestsDoubling fills every string and repeated field of
// every method's request (read from the descriptors) at n, 2n, 4n and 8n
// (256 KiB of text, past the printer's reused buffers, and 100 elements
// at first), inside an ordinary request, and checks that the bytes
// allocated (one call, the least of three when over, each to a new
// server) grow at
// most maxDoublingGrowth per doubling over the three: no path is
// superlinear in a field's size. With -v it logs the worst growths.
func TestGeneratedRequestsDoubling(t *testing.T) {
	if raceEnabled {
		t.Skip("allocation counts under -race are the detector's")
	}
	ds := measureDoublings(256<<10, 100, testing.Short())
	slices.SortFunc(ds, func(a, b doubling) int { return cmp.Compare(b.growth(), a.growth()) })
	t.Logf("%d fields doubled; the worst growths:", len(ds))
	for i, d := range ds {
		if i < 12 {
			t.Logf("%s %s: %v bytes: %.2fx per doubling over the three, %.2fx at most over one", d.method, d.field, d.work, d.growth(), d.worstStep())
		}
		if d.growth() > maxDoublingGrowth {
			t.Errorf("%s %s: %v bytes allocated at n, 2n, 4n and 8n: %.2fx per doubling, over %.1fx",
				d.method, d.field, d.work, d.growth(), maxDoublingGrowth)
		}
	}
}

// TestGeneratedRequestsThatBroke serves, for every method, the seeds whose
// requests once held more than the decoding bound in the reader of
// values: a set literal of one element a million times (204), and maps
// and sets of source whose quoted keys collide (496, 1048, 1385).
func TestGeneratedRequestsThatBroke(t *testing.T) {
	svc := generatedRequestService()
	for _, mt := range requestMessages(t) {
		for _, seed := range []uint64{204, 496, 1048, 1385} {
			if problem := checkGenerated(svc, generatedRequest(mt, seed), !raceEnabled); problem != "" {
				t.Errorf("%s seed %d: %s", mt.Descriptor().Name(), seed, problem)
			}
		}
	}
}
