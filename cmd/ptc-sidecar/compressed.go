package main

import (
	"bytes"
	"compress/flate"
	"compress/gzip"
	"errors"
	"fmt"
	"io"

	"connectrpc.com/connect"
	"google.golang.org/grpc"

	"github.com/ptc-sidecar/ptc-sidecar/server"
)

// A compressed request is held to the size it decompresses to by the
// sidecar's own decompressors, whatever the transport libraries check: a
// few hundred kilobytes of gzip can stand for gigabytes. Each first
// decompresses into nothing, counting, and refuses a message over its
// limit before it holds any of it; a message within the limit is then
// decompressed into a buffer of its exact size. A bomb costs its
// compressed bytes and time, not memory.

// gzipSize is the size src decompresses to, counted up to limit+1.
func gzipSize(src []byte, limit int64) (int64, error) {
	z, err := gzip.NewReader(bytes.NewReader(src))
	if err != nil {
		return 0, err
	}
	defer z.Close()
	return io.Copy(io.Discard, io.LimitReader(z, limit+1))
}

// grpcGzip decompresses gzip gRPC messages (grpc-encoding: gzip), native
// or transcoded from HTTP, to at most max bytes. It is the server's
// decompressor (grpc.RPCDecompressor), which takes precedence over the
// gzip codec registered in the process.
type grpcGzip struct{ max int64 }

func (grpcGzip) Type() string { return "gzip" }

func (d grpcGzip) Do(r io.Reader) ([]byte, error) {
	src, err := io.ReadAll(r) // within --max-recv-bytes, checked on arrival
	if err != nil {
		return nil, err
	}
	n, err := gzipSize(src, d.max)
	switch {
	case err != nil:
		// grpc-go answers a decompressor's error INTERNAL, as if the
		// server were at fault: the codec answers these bytes instead.
		return server.RefusedRequest(corruptGzip(err).Error()), nil
	case n > d.max:
		// The server refuses a message longer than --max-recv-bytes as
		// RESOURCE_EXHAUSTED by its length alone; an error from Do would
		// reach the caller as INTERNAL. This costs what an uncompressed
		// message of the largest size accepted does, once, freshly zeroed.
		return make([]byte, n), nil
	}
	z, err := gzip.NewReader(bytes.NewReader(src))
	if err != nil {
		return nil, err
	}
	defer z.Close()
	out := make([]byte, n)
	if _, err = io.ReadFull(z, out); err != nil {
		return server.RefusedRequest(corruptGzip(err).Error()), nil
	}
	return out, nil
}

// corruptGzip is why a compressed message the caller sent does not
// decompress: a truncated stream, a bad header or checksum. Every
// transport answers it INVALID_ARGUMENT with this text.
func corruptGzip(err error) error {
	return fmt.Errorf("the gzip-compressed request does not decompress (%v): send it whole, or uncompressed", err)
}

// grpcDecompression is the server option that holds gRPC messages to
// maxRecvBytes decompressed.
func grpcDecompression(maxRecvBytes int) grpc.ServerOption {
	// Deprecated for encoding.RegisterCompressor, which is process-wide
	// and would not know the server's limit; supported throughout 1.x.
	return grpc.RPCDecompressor(grpcGzip{max: int64(maxRecvBytes)})
}

// httpGzip is the HTTP transcoder's gzip decompressor (Connect's
// Content-Encoding and Connect-Content-Encoding, gRPC-Web's and gRPC's
// grpc-encoding), which fails a message that decompresses to more than
// max bytes with RESOURCE_EXHAUSTED. The transcoder decompresses every
// message it passes on (vanguard.WithNoTargetCompression): a compressed
// message passed through would reach grpcGzip, whose refusal costs a
// message of the largest size.
type httpGzip struct {
	gzip.Reader
	max, left int64
	err       error // the message's refusal, once counted
}

func newHTTPGzip(max int64) func() connect.Decompressor {
	return func() connect.Decompressor { return &httpGzip{max: max} }
}

func (d *httpGzip) tooLarge() error {
	return connect.NewError(connect.CodeResourceExhausted,
		fmt.Errorf("the compressed request decompresses to more than %d bytes, twice --max-recv-bytes; send less", d.max))
}

// Reset counts what the message decompresses to when its bytes are at
// hand (the transcoder holds each message whole), and otherwise bounds it
// as it is read.
func (d *httpGzip) Reset(r io.Reader) error {
	d.left, d.err = d.max, nil
	if held, ok := r.(interface{ Bytes() []byte }); ok {
		n, err := gzipSize(held.Bytes(), d.max)
		if err != nil {
			return connect.NewError(connect.CodeInvalidArgument, corruptGzip(err))
		}
		if n > d.max {
			d.err = d.tooLarge()
			return nil
		}
	}
	err := d.Reader.Reset(r)
	if isCorruptGzip(err) {
		return connect.NewError(connect.CodeInvalidArgument, corruptGzip(err))
	}
	return err
}

func (d *httpGzip) Read(p []byte) (int, error) {
	if d.err != nil {
		return 0, d.err
	}
	if int64(len(p)) > d.left+1 {
		p = p[:d.left+1]
	}
	n, err := d.Reader.Read(p)
	if d.left -= int64(n); d.left < 0 {
		d.err = d.tooLarge()
		return 0, d.err
	}
	if isCorruptGzip(err) {
		d.err = connect.NewError(connect.CodeInvalidArgument, corruptGzip(err))
		return n, d.err
	}
	return n, err
}

// isCorruptGzip reports whether err is the gzip stream's own fault, not
// its body's (a read timeout, a body over its limit), which keeps its
// error and code.
func isCorruptGzip(err error) bool {
	var corrupt flate.CorruptInputError
	return errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, gzip.ErrChecksum) || errors.Is(err, gzip.ErrHeader) || errors.As(err, &corrupt)
}

func (d *httpGzip) Close() error {
	if d.err != nil {
		return nil
	}
	return d.Reader.Close()
}

func newHTTPGzipWriter() connect.Compressor { return gzip.NewWriter(io.Discard) }
