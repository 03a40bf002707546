package tools

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/clawseed/clawseed/runtime/tools/pdftext"
)

// TestPDFFixture keeps testdata/pdf/sample.pdf equal to what samplePDF
// writes (-update rewrites it).
func TestPDFFixture(t *testing.T) {
	t.Parallel()
	p := filepath.Join("testdata", "pdf", "sample.pdf")
	want := samplePDF.bytes()
	if *update {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, want, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from samplePDF (run with -update)", p)
	}
}

func TestPDFRead(t *testing.T) {
	t.Parallel()
	e := newTestEnv(t)
	sample, err := os.ReadFile(filepath.Join("testdata", "pdf", "sample.pdf"))
	if err != nil {
		t.Fatal(err)
	}
	e.write(t, "docs/sample.pdf", string(sample))
	e.write(t, "docs/v2.pdf", string(testPDF{pages: [][]string{{"A PDF 2.0 file"}}, header: "%PDF-2.0"}.bytes()))
	e.write(t, "docs/locked.pdf", string(testPDF{pages: samplePDF.pages, encrypt: true}.bytes()))
	e.write(t, "docs/cut.pdf", string(sample[:len(sample)/2]))
	e.write(t, "docs/notes.txt", "not a pdf\n")
	e.write(t, "docs/empty.pdf", string(testPDF{pages: [][]string{{}}}.bytes()))
	e.write(t, "secret/hidden.pdf", string(sample))
	symlink(t, filepath.Join(e.outside, "secret.txt"), filepath.Join(e.ws, "docs", "escape.pdf"))
	e.sb.Forbidden = []string{"secret"}
	tool := NewPDFRead(e.sb, PDFReadOptions{})

	all := "docs/sample.pdf: 3 pages.\n\n[page 1]\nQuarterly report\nRevenue grew by 12% (in euros).\n\n" +
		"[page 2]\nPage two: the Café results\nCosts stayed flat.\n\n[page 3]\nAppendix\nContact: finance@example.com"
	tests := []struct {
		name    string
		args    map[string]any
		want    string
		wantErr bool
	}{
		{name: "all pages", args: map[string]any{"path": "docs/sample.pdf"}, want: all},
		{name: "absolute path", args: map[string]any{"path": filepath.Join(e.ws, "docs/sample.pdf")},
			want: strings.Replace(all, "docs/sample.pdf", filepath.Join(e.ws, "docs/sample.pdf"), 1)},
		{name: "one page", args: map[string]any{"path": "docs/sample.pdf", "pages": "2"},
			want: "docs/sample.pdf: 3 pages.\n\n[page 2]\nPage two: the Café results\nCosts stayed flat."},
		{name: "ranges", args: map[string]any{"path": "docs/sample.pdf", "pages": "3, 1-1"},
			want: "docs/sample.pdf: 3 pages.\n\n[page 3]\nAppendix\nContact: finance@example.com\n\n[page 1]\nQuarterly report\nRevenue grew by 12% (in euros)."},
		{name: "open range", args: map[string]any{"path": "docs/sample.pdf", "pages": "2-"},
			want: "docs/sample.pdf: 3 pages.\n\n[page 2]\nPage two: the Café results\nCosts stayed flat.\n\n[page 3]\nAppendix\nContact: finance@example.com"},
		{name: "range past the end", args: map[string]any{"path": "docs/sample.pdf", "pages": "3-9"},
			want: "docs/sample.pdf: 3 pages.\n\n[page 3]\nAppendix\nContact: finance@example.com"},
		{name: "max_chars inside a page", args: map[string]any{"path": "docs/sample.pdf", "max_chars": 60},
			want: "docs/sample.pdf: 3 pages.\n\n[page 1]\nQuarterly report\nRevenue grew by 12% (in euros).\n\n[page 2]\nPage two: th" +
				"\n\n[Stopped at 60 characters, inside page 2 (33 more characters on it). To read on, call pdf_read with pages=\"2-3\".]"},
		{name: "max_chars at a page end", args: map[string]any{"path": "docs/sample.pdf", "max_chars": 48},
			want: "docs/sample.pdf: 3 pages.\n\n[page 1]\nQuarterly report\nRevenue grew by 12% (in euros).\n\n[Stopped at 48 characters. To read on, call pdf_read with pages=\"2-3\".]"},
		{name: "pdf 2.0", args: map[string]any{"path": "docs/v2.pdf"}, want: "docs/v2.pdf: 1 page.\n\n[page 1]\nA PDF 2.0 file"},
		{name: "page without text", args: map[string]any{"path": "docs/empty.pdf"},
			want: "docs/empty.pdf: 1 page.\n\n[page 1]\n(no text on this page; it may be a scanned image)"},
		{name: "page past the end", args: map[string]any{"path": "docs/sample.pdf", "pages": "4"}, wantErr: true,
			want: "Cannot read docs/sample.pdf: page 4 does not exist: the PDF has 3 pages."},
		{name: "bad pages", args: map[string]any{"path": "docs/sample.pdf", "pages": "two"}, wantErr: true,
			want: `Invalid pages: "two" is not a page or page range (write pages like "1-3,5" or "10-"; pages start at 1).`},
		{name: "backwards range", args: map[string]any{"path": "docs/sample.pdf", "pages": "3-1"}, wantErr: true,
			want: `Invalid pages: page range "3-1" goes backwards; write it as 1-3.`},
		{name: "encrypted", args: map[string]any{"path": "docs/locked.pdf"}, wantErr: true,
			want: "docs/locked.pdf is encrypted with a password; pdf_read cannot read it."},
		{name: "truncated", args: map[string]any{"path": "docs/cut.pdf"}, wantErr: true,
			want: "Cannot read docs/cut.pdf: the file is not a readable PDF (not a PDF file: missing %%EOF)."},
		{name: "not a pdf", args: map[string]any{"path": "docs/notes.txt"}, wantErr: true,
			want: "Cannot read docs/notes.txt: the file is not a readable PDF (not a PDF file: invalid header)."},
		{name: "missing", args: map[string]any{"path": "docs/none.pdf"}, wantErr: true, want: "File docs/none.pdf does not exist."},
		{name: "directory", args: map[string]any{"path": "docs"}, wantErr: true, want: "docs is a directory; use glob_search to find the PDF files in it."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := call(t, tool, tt.args)
			if res.IsError != tt.wantErr || res.Content != tt.want {
				t.Errorf("got (error %v):\n%s", res.IsError, cmp.Diff(tt.want, res.Content))
			}
		})
	}
}

