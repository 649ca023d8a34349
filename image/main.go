// Command image builds the ptc-sidecar container image from a static
// binary without a container engine or a registry: one layer holding the
// binary on an empty base, a non-root user, the serve entrypoint and OCI
// labels, written as an OCI image layout in a tar file (what `podman load`,
// `docker load` (Docker 25+) and `skopeo copy oci-archive:` read).
//
// The image is reproducible: every timestamp is -created (make image passes
// the commit time, as SOURCE_DATE_EPOCH), files are written in a fixed
// order with fixed owners and modes, so the same binary gives the same
// digest.
//
// It is a module of its own so that go-containerregistry, a build tool's
// dependency, stays out of the product's go.mod.
package main

import (
	"archive/tar"
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime"
	"strconv"
	"time"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
	"github.com/google/go-containerregistry/pkg/v1/types"
)

// spec is what the image is built from.
type spec struct {
	binary   string    // path of the static ptc-sidecar binary
	name     string    // image reference, e.g. ptc-sidecar:v1.2.3
	version  string    // org.opencontainers.image.version
	revision string    // org.opencontainers.image.revision: the commit
	source   string    // org.opencontainers.image.source: the repository
	created  time.Time // every timestamp in the image
	arch     string    // GOARCH of the binary
}

// Where the binary lives in the image and who runs it: the same as the
// Dockerfile's distroless base, so both images behave alike.
const (
	binaryPath = "/usr/local/bin/ptc-sidecar"
	user       = "65532:65532" // nonroot
	grpcPort   = "50051"
)

// entrypoint serves gRPC on every interface: the kubelet's probes and a
// published port come from outside the container's loopback. Arguments
// given to `podman run IMAGE ...` follow it, and a later --listen wins.
var entrypoint = []string{binaryPath, "serve", "--listen", "0.0.0.0:" + grpcPort}

func main() {
	var s spec
	var epoch string
	flag.StringVar(&s.binary, "binary", "bin/ptc-sidecar", "static ptc-sidecar `binary` to put in the image")
	flag.StringVar(&s.name, "name", "ptc-sidecar:dev", "image `reference` recorded in the layout (org.opencontainers.image.ref.name)")
	flag.StringVar(&s.version, "version", "dev", "image `version` label")
	flag.StringVar(&s.revision, "revision", "", "source `commit` label")
	flag.StringVar(&s.source, "source", "https://github.com/ptc-sidecar/ptc-sidecar", "source repository `URL` label")
	flag.StringVar(&epoch, "created", os.Getenv("SOURCE_DATE_EPOCH"), "creation time of everything in the image, in `seconds` since 1970 (default: SOURCE_DATE_EPOCH)")
	flag.StringVar(&s.arch, "arch", runtime.GOARCH, "`GOARCH` the binary was built for")
	out := flag.String("out", "bin/ptc-sidecar-image.tar", "OCI archive `file` to write")
	flag.Parse()
	if err := run(s, epoch, *out); err != nil {
		fmt.Fprintln(os.Stderr, "image:", err)
		os.Exit(1)
	}
}

func run(s spec, epoch, out string) error {
	seconds, err := strconv.ParseInt(epoch, 10, 64)
	if err != nil || seconds < 0 {
		return fmt.Errorf("-created (or SOURCE_DATE_EPOCH) %q: want whole seconds since 1970, e.g. git log -1 --format=%%ct", epoch)
	}
	s.created = time.Unix(seconds, 0).UTC()
	img, err := build(s)
	if err != nil {
		return err
	}
	f, err := os.Create(out)
	if err != nil {
		return err
	}
	if err := writeOCIArchive(f, img, s); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	digest, err := img.Digest()
	if err != nil {
		return err
	}
	fmt.Printf("%s: %s %s\n", out, s.name, digest)
	return nil
}

// build assembles the image: the empty base, one layer, the config.
func build(s spec) (v1.Image, error) {
	binary, err := os.ReadFile(s.binary)
	if err != nil {
		return nil, err
	}
	if !bytes.HasPrefix(binary, []byte("\x7fELF")) {
		return nil, fmt.Errorf("%s is not an ELF binary: build it for linux (make build)", s.binary)
	}
	files, err := rootFS(binary, s.created)
	if err != nil {
		return nil, err
	}
	layer, err := tarball.LayerFromOpener(func() (io.ReadCloser, error) {
		return io.NopCloser(bytes.NewReader(files)), nil
	}, tarball.WithMediaType(types.OCILayer))
	if err != nil {
		return nil, err
	}
	img, err := mutate.Append(empty.Image, mutate.Addendum{
		Layer: layer,
		History: v1.History{
			Created:   v1.Time{Time: s.created},
			CreatedBy: "make image: " + binaryPath,
			Comment:   "ptc-sidecar " + s.version,
		},
	})
	if err != nil {
		return nil, err
	}
	cfg, err := img.ConfigFile()
	if err != nil {
		return nil, err
	}
	cfg = cfg.DeepCopy()
	cfg.Architecture = s.arch
	cfg.OS = "linux"
	cfg.Created = v1.Time{Time: s.created}
	cfg.Config = v1.Config{
		Entrypoint:   entrypoint,
		User:         user,
		WorkingDir:   "/",
		ExposedPorts: map[string]struct{}{grpcPort + "/tcp": {}},
		Labels:       labels(s),
	}
	img, err = mutate.ConfigFile(img, cfg)
	if err != nil {
		return nil, err
	}
	img = mutate.MediaType(img, types.OCIManifestSchema1)
	return mutate.ConfigMediaType(img, types.OCIConfigJSON), nil
}

