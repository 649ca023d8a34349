package lisp

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// classNamers are the methods that give an error its Java class: asJava
// and the helpers that call it.
var classNamers = map[string]bool{"asJava": true, "asJavaWithoutMessage": true, "castFails": true, "walkFails": true,
	"notAn": true, "nullFails": true, "notSeqable": true}

// classNamingFuncs are the functions that give the error passed to them
// its Java class.
var classNamingFuncs = map[string]bool{"asNumberError": true, "nthUnsupported": true}

// TestCatchableErrorsNameAClass reads the package's source: every error of
// a kind a program may catch (catchableKinds) is built by javaErrorf, with
// its class, or by Errorf in a statement that names the class (asJava and
// its helpers), so a new site cannot leave the class out; and every class
// javaErrorf is given by name is one javaSupers knows.
func TestCatchableErrorsNameAClass(t *testing.T) {
	kinds := map[string]bool{}
	for _, k := range catchableKinds {
		for name, v := range map[string]ErrorKind{"typeError": typeError, "arithmeticError": arithmeticError,
			"executionError": executionError, "arityErrorKind": arityErrorKind} {
			if v == k {
				kinds[name] = true
			}
		}
	}
	if len(kinds) != len(catchableKinds) {
		t.Fatalf("catchableKinds has a kind this test does not know by name: %v", catchableKinds)
	}
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	checked := 0
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		file, err := parser.ParseFile(fset, f, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(file, func(n ast.Node) bool {
			st, ok := n.(ast.Stmt)
			if !ok {
				return true
			}
			switch st.(type) {
			case *ast.BlockStmt, *ast.IfStmt, *ast.ForStmt, *ast.RangeStmt, *ast.SwitchStmt, *ast.TypeSwitchStmt,
				*ast.CaseClause, *ast.SelectStmt, *ast.CommClause, *ast.LabeledStmt:
				return true // look at the statements inside
			}
			named := false
			var bare []*ast.CallExpr
			ast.Inspect(st, func(x ast.Node) bool {
				if _, ok := x.(*ast.FuncLit); ok {
					return false // its own statements are visited on their own
				}
				call, ok := x.(*ast.CallExpr)
				if !ok {
					return true
				}
				switch fn := call.Fun.(type) {
				case *ast.SelectorExpr:
					named = named || classNamers[fn.Sel.Name]
				case *ast.Ident:
					named = named || classNamingFuncs[fn.Name]
					if fn.Name == "Errorf" && len(call.Args) > 0 {
						if k, ok := call.Args[0].(*ast.Ident); ok && kinds[k.Name] {
							bare = append(bare, call)
						}
					}
					if fn.Name == "javaErrorf" && len(call.Args) > 1 {
						checked++
						if lit, ok := call.Args[1].(*ast.BasicLit); ok {
							class, _ := strconv.Unquote(lit.Value)
							if _, known := javaSupers[class]; !known {
								t.Errorf("%s: javaErrorf names the class %s, which javaSupers does not know", fset.Position(call.Pos()), lit.Value)
							}
						}
					}
				}
				return true
			})
			if !named {
				for _, call := range bare {
					t.Errorf("%s: an error of a kind a program may catch names no Java class: build it with javaErrorf(kind, class, ...), noJavaClass where Clojure throws nothing",
						fset.Position(call.Pos()))
				}
			}
			return true
		})
	}
	if checked == 0 {
		t.Error("no javaErrorf call was found: the scan no longer reads the package's source")
	}
}
