package server

import (
	ptcsidecarv1 "github.com/ptc-sidecar/ptc-sidecar/gen/ptcsidecar/v1"
	"github.com/ptc-sidecar/ptc-sidecar/lisp"
)

// decodeValue reads a wire Value as EDN or JSON. An unset Value decodes to
// nil (absent), which callers treat as "no value".
func (s *Service) decodeValue(v *ptcsidecarv1.Value, field string) (lisp.Value, error) {
	return s.decodeSample(v, field, 0)
}

// decodeSample is decodeValue for a value that is only shown as a sample:
// EDN lists and vectors keep their first keep elements, the rest is
// checked but not built (lisp.ParseEDNSample); keep <= 0 keeps all.
// Long texts are read once and remembered (remembered.go): the values are
// frozen, so callers may share them between evaluations.
func (s *Service) decodeSample(v *ptcsidecarv1.Value, field string, keep int) (lisp.Value, error) {
	return s.decodeSampleAt(v, keep, func() string { return field })
}

// decodeSampleAt is decodeSample for a field whose path is spelled out by
// path only when an error is reported: a request holds hundreds of values,
// and building each one's path cost more allocations than reading it from
// the cache.
func (s *Service) decodeSampleAt(v *ptcsidecarv1.Value, keep int, path func() string) (lisp.Value, error) {
	out, repr, err := s.readSample(v, keep)
	if err != nil {
		return nil, invalidf(path()+repr, "%v", err)
	}
	return out, nil
}

// readSample reads v as decodeSample does. On failure it also returns the
// suffix that names the notation in the field's path (".edn" or ".json").
func (s *Service) readSample(v *ptcsidecarv1.Value, keep int) (lisp.Value, string, error) {
	depth := s.maxValueDepth()
	// edn first: a value the sidecar emitted carries both, and edn is the
	// lossless one.
	if text := v.GetEdn(); text != "" {
		key := valueKey{maxNesting: depth, keep: max(keep, 0), text: text}
		out, err := s.remembered.value(key, func() (lisp.Value, error) { return lisp.ReadValue(text, depth, keep) })
		return out, ".edn", err
	}
	if text := v.GetJson(); text != "" {
		key := valueKey{json: true, maxNesting: depth, text: text}
		out, err := s.remembered.value(key, func() (lisp.Value, error) { return lisp.DecodeJSON(text, depth) })
		return out, ".json", err
	}
	return nil, "", nil
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

func (s *Service) maxValueDepth() int { return s.cfg.MaxValueDepth }

// encodeValue writes a value a caller consumes (tool-call arguments, tool
// results, a turn's result): in its wire text (lisp.WireText: EDN, or the
// source of what EDN cannot spell), the lossless form the sidecar always
// emits and reads back, and as JSON when the value has a JSON form
// (lisp.EncodeJSON); nil (absent) stays unset.
func encodeValue(v lisp.Value) *ptcsidecarv1.Value {
	if v == nil {
		return nil
	}
	out := &ptcsidecarv1.Value{Edn: lisp.WireText(v)}
	if text, err := lisp.EncodeJSON(v); err == nil {
		out.Json = text
	}
	return out
}
