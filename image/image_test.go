package main

// The tests read the archive with the standard library only (archive/tar,
// compress/gzip, encoding/json), not with the library that wrote it, so
// that they check the OCI layout itself.

import (
	"archive/tar"
	"bufio"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// staticBinary builds ptc-sidecar once, as make build does.
func staticBinary(t *testing.T) string {
	t.Helper()
	path, err := buildStaticBinary()
	if err != nil {
		t.Fatal(err)
	}
	return path
}

// buildDir holds the binary the tests build; TestMain makes and removes it.
var buildDir string

var buildStaticBinary = sync.OnceValues(func() (string, error) {
	bin := filepath.Join(buildDir, "ptc-sidecar")
	cmd := exec.Command("go", "build", "-trimpath", "-tags", "grpcnotrace", "-ldflags", "-s -w -X main.version=image-test", "-o", bin, "./cmd/ptc-sidecar")
	cmd.Dir = ".."
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOOS=linux")
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("go build: %v\n%s", err, out)
	}
	return bin, nil
})

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "ptc-sidecar-image-test")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	buildDir = dir
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

func testSpec(binary string) spec {
	return spec{binary: binary, name: "ptc-sidecar:image-test", version: "image-test", revision: "0123abc",
		source: "https://github.com/ptc-sidecar/ptc-sidecar", created: time.Unix(1_700_000_000, 0).UTC(), arch: "amd64"}
}

// archive builds the image of s and returns the OCI archive's bytes.
func archive(t *testing.T, s spec) []byte {
	t.Helper()
	img, err := build(s)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := writeOCIArchive(&buf, img, s); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// ociImage is an OCI archive read back: its files, and the image that
// index.json names.
type ociImage struct {
	files    map[string][]byte
	refName  string
	manifest struct {
		MediaType string
		Config    struct{ Digest string }
		Layers    []struct{ MediaType, Digest string }
	}
	config struct {
		Architecture, OS, Created string
		Config                    struct {
			Entrypoint, Cmd []string
			User            string
			Labels          map[string]string
			ExposedPorts    map[string]struct{}
		}
	}
}

func readArchive(t *testing.T, data []byte) *ociImage {
	t.Helper()
	img := &ociImage{files: map[string][]byte{}}
	tr := tar.NewReader(bytes.NewReader(data))
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if h.Typeflag == tar.TypeReg {
			body, err := io.ReadAll(tr)
			if err != nil {
				t.Fatal(err)
			}
			img.files[h.Name] = body
		}
	}
	if string(img.files["oci-layout"]) != `{"imageLayoutVersion":"1.0.0"}` {
		t.Fatalf("oci-layout = %q", img.files["oci-layout"])
	}
	var index struct {
		Manifests []struct {
			Digest      string
			Annotations map[string]string
		}
	}
	if err := json.Unmarshal(img.files["index.json"], &index); err != nil || len(index.Manifests) != 1 {
		t.Fatalf("index.json %s: %v, want one manifest", img.files["index.json"], err)
	}
	img.refName = index.Manifests[0].Annotations["org.opencontainers.image.ref.name"]
	if err := json.Unmarshal(img.blob(t, index.Manifests[0].Digest), &img.manifest); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(img.blob(t, img.manifest.Config.Digest), &img.config); err != nil {
		t.Fatal(err)
	}
	return img
}

// blob returns the blob of digest after checking that it hashes to it.
func (img *ociImage) blob(t *testing.T, digest string) []byte {
	t.Helper()
	hexDigest, ok := strings.CutPrefix(digest, "sha256:")
	data, found := img.files["blobs/sha256/"+hexDigest]
	if !ok || !found {
		t.Fatalf("no blob %s in the archive", digest)
	}
	if sum := sha256.Sum256(data); hex.EncodeToString(sum[:]) != hexDigest {
		t.Fatalf("blob %s does not hash to its name", digest)
	}
	return data
}

// unpack extracts the layers into a new directory, as a container engine
// does, and returns it.
func (img *ociImage) unpack(t *testing.T) string {
	t.Helper()
	root := t.TempDir()
	for _, l := range img.manifest.Layers {
		if l.MediaType != "application/vnd.oci.image.layer.v1.tar+gzip" {
			t.Fatalf("layer media type %s", l.MediaType)
		}
		zr, err := gzip.NewReader(bytes.NewReader(img.blob(t, l.Digest)))
		if err != nil {
			t.Fatal(err)
		}
		tr := tar.NewReader(zr)
		for {
			h, err := tr.Next()
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
			if !filepath.IsLocal(h.Name) {
				t.Fatalf("layer entry %q leaves the root", h.Name)
			}
			path := filepath.Join(root, h.Name)
			switch h.Typeflag {
			case tar.TypeDir:
				if err := os.MkdirAll(path, h.FileInfo().Mode().Perm()); err != nil {
					t.Fatal(err)
				}
				os.Chmod(path, h.FileInfo().Mode()) // MkdirAll's mode is masked by the umask
			case tar.TypeReg:
				data, err := io.ReadAll(tr)
				if err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(path, data, h.FileInfo().Mode().Perm()); err != nil {
					t.Fatal(err)
				}
			default:
				t.Fatalf("layer entry %q of type %c", h.Name, h.Typeflag)
			}
		}
	}
	if err := os.Chmod(root, 0o755); err != nil { // the image's / is readable by everyone
		t.Fatal(err)
	}
	return root
}

