package main

import (
	"bytes"
	"cmp"
	"context"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strings"

	"golang.org/x/net/http2"
	"golang.org/x/net/http2/hpack"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
)

// callerFaultKey is the metadata under which a call whose headers
// grpc-go would refuse as a fault of the server's reaches the handlers
// (headerConn), saying what is wrong: refuseCallerFault answers it
// INVALID_ARGUMENT.
const callerFaultKey = "ptc-sidecar-caller-header-fault"

// headerCreds are the gRPC listener's transport credentials (none: in
// the clear) with each connection passed through headerConn once its
// handshake is done.
type headerCreds struct {
	credentials.TransportCredentials
}

func (c headerCreds) ServerHandshake(raw net.Conn) (net.Conn, credentials.AuthInfo, error) {
	conn, info, err := c.TransportCredentials.ServerHandshake(raw)
	if err != nil {
		return nil, nil, err
	}
	return newHeaderConn(conn), info, nil
}

func (c headerCreds) Clone() credentials.TransportCredentials {
	return headerCreds{c.TransportCredentials.Clone()}
}

// headerConn passes what a caller sends on to grpc-go's transport, with
// the headers grpc-go answers INTERNAL, a fault of the server's, though
// they are the caller's, set aside (callerHeaderFault): a malformed
// grpc-timeout ("1x", "-1S", "9999999999H"), a :method other than POST,
// binary metadata that is not base64. grpc-go answered them before any of
// the server's code ran, for every method; set aside, the call reaches
// refuseCallerFault, which answers INVALID_ARGUMENT saying what is wrong,
// as the HTTP listener does (callerHeaders). A
// header block is compressed against the blocks before it (HPACK), so
// every block is decoded and encoded again, against tables of this
// connection's own; every other frame passes through as it came. A block
// is bounded as grpc-go bounds it (maxHeaderBytes); one past it, or one
// that does not decode, ends the connection, as grpc-go would.
type headerConn struct {
	net.Conn
	in       []byte // bytes read from the caller, not yet handled
	out      []byte // bytes handled, not yet read by the transport
	pass     int    // bytes of the current frame to pass on as they come
	started  bool   // the connection preface is passed on
	block    []byte // the header block being gathered
	stream   uint32 // its stream
	flags    http2.Flags
	gather   bool
	dec      *hpack.Decoder
	enc      *hpack.Encoder
	encoded  bytes.Buffer
	fields   []hpack.HeaderField
	listSize int
	framed   []byte // the frames of the block encoded again
}

func newHeaderConn(conn net.Conn) *headerConn {
	c := &headerConn{Conn: conn}
	// grpc-go advertises HPACK's default table size, so the caller
	// compresses against a table of 4096 bytes, and decodes what it is
	// sent against one.
	c.dec = hpack.NewDecoder(4096, func(f hpack.HeaderField) {
		if c.listSize += int(f.Size()); c.listSize <= maxHeaderBytes {
			c.fields = append(c.fields, f)
		}
	})
	c.dec.SetMaxStringLength(maxHeaderBytes)
	c.enc = hpack.NewEncoder(&c.encoded)
	return c
}

func (c *headerConn) Read(p []byte) (int, error) {
	for {
		if len(c.out) > 0 {
			n := copy(p, c.out)
			c.out = c.out[n:]
			return n, nil
		}
		if c.pass > 0 {
			if len(c.in) > 0 {
				n := copy(p[:min(len(p), c.pass)], c.in)
				c.in, c.pass = c.in[n:], c.pass-n
				return n, nil
			}
			n, err := c.Conn.Read(p[:min(len(p), c.pass)])
			c.pass -= n
			return n, err
		}
		if err := c.step(); err != nil {
			return 0, err
		}
	}
}

// frameHeaderBytes is the length of an HTTP/2 frame's header.
const frameHeaderBytes = 9

// maxFrameBytes is the largest frame grpc-go takes (the HTTP/2 default).
const maxFrameBytes = 16384

// step handles the preface or one frame, once its bytes have come.
func (c *headerConn) step() error {
	if !c.started {
		c.started, c.pass = true, len(http2.ClientPreface)
		return nil
	}
	if err := c.fill(frameHeaderBytes); err != nil {
		return err
	}
	length := int(c.in[0])<<16 | int(c.in[1])<<8 | int(c.in[2])
	kind, flags, stream := http2.FrameType(c.in[3]), http2.Flags(c.in[4]), binary.BigEndian.Uint32(c.in[5:9])&(1<<31-1)
	if kind != http2.FrameHeaders && kind != http2.FrameContinuation {
		c.out, c.in, c.pass = c.in[:frameHeaderBytes:frameHeaderBytes], c.in[frameHeaderBytes:], length
		return nil
	}
	if length > maxFrameBytes {
		return fmt.Errorf("a header frame of %d bytes, past %d", length, maxFrameBytes)
	}
	if err := c.fill(frameHeaderBytes + length); err != nil {
		return err
	}
	payload := c.in[frameHeaderBytes : frameHeaderBytes+length]
	c.in = c.in[frameHeaderBytes+length:]
	if kind == http2.FrameHeaders {
		if c.gather {
			return errors.New("a header frame inside another's header block")
		}
		var err error
		if payload, err = headerFragment(payload, flags); err != nil {
			return err
		}
		c.gather, c.stream, c.flags, c.block = true, stream, flags, c.block[:0]
	} else if !c.gather || stream != c.stream {
		return errors.New("a continuation frame outside a header block")
	}
	if c.block = append(c.block, payload...); len(c.block) > maxHeaderBytes {
		return fmt.Errorf("a header block past %d bytes", maxHeaderBytes)
	}
	if !flags.Has(http2.FlagHeadersEndHeaders) {
		return nil
	}
	c.gather = false
	return c.reencode()
}

