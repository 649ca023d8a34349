package strategies

import (
	"os"
	"regexp"
	"strings"
	"testing"
)

// docBlocks returns the lines of the fenced blocks of the given language
// in text.
func docBlocks(t *testing.T, text, lang string) []string {
	t.Helper()
	var lines []string
	for _, block := range regexp.MustCompile("(?s)```"+regexp.QuoteMeta(lang)+"\n(.*?)```").FindAllStringSubmatch(text, -1) {
		lines = append(lines, strings.Split(strings.TrimSpace(block[1]), "\n")...)
	}
	if len(lines) == 0 {
		t.Fatalf("no %s examples found", lang)
	}
	return lines
}

// TestSignatureDocExamples parses the examples of docs/SIGNATURES.md: the
// valid ones parse, the invalid ones fail with the reason the document
// gives.
func TestSignatureDocExamples(t *testing.T) {
	doc, err := os.ReadFile("../docs/SIGNATURES.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range docBlocks(t, string(doc), "signature") {
		if _, err := ParseSignature(line); err != nil {
			t.Errorf("%s: %v", line, err)
		}
	}
	for _, line := range docBlocks(t, string(doc), "invalid-signature") {
		src, reason, ok := strings.Cut(line, " ;; ")
		if !ok {
			t.Fatalf("invalid example without a reason: %q", line)
		}
		if _, err := ParseSignature(src); err == nil || !strings.Contains(err.Error(), reason) {
			t.Errorf("%s: error %v, want one saying %q", src, err, reason)
		}
	}
}

// TestProtoSignatureExampleParses keeps the example of the signature
// option's comment in the proto valid.
func TestProtoSignatureExampleParses(t *testing.T) {
	proto, err := os.ReadFile("../proto/ptcsidecar/v1/compression.proto")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile("The expected return signature, e\\.g\\. `([^`]+)`").FindSubmatch(proto)
	if m == nil {
		t.Fatal("the proto's signature option has no example")
	}
	if _, err := ParseSignature(string(m[1])); err != nil {
		t.Errorf("the proto's example signature %s: %v", m[1], err)
	}
}
