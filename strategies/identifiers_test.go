package strategies

import (
	"strings"
	"testing"

	"github.com/ptc-sidecar/ptc-sidecar/lisp"
)

// A value line lists the identifiers its sample leaves out, each once,
// skips prose, short strings and hidden keys, and stops within its bound.
func TestWriteIdentifiers(t *testing.T) {
	v, err := lisp.ParseEDN(`[{:id "sha256:4faba222" :note "a long sentence of prose" :n 12 :_secret "hidden-val"}
	  {:id "ord-1001" :count 4521 :tag :urgent} {:id "ord-1001" :ok true}]`, 0)
	if err != nil {
		t.Fatal(err)
	}
	shown := `rows ; = vector, sample: [{:id "sha256:4faba222" ...}]`
	var b strings.Builder
	writeIdentifiers(&b, v, shown)
	want := `, ids: :note "ord-1001" :count 4521 :tag :urgent`
	if got := b.String(); got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}

	elems := make([]lisp.Value, 200)
	for i := range elems {
		elems[i] = lisp.String("item-" + strings.Repeat("x", i%7) + string(rune('a'+i%26)) + "-" + lisp.Repr(lisp.Int(i)))
	}
	b.Reset()
	writeIdentifiers(&b, lisp.NewVector(elems), "")
	got := b.String()
	if !strings.HasSuffix(got, " ...") || len(got) > identifiersChars+len(", ids: ...")+1 {
		t.Errorf("a long list is not cut within its bound (%d chars): %s", len(got), got)
	}
}