// headerFragment is the header block fragment of a HEADERS frame's
// payload: without its padding and priority.
func headerFragment(payload []byte, flags http2.Flags) ([]byte, error) {
	pad := 0
	if flags.Has(http2.FlagHeadersPadded) {
		if len(payload) < 1 {
			return nil, errors.New("a padded header frame without its pad length")
		}
		pad, payload = int(payload[0]), payload[1:]
	}
	if flags.Has(http2.FlagHeadersPriority) {
		if len(payload) < 5 {
			return nil, errors.New("a header frame shorter than its priority")
		}
		payload = payload[5:]
	}
	if pad > len(payload) {
		return nil, errors.New("a header frame's padding past its payload")
	}
	return payload[:len(payload)-pad], nil
}

// reencode decodes the gathered block, sets aside the headers at the
// caller's fault, and queues the block encoded again in frames grpc-go takes.
func (c *headerConn) reencode() error {
	c.fields, c.listSize = c.fields[:0], 0
	if _, err := c.dec.Write(c.block); err != nil {
		return err
	}
	if err := c.dec.Close(); err != nil {
		return err
	}
	if c.listSize > maxHeaderBytes {
		return fmt.Errorf("a header list past %d bytes", maxHeaderBytes)
	}
	c.encoded.Reset()
	fault := ""
	for _, f := range c.fields {
		switch why := callerHeaderFault(f); {
		case f.Name == callerFaultKey:
			continue // only this connection sets it
		case f.Name == "grpc-timeout" && f.Value == "":
			continue // no timeout, as the HTTP listener takes it
		case why != "":
			fault = cmp.Or(fault, why)
			if f.Name != ":method" {
				continue
			}
			f.Value = http.MethodPost // for grpc-go to take the call, and the fault to refuse it
		}
		if err := c.enc.WriteField(f); err != nil {
			return err
		}
	}
	if fault != "" { // after the pseudo-headers, which come first
		if err := c.enc.WriteField(hpack.HeaderField{Name: callerFaultKey, Value: fault}); err != nil {
			return err
		}
	}
	block := c.encoded.Bytes()
	c.framed = c.framed[:0]
	kind, flags := http2.FrameHeaders, c.flags&http2.FlagHeadersEndStream
	for first := true; first || len(block) > 0; first = false {
		piece := block[:min(len(block), maxFrameBytes)]
		block = block[len(piece):]
		if len(block) == 0 {
			flags |= http2.FlagHeadersEndHeaders
		}
		n := len(piece)
		c.framed = append(c.framed, byte(n>>16), byte(n>>8), byte(n), byte(kind), byte(flags))
		c.framed = binary.BigEndian.AppendUint32(c.framed, c.stream)
		c.framed = append(c.framed, piece...)
		kind, flags = http2.FrameContinuation, 0
	}
	c.out = c.framed
	return nil
}

// fill reads from the caller until c.in holds n bytes.
func (c *headerConn) fill(n int) error {
	for len(c.in) < n {
		if cap(c.in) < n {
			grown := make([]byte, len(c.in), max(n, 32<<10))
			copy(grown, c.in)
			c.in = grown
		}
		k, err := c.Conn.Read(c.in[len(c.in):cap(c.in)])
		c.in = c.in[:len(c.in)+k]
		if k == 0 && err != nil {
			return err
		}
	}
	return nil
}

// callerHeaderFault says what is wrong with f, a header of a call, when
// grpc-go would answer it INTERNAL though the fault is the caller's, or
// is "".
func callerHeaderFault(f hpack.HeaderField) string {
	switch {
	case f.Name == "grpc-timeout" && f.Value != "" && !validGRPCTimeout(f.Value):
		return fmt.Sprintf("the grpc-timeout header %q is not a timeout: send one header of %s, or none for no timeout",
			cut(f.Value), timeoutSyntax["Grpc-Timeout"])
	case f.Name == ":method" && f.Value != http.MethodPost:
		return fmt.Sprintf("the :method %q is not POST: every gRPC call is a POST", cut(f.Value))
	case strings.HasSuffix(f.Name, "-bin") && !validBinaryHeader(f.Value):
		return fmt.Sprintf("the binary metadata %q is not base64: a header whose name ends in -bin holds base64", cut(f.Name))
	}
	return ""
}

// validBinaryHeader reports whether v decodes as grpc-go decodes binary
// metadata: base64, padded when its length is a multiple of 4.
func validBinaryHeader(v string) bool {
	encoding := base64.RawStdEncoding
	if len(v)%4 == 0 {
		encoding = base64.StdEncoding
	}
	_, err := encoding.DecodeString(v)
	return err == nil
}

// refuseCallerFault answers INVALID_ARGUMENT a call whose headers
// headerConn found at fault, saying what is wrong.
func refuseCallerFault(ctx context.Context) error {
	md, _ := metadata.FromIncomingContext(ctx)
	if v := md.Get(callerFaultKey); len(v) > 0 {
		return status.Error(codes.InvalidArgument, v[0])
	}
	return nil
}

func refuseCallerFaultUnary(ctx context.Context, req any, _ *grpc.UnaryServerInfo, handler grpc.UnaryHandler) (any, error) {
	if err := refuseCallerFault(ctx); err != nil {
		return nil, err
	}
	return handler(ctx, req)
}

func refuseCallerFaultStream(srv any, ss grpc.ServerStream, _ *grpc.StreamServerInfo, handler grpc.StreamHandler) error {
	if err := refuseCallerFault(ss.Context()); err != nil {
		return err
	}
	return handler(srv, ss)
}