// TestPDFReadConfinement: the sandbox decides, as for every file tool.
func TestPDFReadConfinement(t *testing.T) {
	t.Parallel()
	e := newTestEnv(t)
	sample := string(samplePDF.bytes())
	e.write(t, "secret/hidden.pdf", sample)
	writeFile(t, filepath.Join(e.outside, "out.pdf"), sample)
	symlink(t, filepath.Join(e.outside, "out.pdf"), filepath.Join(e.ws, "link.pdf"))
	e.sb.Forbidden = []string{"secret"}
	tool := NewPDFRead(e.sb, PDFReadOptions{})
	for _, p := range []string{"secret/hidden.pdf", "../outside/out.pdf", filepath.Join(e.outside, "out.pdf"), "link.pdf"} {
		res := call(t, tool, map[string]any{"path": p})
		if !res.IsError || strings.Contains(res.Content, "Quarterly") {
			t.Errorf("%s: %+v", p, res)
			continue
		}
		// The refusal is the sandbox's own sentence.
		_, want := e.sb.ResolveRead(p)
		if want == nil || res.Content != want.Error() {
			t.Errorf("%s: got %q, want the sandbox refusal %v", p, res.Content, want)
		}
	}
}

// pdfChildArg makes the test binary act as the PDF extraction child of
// ChildPDF, as clawseed's hidden command does.
const pdfChildArg = "-clawseed-pdf-child"

func init() {
	if len(os.Args) > 1 && os.Args[1] == pdfChildArg {
		if err := ServePDFText(os.Stdin, os.Stdout); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
}

func testChild(t *testing.T) PDFExtractor {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Skip(err)
	}
	return ChildPDF(nil, exe, "tools.test", pdfChildArg)
}

// TestPDFHangInputs: what the library loops on and the pre-checks do not
// know (here a cyclic /Prev chain, which loops inside the library's file
// opening) ends in an error through the child process. The known input is
// caught before the library sees it (pdftext's TestHangInputs).
func TestPDFHangInputs(t *testing.T) {
	t.Parallel()
	child := testChild(t)
	ctx, cancel := context.WithTimeout(t.Context(), 3*time.Second)
	defer cancel()
	_, err := child(ctx, testPDF{pages: [][]string{{"x"}}, prevCycle: true}.bytes(), "", 0)
	if err == nil || !strings.HasPrefix(err.Error(), "reading the PDF took too long") {
		t.Errorf("cyclic /Prev through the child: %v", err)
	}
}

func TestPDFChild(t *testing.T) {
	t.Parallel()
	child := testChild(t)
	in, err := inProcessPDF(t.Context(), samplePDF.bytes(), "2-", 0)
	if err != nil {
		t.Fatal(err)
	}
	out, err := child(t.Context(), samplePDF.bytes(), "2-", 0)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(in, out, cmp.AllowUnexported(pdftext.Doc{}, pdftext.Page{})); diff != "" {
		t.Errorf("child differs from in-process extraction:\n%s", diff)
	}
	if _, err := child(t.Context(), testPDF{pages: samplePDF.pages, encrypt: true}.bytes(), "", 0); !errors.Is(err, pdftext.ErrEncrypted) {
		t.Errorf("encrypted: %v", err)
	}
	if _, err := child(t.Context(), []byte("not a pdf"), "", 0); err == nil || err.Error() != "the file is not a readable PDF (not a PDF file: invalid header)" {
		t.Errorf("not a PDF: %v", err)
	}
	crash := ChildPDF(nil, "/bin/sh", "sh", "-c", "echo 'fatal error: out of memory' >&2; exit 2")
	if _, err := crash(t.Context(), samplePDF.bytes(), "", 0); err == nil || err.Error() != "the PDF reader failed on this file (exit status 2: fatal error: out of memory); the file is probably damaged" {
		t.Errorf("crashed child: %v", err)
	}
	// pdf_read through the child gives what it gives in process.
	e := newTestEnv(t)
	e.write(t, "a.pdf", string(samplePDF.bytes()))
	viaChild := call(t, NewPDFRead(e.sb, PDFReadOptions{Extract: child}), map[string]any{"path": "a.pdf", "pages": "1"})
	direct := call(t, NewPDFRead(e.sb, PDFReadOptions{}), map[string]any{"path": "a.pdf", "pages": "1"})
	if viaChild != direct {
		t.Errorf("pdf_read via the child: %+v, in process: %+v", viaChild, direct)
	}
}
