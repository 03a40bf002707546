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
	"slices"
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
// the style guide's limit; generated files, and the other modules copied
// under third_party/, are exempt.
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
			if _, err := os.Stat(filepath.Join(path, "go.mod")); err == nil && path != moduleRoot {
				return filepath.SkipDir // another module: a copy under third_party/
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

// An architectureRow is a row of ARCHITECTURE.md's package table: the
// package and the module packages its "may import" column names.
type architectureRow struct {
	pkg string
	// exact are the packages named; under the folders named with /* or
	// /... (what lies below them may be imported, none must be).
	exact, under []string
	// any: the column allows everything below (package main's).
	any bool
}

// architectureRows reads the package table of ARCHITECTURE.md. A name in
// backquotes is a module package when there is one by that path, or by
// that name under cmd/clawseed/internal ("repl"); other names (modules,
// symbols) are not this module's and are not checked.
func architectureRows(t *testing.T, known map[string]bool) []architectureRow {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(moduleRoot, "ARCHITECTURE.md"))
	if err != nil {
		t.Fatal(err)
	}
	resolve := func(name string) (string, bool) {
		for _, p := range []string{name, "cmd/clawseed/internal/" + name} {
			if known[p] {
				return p, true
			}
		}
		return "", false
	}
	code := regexp.MustCompile("`([^`]+)`")
	var rows []architectureRow
	for line := range strings.Lines(string(data)) {
		cells := tableCells(line)
		if len(cells) != 3 {
			continue
		}
		m := code.FindStringSubmatch(cells[0])
		if m == nil {
			continue
		}
		pkg, ok := resolve(m[1])
		if !ok {
			t.Errorf("ARCHITECTURE.md: no package %s", m[1])
			continue
		}
		row := architectureRow{pkg: pkg, any: strings.Contains(cells[2], "everything below")}
		for _, m := range code.FindAllStringSubmatch(cells[2], -1) {
			name := m[1]
			if dir, ok := strings.CutSuffix(name, "/*"); ok {
				row.under = append(row.under, dir)
			} else if dir, ok := strings.CutSuffix(name, "/..."); ok {
				row.under = append(row.under, dir)
			} else if p, ok := resolve(name); ok {
				row.exact = append(row.exact, p)
			}
		}
		rows = append(rows, row)
	}
	if len(rows) < 30 {
		t.Fatalf("ARCHITECTURE.md: only %d rows in the package table", len(rows))
	}
	return rows
}

// tableCells splits a Markdown table row at its unescaped bars; nil when
// line is not a row.
func tableCells(line string) []string {
	line = strings.TrimSpace(line)
	if !strings.HasPrefix(line, "|") || !strings.HasSuffix(line, "|") || len(line) < 2 {
		return nil
	}
	var cells []string
	var cell strings.Builder
	body := line[1 : len(line)-1]
	for i := 0; i < len(body); i++ {
		switch {
		case body[i] == '\\' && i+1 < len(body) && body[i+1] == '|':
			cell.WriteByte('|')
			i++
		case body[i] == '|':
			cells = append(cells, strings.TrimSpace(cell.String()))
			cell.Reset()
		default:
			cell.WriteByte(body[i])
		}
	}
	return append(cells, strings.TrimSpace(cell.String()))
}

// TestArchitectureImports: each row of ARCHITECTURE.md's package table
// says what its package imports of the module, as `go list` sees it:
// every import is named (itself or a folder above it), and every package
// named by its path is imported. Packages of the root internal/ and of
// cmd/clawseed have a row each.
func TestArchitectureImports(t *testing.T) {
	t.Parallel()
	pkgs := listModule(t)
	known := map[string]bool{}
	imports := map[string][]string{}
	for _, p := range pkgs {
		r, _ := rel(p.ImportPath)
		known[r] = true
		for _, imp := range p.Imports {
			if to, ok := rel(imp); ok {
				imports[r] = append(imports[r], to)
			}
		}
	}
	rowOf := map[string]bool{}
	for _, row := range architectureRows(t, known) {
		rowOf[row.pkg] = true
		for _, imp := range imports[row.pkg] {
			allowed := row.any || slices.Contains(row.exact, imp) ||
				slices.ContainsFunc(row.under, func(dir string) bool { return under(imp, dir) })
			if !allowed {
				t.Errorf("ARCHITECTURE.md: %s imports %s, which its row does not name", row.pkg, imp)
			}
		}
		for _, named := range row.exact {
			if !slices.Contains(imports[row.pkg], named) {
				t.Errorf("ARCHITECTURE.md: the row of %s names %s, which it does not import", row.pkg, named)
			}
		}
	}
	for p := range known {
		if (under(p, "internal") || under(p, "cmd/clawseed")) && !rowOf[p] {
			t.Errorf("ARCHITECTURE.md: no row for %s", p)
		}
	}
}
