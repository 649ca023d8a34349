package strategies

import (
	"fmt"
	"slices"
	"strings"
)

// Signature is a parsed tool or return signature in the signature syntax:
// "(query :string, limit :int) -> [:string]", or an output type alone.
type Signature struct {
	Params []SigField // nil for an output-only signature
	Return *SigType
}

// SigField is a named parameter or map field.
type SigField struct {
	Name string
	Type *SigType
}

// SigType is a signature type: a primitive, a list of one element type, or a
// map with typed fields. Optional types end in "?".
type SigType struct {
	Primitive string     // string, int, float, bool, keyword, any or map; "" for [..] and {..}
	Elem      *SigType   // element type of a list
	Fields    []SigField // fields of a typed map (IsMap)
	IsMap     bool
	Optional  bool
}

var sigPrimitives = map[string]bool{
	"string": true, "int": true, "float": true, "bool": true, "keyword": true, "any": true, "map": true,
}

// ParseSignature parses a signature. The error says where parsing stopped.
func ParseSignature(src string) (*Signature, error) {
	p := &sigParser{src: src}
	p.skipSpace()
	if p.eof() {
		return nil, fmt.Errorf("empty signature")
	}
	sig := &Signature{}
	if p.peek() == '(' {
		p.pos++
		params, err := p.fields(')')
		if err != nil {
			return nil, err
		}
		sig.Params = params
		p.skipSpace()
		if !strings.HasPrefix(p.src[p.pos:], "->") {
			return nil, p.errorf("expected -> after the parameter list")
		}
		p.pos += 2
	}
	ret, err := p.typ()
	if err != nil {
		return nil, err
	}
	sig.Return = ret
	p.skipSpace()
	if !p.eof() {
		return nil, p.errorf("unexpected %q after the signature", p.src[p.pos:])
	}
	return sig, nil
}

// signatureText is what the rendered messages show of a signature: its
// parameters as ParamsText writes them and its return type, or why it does
// not parse.
type signatureText struct {
	params, ret string
	err         error
}

// parseSignatureText parses src (as ParseSignature) into its rendered
// parts; Remembered.signature remembers them.
func parseSignatureText(src string) signatureText {
	var t signatureText
	if sig, err := ParseSignature(src); err != nil {
		t.err = err
	} else {
		t.params, t.ret = sig.ParamsText(), sig.Return.String()
	}
	return t
}

// ParamsText renders the parameters as "name type" joined by ", ", types
// without colons.
func (s *Signature) ParamsText() string {
	// One builder: a part per parameter, each type written apart, copied
	// a signature of megabytes three times over.
	var b strings.Builder
	for i, f := range s.Params {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(f.Name)
		b.WriteByte(' ')
		f.Type.write(&b)
	}
	return b.String()
}

// String renders the type without colons: [string], {id int, email string?}.
func (t *SigType) String() string {
	var b strings.Builder
	t.write(&b)
	return b.String()
}

func (t *SigType) write(b *strings.Builder) {
	switch {
	case t.Elem != nil:
		b.WriteByte('[')
		t.Elem.write(b)
		b.WriteByte(']')
	case t.IsMap:
		b.WriteByte('{')
		for i, f := range t.Fields {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(f.Name)
			b.WriteByte(' ')
			f.Type.write(b)
		}
		b.WriteByte('}')
	default:
		b.WriteString(t.Primitive)
	}
	if t.Optional {
		b.WriteByte('?')
	}
}

// maxSignatureNesting bounds how deep list and map types nest in a
// signature. The parser recurses once per level, and a signature comes
// from the caller: sixteen million brackets would otherwise outgrow the
// goroutine's stack and end the process. Real signatures nest a few levels.
const maxSignatureNesting = 64

type sigParser struct {
	src   string
	pos   int
	depth int // list and map types open at pos
	// primitives are the parse's required primitive types, one of each
	// name, which every field of that type shares: a signature of
	// thousands of fields would otherwise hold a SigType for each.
	primitives map[string]*SigType
}

// primitive is the shared required primitive type name.
func (p *sigParser) primitive(name string) *SigType {
	if p.primitives == nil {
		p.primitives = map[string]*SigType{}
	}
	t := p.primitives[name]
	if t == nil {
		t = &SigType{Primitive: name}
		p.primitives[name] = t
	}
	return t
}

func (p *sigParser) eof() bool  { return p.pos >= len(p.src) }
func (p *sigParser) peek() byte { return p.src[p.pos] }

func (p *sigParser) skipSpace() {
	for !p.eof() && strings.IndexByte(" \t\r\n", p.peek()) >= 0 {
		p.pos++
	}
}

func (p *sigParser) errorf(format string, args ...any) error {
	return fmt.Errorf("at offset %d: %s", p.pos, fmt.Sprintf(format, args...))
}

