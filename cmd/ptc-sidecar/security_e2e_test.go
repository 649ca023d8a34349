package main_test

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"math/big"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/encoding"
	grpcproto "google.golang.org/grpc/encoding/proto"
	"google.golang.org/grpc/mem"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/encoding/protowire"

	ptcsidecarv1 "github.com/ptc-sidecar/ptc-sidecar/gen/ptcsidecar/v1"
)

// selfSigned writes a fresh self-signed certificate for 127.0.0.1 and its
// key to dir and returns their paths and the certificate.
func selfSigned(t *testing.T, dir string) (certFile, keyFile string, cert *x509.Certificate) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1),
		Subject:      pkix.Name{CommonName: "ptc-sidecar test"},
		NotBefore:    time.Now().Add(-time.Hour),
		NotAfter:     time.Now().Add(time.Hour),
		IPAddresses:  []net.IP{net.ParseIP("127.0.0.1")},
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	if cert, err = x509.ParseCertificate(der); err != nil {
		t.Fatal(err)
	}
	keyDER, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	certFile, keyFile = filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")
	writePEM(t, certFile, "CERTIFICATE", der)
	writePEM(t, keyFile, "PRIVATE KEY", keyDER)
	return certFile, keyFile, cert
}

func writePEM(t *testing.T, path, kind string, der []byte) {
	t.Helper()
	if err := os.WriteFile(path, pem.EncodeToMemory(&pem.Block{Type: kind, Bytes: der}), 0o600); err != nil {
		t.Fatal(err)
	}
}

func TestTLS(t *testing.T) {
	t.Parallel()
	certFile, keyFile, cert := selfSigned(t, t.TempDir())
	p := start(t, "--listen", "127.0.0.1:0", "--tls-cert", certFile, "--tls-key", keyFile)
	if !strings.Contains(p.log(), `"tls":true`) {
		t.Errorf("the serving line does not say TLS is on")
	}
	roots := x509.NewCertPool()
	roots.AddCert(cert)
	conn, err := grpc.NewClient(p.addr, grpc.WithTransportCredentials(credentials.NewTLS(&tls.Config{RootCAs: roots})))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	resp, err := ptcsidecarv1.NewSidecarServiceClient(conn).EvalTurn(testContext(t), &ptcsidecarv1.EvalTurnRequest{Program: "(+ 1 2)"})
	if err != nil || resp.GetTurn().GetResult().GetEdn() != "3" {
		t.Fatalf("EvalTurn over TLS: %v, %v", resp, err)
	}

	// A plaintext client gets nowhere.
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	_, err = ptcsidecarv1.NewSidecarServiceClient(p.client()).ListStrategies(ctx, &ptcsidecarv1.ListStrategiesRequest{})
	if status.Code(err) != codes.Unavailable && status.Code(err) != codes.DeadlineExceeded {
		t.Errorf("plaintext call to a TLS server: %v, want it refused", err)
	}
	if code := p.terminate(); code != 0 {
		t.Errorf("exit code %d", code)
	}
}

func TestBadTLSFilesExitWithCode2(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	certFile, keyFile, _ := selfSigned(t, dir)
	garbage := filepath.Join(dir, "garbage.pem")
	os.WriteFile(garbage, []byte("not a certificate"), 0o600)
	otherCert, _, _ := selfSigned(t, t.TempDir()) // a certificate that does not match keyFile
	for _, tc := range []struct {
		name    string
		args    []string
		wantErr string
	}{
		{"missing cert file", []string{"--tls-cert", filepath.Join(dir, "nope.pem"), "--tls-key", keyFile}, "nope.pem"},
		{"garbage cert", []string{"--tls-cert", garbage, "--tls-key", keyFile}, "-tls-cert"},
		{"garbage key", []string{"--tls-cert", certFile, "--tls-key", garbage}, "-tls-key"},
		{"key of another certificate", []string{"--tls-cert", otherCert, "--tls-key", keyFile}, "private key does not match"},
		{"cert without key", []string{"--tls-cert", certFile}, "-tls-cert and -tls-key go together"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cmd := exec.Command(binary(t), append([]string{"serve", "--listen", "127.0.0.1:0"}, tc.args...)...)
			out, err := cmd.CombinedOutput()
			var exit *exec.ExitError
			if !errors.As(err, &exit) || exit.ExitCode() != 2 {
				t.Errorf("%v: %v, want exit code 2\n%s", tc.args, err, out)
			}
			if !strings.Contains(string(out), tc.wantErr) {
				t.Errorf("output %q does not mention %q", out, tc.wantErr)
			}
		})
	}
}