// labels are the OCI annotations of the image config.
func labels(s spec) map[string]string {
	l := map[string]string{
		"org.opencontainers.image.title":   "ptc-sidecar",
		"org.opencontainers.image.version": s.version,
		"org.opencontainers.image.source":  s.source,
		"org.opencontainers.image.created": s.created.Format(time.RFC3339),
	}
	if s.revision != "" {
		l["org.opencontainers.image.revision"] = s.revision
	}
	return l
}

// rootFS is the layer's tar: the binary, and user and group files that
// name the non-root user for tools that look it up.
func rootFS(binary []byte, created time.Time) ([]byte, error) {
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	entry := func(name string, mode int64, data []byte) error {
		h := &tar.Header{Name: name, Mode: mode, ModTime: created, Format: tar.FormatPAX, Typeflag: tar.TypeReg, Size: int64(len(data))}
		if data == nil {
			h.Typeflag, h.Name = tar.TypeDir, name+"/"
		}
		if err := tw.WriteHeader(h); err != nil {
			return err
		}
		_, err := tw.Write(data)
		return err
	}
	err := errors.Join(
		entry("etc", 0o755, nil),
		entry("etc/group", 0o644, []byte("root:x:0:\nnonroot:x:65532:\n")),
		entry("etc/passwd", 0o644, []byte("root:x:0:0:root:/root:/sbin/nologin\nnonroot:x:65532:65532:nonroot:/home/nonroot:/sbin/nologin\n")),
		entry("tmp", 0o1777, nil),
		entry("usr", 0o755, nil),
		entry("usr/local", 0o755, nil),
		entry("usr/local/bin", 0o755, nil),
		entry(binaryPath[1:], 0o755, binary),
		tw.Close(),
	)
	return buf.Bytes(), err
}

// writeOCIArchive writes img as an OCI image layout in a tar: oci-layout,
// index.json naming the image, and the blobs, in that order, with fixed
// headers.
func writeOCIArchive(w io.Writer, img v1.Image, s spec) error {
	manifest, err := img.RawManifest()
	if err != nil {
		return err
	}
	config, err := img.RawConfigFile()
	if err != nil {
		return err
	}
	desc, err := descriptor(img, s)
	if err != nil {
		return err
	}
	index, err := json.Marshal(v1.IndexManifest{SchemaVersion: 2, MediaType: types.OCIImageIndex, Manifests: []v1.Descriptor{desc}})
	if err != nil {
		return err
	}
	tw := tar.NewWriter(w)
	file := func(name string, data []byte) error {
		h := &tar.Header{Name: name, Mode: 0o644, ModTime: s.created, Format: tar.FormatPAX, Typeflag: tar.TypeReg, Size: int64(len(data))}
		if err := tw.WriteHeader(h); err != nil {
			return err
		}
		_, err := tw.Write(data)
		return err
	}
	dir := func(name string) error {
		return tw.WriteHeader(&tar.Header{Name: name, Mode: 0o755, ModTime: s.created, Format: tar.FormatPAX, Typeflag: tar.TypeDir})
	}
	blob := func(data []byte) error { return file("blobs/sha256/"+sha256Hex(data), data) }
	if err := errors.Join(
		file("oci-layout", []byte(`{"imageLayoutVersion":"1.0.0"}`)),
		file("index.json", index),
		dir("blobs/"),
		dir("blobs/sha256/"),
		blob(manifest),
		blob(config),
	); err != nil {
		return err
	}
	layers, err := img.Layers()
	if err != nil {
		return err
	}
	for _, l := range layers {
		data, err := compressed(l)
		if err != nil {
			return err
		}
		if err := blob(data); err != nil {
			return err
		}
	}
	return tw.Close()
}

// descriptor is the index entry of img, named s.name.
func descriptor(img v1.Image, s spec) (v1.Descriptor, error) {
	digest, err := img.Digest()
	if err != nil {
		return v1.Descriptor{}, err
	}
	size, err := img.Size()
	if err != nil {
		return v1.Descriptor{}, err
	}
	return v1.Descriptor{
		MediaType:   types.OCIManifestSchema1,
		Digest:      digest,
		Size:        size,
		Platform:    &v1.Platform{OS: "linux", Architecture: s.arch},
		Annotations: map[string]string{"org.opencontainers.image.ref.name": s.name},
	}, nil
}

func compressed(l v1.Layer) ([]byte, error) {
	rc, err := l.Compressed()
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	return io.ReadAll(rc)
}

func sha256Hex(data []byte) string {
	h, _, _ := v1.SHA256(bytes.NewReader(data)) // reading memory cannot fail
	return h.Hex
}