// fields parses "name type" pairs separated by commas (or whitespace) up to
// the closing byte.
//
// A name given twice is an error at the second one. It is found once the
// list ends, or stops at an error (the earlier of the two is reported, as
// a parser that stopped at the duplicate would): a set of names would
// cost several times the signature's size for one of thousands of fields.
func (p *sigParser) fields(closing byte) ([]SigField, error) {
	fields := []SigField{}
	var ends []int // where each field's name ends, where a repetition of it is reported
	fail := func(err error) ([]SigField, error) {
		if dup := firstDuplicate(fields, ends); dup >= 0 {
			p.pos = ends[dup]
			return nil, p.errorf("duplicate name %q", fields[dup].Name)
		}
		return nil, err
	}
	for {
		p.skipSpace()
		if p.eof() {
			return fail(p.errorf("missing %q", string(closing)))
		}
		if p.peek() == closing {
			p.pos++
			if _, err := fail(nil); err != nil {
				return nil, err
			}
			return fields, nil
		}
		if len(fields) > 0 && p.peek() == ',' {
			p.pos++
			p.skipSpace()
		}
		name := p.name()
		if name == "" {
			if p.eof() {
				return fail(p.errorf("missing %q", string(closing)))
			}
			return fail(p.errorf("expected a name, found %q", string(p.peek())))
		}
		end := p.pos
		t, err := p.typ()
		if len(fields) == cap(fields) {
			// Doubled: append grows a long list a quarter at a time, which
			// allocates five times the list of a signature of megabytes.
			fields, ends = slices.Grow(fields, len(fields)+1), slices.Grow(ends, len(ends)+1)
		}
		fields = append(fields, SigField{name, t})
		ends = append(ends, end)
		if err != nil {
			return fail(err)
		}
	}
}

// firstDuplicate is the index of the first field whose name an earlier
// field has, or -1.
func firstDuplicate(fields []SigField, ends []int) int {
	order := make([]int, len(fields))
	for i := range order {
		order[i] = i
	}
	// By name, then by place: the second of each run of a name is its
	// first repetition.
	slices.SortFunc(order, func(a, b int) int {
		if c := strings.Compare(fields[a].Name, fields[b].Name); c != 0 {
			return c
		}
		return ends[a] - ends[b]
	})
	first := -1
	for k := 1; k < len(order); k++ {
		i := order[k]
		if fields[i].Name == fields[order[k-1]].Name && (first < 0 || ends[i] < ends[first]) {
			first = i
		}
	}
	return first
}

func (p *sigParser) name() string {
	start := p.pos
	for !p.eof() {
		c := p.peek()
		letter := c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')
		if !letter && (p.pos == start || !(c >= '0' && c <= '9' || c == '-' || c == '?' || c == '!')) {
			break
		}
		p.pos++
	}
	return p.src[start:p.pos]
}

func (p *sigParser) typ() (*SigType, error) {
	p.skipSpace()
	if p.eof() {
		return nil, p.errorf("expected a type, found the end")
	}
	if c := p.peek(); (c == '[' || c == '{') && p.depth == maxSignatureNesting {
		return nil, p.errorf("types nest deeper than %d levels", maxSignatureNesting)
	}
	p.depth++
	defer func() { p.depth-- }()
	var t *SigType
	switch p.peek() {
	case ':':
		p.pos++
		start := p.pos
		for !p.eof() && p.peek() >= 'a' && p.peek() <= 'z' {
			p.pos++
		}
		name := p.src[start:p.pos]
		if !sigPrimitives[name] {
			p.pos = start - 1
			return nil, p.errorf("unknown type :%s (known: :string :int :float :bool :keyword :any :map)", name)
		}
		if p.eof() || p.peek() != '?' {
			return p.primitive(name), nil
		}
		t = &SigType{Primitive: name}
	case '[':
		p.pos++
		p.skipSpace()
		if !p.eof() && p.peek() == ']' {
			return nil, p.errorf("a list type needs an element type, e.g. [:any]")
		}
		elem, err := p.typ()
		if err != nil {
			return nil, err
		}
		p.skipSpace()
		if p.eof() || p.peek() != ']' {
			return nil, p.errorf("missing \"]\"")
		}
		p.pos++
		t = &SigType{Elem: elem}
	case '{':
		p.pos++
		fields, err := p.fields('}')
		if err != nil {
			return nil, err
		}
		t = &SigType{IsMap: true, Fields: fields}
	default:
		return nil, p.errorf("expected a type (:string, [..] or {..}), found %q", string(p.peek()))
	}
	if !p.eof() && p.peek() == '?' {
		p.pos++
		t.Optional = true
	}
	return t, nil
}