func TestImageConfig(t *testing.T) {
	img := readArchive(t, archive(t, testSpec(staticBinary(t))))
	c := img.config
	if img.manifest.MediaType != "application/vnd.oci.image.manifest.v1+json" || len(img.manifest.Layers) != 1 {
		t.Errorf("manifest %+v: want an OCI manifest with one layer on an empty base", img.manifest)
	}
	if img.refName != "ptc-sidecar:image-test" {
		t.Errorf("ref.name %q", img.refName)
	}
	if want := []string{"/usr/local/bin/ptc-sidecar", "serve", "--listen", "0.0.0.0:50051"}; !slices.Equal(c.Config.Entrypoint, want) || len(c.Config.Cmd) != 0 {
		t.Errorf("entrypoint %q, cmd %q; want %q and none", c.Config.Entrypoint, c.Config.Cmd, want)
	}
	if c.Config.User != "65532:65532" {
		t.Errorf("user %q, want the non-root 65532:65532", c.Config.User)
	}
	if c.OS != "linux" || c.Architecture != "amd64" || c.Created != "2023-11-14T22:13:20Z" {
		t.Errorf("os %s, architecture %s, created %s", c.OS, c.Architecture, c.Created)
	}
	for k, v := range map[string]string{
		"org.opencontainers.image.version":  "image-test",
		"org.opencontainers.image.revision": "0123abc",
		"org.opencontainers.image.source":   "https://github.com/ptc-sidecar/ptc-sidecar",
	} {
		if c.Config.Labels[k] != v {
			t.Errorf("label %s = %q, want %q", k, c.Config.Labels[k], v)
		}
	}
	if _, ok := c.Config.ExposedPorts["50051/tcp"]; !ok {
		t.Errorf("50051/tcp not exposed: %v", c.Config.ExposedPorts)
	}
}

// TestImageIsReproducible: the same binary and time give the same bytes,
// so the same digest; another time gives another image.
func TestImageIsReproducible(t *testing.T) {
	s := testSpec(staticBinary(t))
	first, second := archive(t, s), archive(t, s)
	if !bytes.Equal(first, second) {
		t.Fatal("two builds of the same binary differ")
	}
	s.created = s.created.Add(time.Second)
	if bytes.Equal(first, archive(t, s)) {
		t.Error("the creation time leaves no trace in the image")
	}
}

// TestImageEntrypointServes unpacks the image and runs its entrypoint
// from the unpacked filesystem: chrooted into it as the image's user when
// the test runs as root, so that nothing of the host is used. The
// arguments a `run IMAGE ...` would add move the listeners to free
// loopback ports; the health check goes over the HTTP endpoint.
func TestImageEntrypointServes(t *testing.T) {
	img := readArchive(t, archive(t, testSpec(staticBinary(t))))
	root := img.unpack(t)
	info, err := os.Stat(filepath.Join(root, "usr/local/bin/ptc-sidecar"))
	if err != nil || info.Mode().Perm() != 0o755 {
		t.Fatalf("binary in the image: %v, %v; want mode 0755", info, err)
	}
	entry := img.config.Config.Entrypoint
	args := append(slices.Clone(entry[1:]), "--listen", "127.0.0.1:0", "--http-listen", "127.0.0.1:0")
	cmd := exec.Command(filepath.Join(root, entry[0]), args...)
	if os.Getuid() == 0 {
		cmd = exec.Command(entry[0], args...)
		cmd.SysProcAttr = &syscall.SysProcAttr{Chroot: root, Credential: &syscall.Credential{Uid: 65532, Gid: 65532}}
		cmd.Dir = "/"
	} else {
		t.Log("not root: running the unpacked binary without chroot")
	}
	cmd.Env = []string{} // the image sets no environment
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })

	httpAddr := make(chan string, 1)
	var logs strings.Builder
	go func() {
		sc := bufio.NewScanner(stderr)
		addr := ""
		for sc.Scan() {
			logs.WriteString(sc.Text() + "\n")
			var rec struct{ Msg, Addr string }
			json.Unmarshal(sc.Bytes(), &rec)
			switch rec.Msg {
			case "HTTP listening":
				addr = rec.Addr
			case "serving":
				httpAddr <- addr
			}
		}
		close(httpAddr)
	}()
	// Serving is logged once the server is ready, however busy the
	// machine; a server that cannot start exits, which closes httpAddr.
	addr := <-httpAddr
	if addr == "" {
		t.Fatalf("the entrypoint did not come up serving")
	}
	resp, err := http.Post("http://"+addr+"/grpc.health.v1.Health/Check", "application/json", strings.NewReader(`{}`))
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || string(body) != `{"status":"SERVING"}` {
		t.Errorf("health check: %s %s", resp.Status, body)
	}
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if err := cmd.Wait(); err != nil {
		t.Errorf("exit after SIGTERM: %v", err)
	}
	for range httpAddr { // the reader has seen the last line
	}
	if !strings.Contains(logs.String(), `"version":"image-test"`) {
		t.Errorf("the binary in the image is not the one built:\n%s", logs.String())
	}
}
