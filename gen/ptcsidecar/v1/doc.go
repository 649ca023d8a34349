// Package ptcsidecarv1 is the Go code generated from proto/ptcsidecar/v1:
// the messages and the gRPC client and server of ptcsidecar.v1.SidecarService.
// Every other file here is written by `make generate`; the proto files are
// the API reference.
package ptcsidecarv1
