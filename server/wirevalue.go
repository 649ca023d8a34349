package server

import (
	"fmt"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	ptcsidecarv1 "github.com/ptc-sidecar/ptc-sidecar/gen/ptcsidecar/v1"
	"github.com/ptc-sidecar/ptc-sidecar/lisp"
)

// DefaultMaxValueDepth bounds the nesting of values read from the wire.
const DefaultMaxValueDepth = 1000

// invalidf is INVALID_ARGUMENT for the named request field.
func invalidf(field, format string, args ...any) error {
	return status.Errorf(codes.InvalidArgument, "%s: %s", field, fmt.Sprintf(format, args...))
}

// decodeValue reads a wire Value as EDN or JSON. An unset Value decodes to
// nil (absent), which callers treat as "no value".
func (s *Service) decodeValue(v *ptcsidecarv1.Value, field string) (lisp.Value, error) {
	var (
		out lisp.Value
		err error
	)
	switch r := v.GetRepr().(type) {
	case nil:
		return nil, nil
	case *ptcsidecarv1.Value_Edn:
		field += ".edn"
		out, err = lisp.ParseEDN(r.Edn, s.maxValueDepth())
	case *ptcsidecarv1.Value_Json:
		field += ".json"
		out, err = lisp.DecodeJSON(r.Json, s.maxValueDepth())
	}
	if err != nil {
		return nil, invalidf(field, "%v", err)
	}
	return out, nil
}

// decodeMap reads a Value that must be a map, or is absent.
func (s *Service) decodeMap(v *ptcsidecarv1.Value, field string) (*lisp.Map, error) {
	val, err := s.decodeValue(v, field)
	if err != nil || val == nil {
		return nil, err
	}
	m, ok := val.(*lisp.Map)
	if !ok {
		return nil, invalidf(field, "must be a map, got %s", val.TypeName())
	}
	return m, nil
}

func (s *Service) maxValueDepth() int {
	if s.cfg.MaxValueDepth > 0 {
		return s.cfg.MaxValueDepth
	}
	return DefaultMaxValueDepth
}

// encodeValue writes a value as EDN, the lossless form the sidecar always
// emits; nil (absent) stays unset.
func encodeValue(v lisp.Value) *ptcsidecarv1.Value {
	if v == nil {
		return nil
	}
	return &ptcsidecarv1.Value{Repr: &ptcsidecarv1.Value_Edn{Edn: lisp.Repr(v)}}
}
