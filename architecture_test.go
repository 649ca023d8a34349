package ptcsidecar

import (
	"go/build"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// The checks of docs/ARCHITECTURE.md: the layers its picture draws, and
// that what it names (files, Go names) is in the tree.

const module = "github.com/ptc-sidecar/ptc-sidecar/"

// layers says which packages of the module each layer may import, by path
// prefix; a layer is a package path or a prefix ending in "/".
var layers = []struct {
	layer   string
	imports []string
}{
	{"gen/", nil},
	{"lisp", nil},
	{"internal/", []string{"internal/", "lisp", "strategies"}},
	{"strategies", []string{"lisp", "internal/"}},
	{"server", []string{"gen/", "lisp", "strategies", "internal/"}},
	{"cmd/", []string{"gen/", "lisp", "strategies", "server", "internal/"}},
}

// TestLayers: no package imports against the arrows of the picture in
// docs/ARCHITECTURE.md (lisp at the bottom, cmd at the top).
func TestLayers(t *testing.T) {
	checked := 0
	for _, l := range layers {
		root := strings.TrimSuffix(l.layer, "/")
		err := filepath.WalkDir(root, func(dir string, d os.DirEntry, err error) error {
			if err != nil || !d.IsDir() {
				return err
			}
			if d.Name() == "testdata" || d.Name() == "node_modules" {
				return filepath.SkipDir
			}
			if !strings.HasSuffix(l.layer, "/") && dir != root {
				return filepath.SkipDir // the layer is one package
			}
			pkg, err := build.Default.ImportDir(dir, 0)
			if err != nil {
				return nil // no Go files here
			}
			checked++
			for _, imp := range pkg.Imports {
				own, ok := strings.CutPrefix(imp, module)
				if !ok || allowed(l.imports, own) || strings.HasPrefix(own, dir+"/") {
					continue
				}
				t.Errorf("%s imports %s: docs/ARCHITECTURE.md's layers allow %s only %v", dir, own, l.layer, l.imports)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if checked < len(layers) {
		t.Fatalf("checked %d packages: the layers no longer match the tree", checked)
	}
}

func allowed(prefixes []string, pkg string) bool {
	return slices.ContainsFunc(prefixes, func(p string) bool {
		return pkg == strings.TrimSuffix(p, "/") || strings.HasSuffix(p, "/") && strings.HasPrefix(pkg, p)
	})
}

// TestArchitectureNamesWhatExists: every file docs/ARCHITECTURE.md names
// is in the tree, and every Go name it quotes is declared or used in the
// Go source, so that its steps cannot drift from the code unnoticed.
func TestArchitectureNamesWhatExists(t *testing.T) {
	doc, err := os.ReadFile("docs/ARCHITECTURE.md")
	if err != nil {
		t.Fatal(err)
	}
	words := goWords(t)
	text := regexp.MustCompile("(?s)```.*?```").ReplaceAllString(string(doc), "") // the picture
	quoted := regexp.MustCompile("`([^`]+)`").FindAllStringSubmatch(text, -1)
	files, names := 0, 0
	for _, q := range quoted {
		text := q[1]
		switch {
		case strings.ContainsAny(text, " \n\"(<-") || strings.HasPrefix(text, "message "):
			// code, a flag, a command or a placeholder
		case strings.Contains(text, "/") || strings.HasSuffix(text, ".go") || strings.HasSuffix(text, ".md"):
			files++
			if m, _ := filepath.Glob(text); len(m) == 0 {
				if _, err := os.Stat(text); err != nil {
					t.Errorf("docs/ARCHITECTURE.md names %s, which does not exist", text)
				}
			}
		case regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_.]*$`).MatchString(text):
			names++
			last := text[strings.LastIndexByte(text, '.')+1:]
			if !words[last] {
				t.Errorf("docs/ARCHITECTURE.md names %s, which no Go file mentions", text)
			}
		}
	}
	if files < 20 || names < 40 {
		t.Errorf("checked %d files and %d names: the quoting of docs/ARCHITECTURE.md changed", files, names)
	}
}

// goWords are the identifiers of the module's Go and proto files: those
// of the root and of the trees below the layers.
func goWords(t *testing.T) map[string]bool {
	words := map[string]bool{}
	ident := regexp.MustCompile(`[A-Za-z_][A-Za-z0-9_]*`)
	add := func(path string) error {
		if !strings.HasSuffix(path, ".go") && !strings.HasSuffix(path, ".proto") {
			return nil
		}
		src, err := os.ReadFile(path)
		for _, w := range ident.FindAllString(string(src), -1) {
			words[w] = true
		}
		return err
	}
	root, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	for _, path := range root {
		if err := add(path); err != nil {
			t.Fatal(err)
		}
	}
	for _, dir := range []string{"lisp", "strategies", "server", "cmd", "internal", "proto"} {
		err := filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			return add(path)
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	return words
}