// rawCodec sends requests as given bytes, to send what no protobuf library
// would marshal.
type rawCodec struct{}

func (rawCodec) Marshal(v any) (mem.BufferSlice, error) {
	if b, ok := v.([]byte); ok {
		return mem.BufferSlice{mem.SliceBuffer(b)}, nil
	}
	return encoding.GetCodecV2(grpcproto.Name).Marshal(v)
}

func (rawCodec) Unmarshal(data mem.BufferSlice, v any) error {
	return encoding.GetCodecV2(grpcproto.Name).Unmarshal(data, v)
}

func (rawCodec) Name() string { return grpcproto.Name }

// TestBadInputOverTheWire sends the inputs that stress the transport and
// the decoder to the real binary: invalid UTF-8 (grpc-go's INTERNAL),
// values nested 100,000 deep, more turns than the limit (INVALID_ARGUMENT
// naming the field), and the server keeps serving.
func TestBadInputOverTheWire(t *testing.T) {
	t.Parallel()
	p := start(t, "--listen", "127.0.0.1:0", "--max-turns", "2", "--max-history", "2", "--max-value-depth", "50")
	conn := p.client()
	client := ptcsidecarv1.NewSidecarServiceClient(conn)
	ctx := testContext(t)

	// EvalTurnRequest.program is field 1; 0xff is never valid UTF-8.
	msg := protowire.AppendTag(nil, 1, protowire.BytesType)
	msg = protowire.AppendString(msg, "(+ 1 \xff)")
	err := conn.Invoke(ctx, ptcsidecarv1.SidecarService_EvalTurn_FullMethodName, msg, new(ptcsidecarv1.EvalTurnResponse),
		grpc.ForceCodecV2(rawCodec{}))
	// Bytes that are not a valid message are the caller's: refused
	// naming the field, never INTERNAL.
	checkInvalid(t, "invalid UTF-8", err, "program: ")
	if !strings.Contains(status.Convert(err).Message(), "invalid UTF-8") {
		t.Errorf("invalid UTF-8: %v, want it named", err)
	}

	deep := strings.Repeat("[", 100_000) + strings.Repeat("]", 100_000)
	_, err = client.EvalTurn(ctx, &ptcsidecarv1.EvalTurnRequest{Program: "1", Data: ednValue("{:a " + deep + "}")})
	checkInvalid(t, "data nested 100000 deep", err, "data.edn: ")
	for program, want := range map[string]string{
		deep: "parse_error",
		"(loop [x [] i 0] (if (< i 60) (recur [x] (inc i)) x))": "depth_limit", // a result the wire could not take back
	} {
		resp, err := client.EvalTurn(ctx, &ptcsidecarv1.EvalTurnRequest{Program: program})
		if got := resp.GetTurn().GetError().GetType(); err != nil || got != want {
			t.Errorf("program %.40s...: %v, error type %q, want a Turn failing with %s", program, err, got, want)
		}
	}
	turns := []*ptcsidecarv1.Turn{{Number: 1}, {Number: 2}, {Number: 3}}
	_, err = client.ToMessages(ctx, &ptcsidecarv1.ToMessagesRequest{Turns: turns})
	checkInvalid(t, "three turns, limit two", err, "turns: more than the limit of 2 turns")
	history := []*ptcsidecarv1.ChatMessage{{Role: "user"}, {Role: "user"}, {Role: "user"}}
	_, err = client.ToMessages(ctx, &ptcsidecarv1.ToMessagesRequest{History: history})
	checkInvalid(t, "three messages, limit two", err, "history: more than the limit of 2 messages")

	if _, err := client.ListStrategies(ctx, &ptcsidecarv1.ListStrategiesRequest{}); err != nil {
		t.Fatalf("server after bad input: %v", err)
	}
	if code := p.terminate(); code != 0 {
		t.Errorf("exit code %d", code)
	}
}

