package main

import (
	"bytes"
	"encoding/json"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// The layout rules of issue 22, checked on the module as it is, so that a
// later change cannot break them unnoticed (ARCHITECTURE.md states them).

const (
	modulePath = "github.com/clawseed/clawseed"
	// maxFileLines is the style guide's file size limit.
	maxFileLines = 600
)

// moduleRoot is the module's folder, from this package's.
const moduleRoot = "../.."

// listedPackage is what `go list -json` says of a package, the fields the
// layout rules read.
type listedPackage struct {
	ImportPath string
	Imports    []string
}

// listModule lists the module's packages with `go list`, skipping the test
// when there is no go command.
func listModule(t *testing.T) []listedPackage {
	t.Helper()
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command: the layout rules need `go list`")
	}
	// -e: another package mid-edit must not fail this check.
	cmd := exec.Command(goTool, "list", "-e", "-json=ImportPath,Imports", "./...")
	cmd.Dir = moduleRoot
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	var pkgs []listedPackage
	for dec := json.NewDecoder(bytes.NewReader(out)); dec.More(); {
		var p listedPackage
		if err := dec.Decode(&p); err != nil {
			t.Fatalf("go list output: %v", err)
		}
		pkgs = append(pkgs, p)
	}
	if len(pkgs) < 20 {
		t.Fatalf("go list found almost nothing: %d packages", len(pkgs))
	}
	return pkgs
}

// rel is a module package's path relative to the module ("skills/lock"),
// and whether it is one.
func rel(importPath string) (string, bool) {
	if importPath == modulePath {
		return ".", true
	}
	return strings.CutPrefix(importPath, modulePath+"/")
}

// under reports whether the module-relative path p is dir or below it.
func under(p, dir string) bool {
	return p == dir || strings.HasPrefix(p, dir+"/")
}

// TestLayoutImports: the root internal/ packages are leaves (they import
// nothing of the module outside internal/), and only cmd/clawseed imports
// cmd/clawseed/internal/... (Go's internal rule allows more: the whole
// cmd/clawseed tree, which is the same thing today, but also cmd/ itself).
func TestLayoutImports(t *testing.T) {
	t.Parallel()
	for _, p := range listModule(t) {
		from, _ := rel(p.ImportPath)
		for _, imp := range p.Imports {
			to, ok := rel(imp)
			if !ok {
				continue
			}
			if under(from, "internal") && !under(to, "internal") {
				t.Errorf("%s imports %s: the root internal/ packages are leaves", from, to)
			}
			if under(to, "cmd/clawseed/internal") && !under(from, "cmd/clawseed") {
				t.Errorf("%s imports %s: only cmd/clawseed may", from, to)
			}
		}
	}
}

// TestNoPackageState: package main and the session assembly hold no
// package-level variables; a link-time version and embedded files are
// the exceptions (what would be a variable is a constant, a function, or
// a field of app.Process).
func TestNoPackageState(t *testing.T) {
	t.Parallel()
	for _, dir := range []string{".", "internal/app"} {
		fset := token.NewFileSet()
		files, err := filepath.Glob(filepath.Join(dir, "*.go"))
		if err != nil {
			t.Fatal(err)
		}
		for _, name := range files {
			if strings.HasSuffix(name, "_test.go") {
				continue
			}
			f, err := parser.ParseFile(fset, name, nil, parser.ParseComments)
			if err != nil {
				t.Fatal(err)
			}
			for _, decl := range f.Decls {
				gd, ok := decl.(*ast.GenDecl)
				if !ok || gd.Tok != token.VAR {
					continue
				}
				for _, spec := range gd.Specs {
					vs := spec.(*ast.ValueSpec)
					if embedded(gd, vs) {
						continue
					}
					for _, id := range vs.Names {
						if id.Name == "version" && dir == "." || id.Name == "_" {
							continue // set at link time; `var _ I = T{}` checks
						}
						t.Errorf("%s: package-level var %s", fset.Position(id.Pos()), id.Name)
					}
				}
			}
		}
	}
}

// embedded reports whether a var is a //go:embed file.
func embedded(gd *ast.GenDecl, vs *ast.ValueSpec) bool {
	for _, doc := range []*ast.CommentGroup{vs.Doc, gd.Doc} {
		if doc == nil {
			continue
		}
		for _, c := range doc.List {
			if strings.HasPrefix(c.Text, "//go:embed ") {
				return true
			}
		}
	}
	return false
}

// generatedHeader is the line go generate's files carry
// (https://go.dev/s/generatedcode).
var generatedHeader = regexp.MustCompile(`(?m)^// Code generated .* DO NOT EDIT\.$`)

// TestFileSize: no Go file of the module a person writes is longer than
// the style guide's limit; generated files are exempt.
func TestFileSize(t *testing.T) {
	t.Parallel()
	err := filepath.WalkDir(moduleRoot, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if path != moduleRoot && (strings.HasPrefix(d.Name(), ".") || strings.HasPrefix(d.Name(), "_")) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") {
			return nil
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if n := bytes.Count(data, []byte("\n")); n > maxFileLines && !generatedHeader.Match(data) {
			t.Errorf("%s: %d lines, more than %d", path, n, maxFileLines)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
