package server

import (
	"fmt"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	ptcsidecarv1 "github.com/ptc-sidecar/ptc-sidecar/gen/ptcsidecar/v1"
	"github.com/ptc-sidecar/ptc-sidecar/lisp"
	"github.com/ptc-sidecar/ptc-sidecar/valuecache"
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
	return s.decodeSample(v, field, 0)
}

// decodeSample is decodeValue for a value that is only shown as a sample:
// EDN lists and vectors keep their first keep elements, the rest is
// checked but not built (lisp.ParseEDNSample); keep <= 0 keeps all.
// Long texts are read once and remembered (valuecache): the values are
// frozen, so callers may share them between evaluations.
func (s *Service) decodeSample(v *ptcsidecarv1.Value, field string, keep int) (lisp.Value, error) {
	var (
		out lisp.Value
		err error
	)
	depth := s.maxValueDepth()
	switch r := v.GetRepr().(type) {
	case nil:
		return nil, nil
	case *ptcsidecarv1.Value_Edn:
		field += ".edn"
		key := valuecache.Key{Format: valuecache.EDN, MaxNesting: depth, Keep: max(keep, 0), Text: r.Edn}
		out, err = s.values.Decode(key, func() (lisp.Value, error) { return lisp.ParseEDNSample(r.Edn, depth, keep) })
	case *ptcsidecarv1.Value_Json:
		field += ".json"
		key := valuecache.Key{Format: valuecache.JSON, MaxNesting: depth, Text: r.Json}
		out, err = s.values.Decode(key, func() (lisp.Value, error) { return lisp.DecodeJSON(r.Json, depth) })
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
