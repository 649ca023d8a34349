package strategies

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/ptc-sidecar/ptc-sidecar/lisp"
)

// readEDN reads the EDN values the golden files are written in, plus #fn[x y]
// for a function value with those parameters.
func readEDN(src string) (lisp.Value, error) {
	r := &ednReader{src: src}
	v, err := r.read()
	if err != nil {
		return nil, err
	}
	r.skip()
	if r.pos < len(r.src) {
		return nil, fmt.Errorf("edn: trailing text %q", r.src[r.pos:])
	}
	return v, nil
}

type ednReader struct {
	src string
	pos int
}

// testFn is a function value for rendering tests.
type testFn struct{ params []string }

func (*testFn) TypeName() string                                    { return "function" }
func (*testFn) Call(*lisp.Thread, []lisp.Value) (lisp.Value, error) { return lisp.Nil, nil }
func (f *testFn) ParamNames() []string                              { return f.params }

func (r *ednReader) skip() {
	for r.pos < len(r.src) && strings.IndexByte(" \t\r\n,", r.src[r.pos]) >= 0 {
		r.pos++
	}
}

func (r *ednReader) read() (lisp.Value, error) {
	r.skip()
	if r.pos >= len(r.src) {
		return nil, fmt.Errorf("edn: unexpected end")
	}
	switch c := r.src[r.pos]; {
	case c == '[' || c == '(':
		r.pos++
		elems, err := r.readUntil(map[byte]byte{'[': ']', '(': ')'}[c])
		return lisp.NewVector(elems), err
	case c == '{':
		r.pos++
		elems, err := r.readUntil('}')
		if err != nil || len(elems)%2 != 0 {
			return nil, fmt.Errorf("edn: bad map (%v)", err)
		}
		b := lisp.NewMapBuilder(len(elems) / 2)
		for i := 0; i < len(elems); i += 2 {
			b.Set(elems[i], elems[i+1])
		}
		return b.Map(), nil
	case strings.HasPrefix(r.src[r.pos:], "#{"):
		r.pos += 2
		elems, err := r.readUntil('}')
		return lisp.NewSet(elems), err
	case strings.HasPrefix(r.src[r.pos:], "#fn["):
		end := strings.IndexByte(r.src[r.pos:], ']')
		params := strings.Fields(r.src[r.pos+4 : r.pos+end])
		r.pos += end + 1
		return &testFn{params}, nil
	case c == '"':
		return r.readString()
	case c == ':':
		tok := r.token()
		return lisp.Keyword(tok[1:]), nil
	}
	tok := r.token()
	switch tok {
	case "nil":
		return lisp.Nil, nil
	case "true":
		return lisp.True, nil
	case "false":
		return lisp.False, nil
	case "##Inf":
		return lisp.Float(math.Inf(1)), nil
	case "##-Inf":
		return lisp.Float(math.Inf(-1)), nil
	case "##NaN":
		return lisp.Float(math.NaN()), nil
	}
	if i, err := strconv.ParseInt(tok, 10, 64); err == nil {
		return lisp.Int(i), nil
	}
	if f, err := strconv.ParseFloat(tok, 64); err == nil {
		return lisp.Float(f), nil
	}
	return nil, fmt.Errorf("edn: cannot read %q", tok)
}

func (r *ednReader) token() string {
	start := r.pos
	for r.pos < len(r.src) && strings.IndexByte(" \t\r\n,[]{}()\"", r.src[r.pos]) < 0 {
		r.pos++
	}
	return r.src[start:r.pos]
}

func (r *ednReader) readUntil(closing byte) ([]lisp.Value, error) {
	var elems []lisp.Value
	for {
		r.skip()
		if r.pos >= len(r.src) {
			return nil, fmt.Errorf("edn: missing %q", closing)
		}
		if r.src[r.pos] == closing {
			r.pos++
			return elems, nil
		}
		v, err := r.read()
		if err != nil {
			return nil, err
		}
		elems = append(elems, v)
	}
}

func (r *ednReader) readString() (lisp.Value, error) {
	var b strings.Builder
	for r.pos++; r.pos < len(r.src); r.pos++ {
		c := r.src[r.pos]
		switch c {
		case '"':
			r.pos++
			return lisp.String(b.String()), nil
		case '\\':
			r.pos++
			if r.pos >= len(r.src) {
				break
			}
			b.WriteByte(map[byte]byte{'n': '\n', 't': '\t', 'r': '\r', '"': '"', '\\': '\\'}[r.src[r.pos]])
		default:
			b.WriteByte(c)
		}
	}
	return nil, fmt.Errorf("edn: unterminated string")
}