func checkInvalid(t *testing.T, what string, err error, wantPrefix string) {
	t.Helper()
	st := status.Convert(err)
	if st.Code() != codes.InvalidArgument || !strings.HasPrefix(st.Message(), wantPrefix) {
		t.Errorf("%s: %v, want INVALID_ARGUMENT starting %q", what, err, wantPrefix)
	}
}

// TestRequestCostsWhatItsSizeAllows sends the largest request the server
// accepts, 16 MiB of nothing but empty turns (8.4 million, two bytes each,
// about 1.3 GB once decoded): the server counts them on the wire, decodes
// only up to the first turn over --max-turns and answers INVALID_ARGUMENT,
// its peak memory a small multiple of the request's size. The same with
// 16 MiB of empty content parts in one history message, which only the
// request's 100,000 elements limit (what they decode to, 22 MB, is within
// what 16 MiB allow); and their JSON over HTTP.
func TestRequestCostsWhatItsSizeAllows(t *testing.T) {
	t.Parallel()
	p := start(t, "--listen", "127.0.0.1:0", "--http-listen", "127.0.0.1:0")
	conn := p.client()
	turns := bytes.Repeat([]byte{0x0a, 0x00}, (16<<20-16)/2) // ToMessagesRequest.turns is field 1
	parts := protowire.AppendTag(nil, fieldNumber(&ptcsidecarv1.ToMessagesRequest{}, "history"), protowire.BytesType)
	parts = protowire.AppendBytes(parts, bytes.Repeat([]byte{0x4a, 0x00}, (16<<20-16)/2)) // ChatMessage.parts is field 9
	cases := []struct {
		name, json string
		wire       []byte
		want       string
	}{
		{"8.4 million empty turns", `{"turns":[` + strings.Repeat("{},", 5_000_000) + `{}]}`, turns, "turns: more than the limit of 1000 turns"},
		{"8.4 million empty content parts", `{"history":[{"parts":[` + strings.Repeat("{},", 5_000_000) + `{}]}]}`, parts,
			"history[0].parts: the request holds more than 100000 list elements in all"},
	}
	before := procStatusBytes(t, p.cmd.Process.Pid, "VmHWM")
	for _, tc := range cases {
		for range 3 {
			err := conn.Invoke(testContext(t), ptcsidecarv1.SidecarService_ToMessages_FullMethodName, tc.wire, new(ptcsidecarv1.ToMessagesResponse),
				grpc.ForceCodecV2(rawCodec{}), grpc.MaxCallSendMsgSize(32<<20))
			checkInvalid(t, tc.name, err, tc.want)
		}
	}
	peak := procStatusBytes(t, p.cmd.Process.Pid, "VmHWM")
	t.Logf("peak RSS %d MiB before, %d MiB after three %d MiB requests of each kind", before>>20, peak>>20, len(turns)>>20)
	// The race detector's shadow memory scales everything the server holds.
	if peak-before > 8*int64(len(turns))*raceSlowdown {
		t.Errorf("peak RSS grew by %d MiB for a %d MiB request", (peak-before)>>20, len(turns)>>20)
	}
	// JSON is wordier, and vanguard holds the body while CheckJSON counts
	// it: the bound of decoding, 16 times the JSON plus 32 MiB.
	for _, tc := range cases {
		out, size := sendAttack(t, p, "HTTP", attack{name: tc.name, method: "ToMessages", json: func() []byte { return []byte(tc.json) }})
		if out.got != "INVALID_ARGUMENT" || !strings.HasPrefix(out.message, tc.want) {
			t.Errorf("%s in %d MiB of JSON: %s %.200s, want INVALID_ARGUMENT starting %q", tc.name, size>>20, out.got, out.message, tc.want)
		}
		peak := procStatusBytes(t, p.cmd.Process.Pid, "VmHWM")
		t.Logf("%s in %d MiB of JSON: peak RSS %d MiB", tc.name, size>>20, peak>>20)
		if peak-before > (16*int64(size)+attackOverhead)*raceSlowdown {
			t.Errorf("peak RSS grew by %d MiB for %d MiB of JSON", (peak-before)>>20, size>>20)
		}
	}
	if code := p.terminate(); code != 0 {
		t.Errorf("exit code %d", code)
	}
}
