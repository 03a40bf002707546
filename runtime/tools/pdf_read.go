package tools

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/clawseed/clawseed/internal/confine"
	"github.com/clawseed/clawseed/permissions"
	"github.com/clawseed/clawseed/providers"
	"github.com/clawseed/clawseed/runtime/tools/pdftext"
)

//go:embed pdf_read.md
var pdfReadDescription string

const (
	// maxPDFBytes is the largest PDF pdf_read opens (it is read whole).
	maxPDFBytes = 64 << 20
	// pdfReadTimeout bounds one extraction: a malformed file can make the
	// PDF library spin.
	pdfReadTimeout = 60 * time.Second
)

type pdfReadArgs struct {
	Path     string `json:"path" jsonschema:"Relative to the workspace root."`
	Pages    string `json:"pages,omitempty" jsonschema:"Such as 1-3,5 or 10- (default all)."`
	MaxChars int    `json:"max_chars,omitempty"`
}

// PDFReadOptions configures [NewPDFRead].
type PDFReadOptions struct {
	// MaxOutputChars is the tools' output budget (0 = 30000), also the
	// largest max_chars.
	MaxOutputChars int
	// Extract runs the extraction; nil extracts in this process (see
	// [ChildPDF] for why a child is better).
	Extract PDFExtractor
}

type pdfRead struct {
	sb        *Sandbox
	maxOutput int
	extract   PDFExtractor
}

// NewPDFRead returns pdf_read: the text of a PDF in the workspace.
func NewPDFRead(sb *Sandbox, opts PDFReadOptions) Tool {
	maxOutput := opts.MaxOutputChars
	if maxOutput <= 0 {
		maxOutput = defaultMaxOutput
	}
	t := &pdfRead{sb: sb, maxOutput: maxOutput, extract: opts.Extract}
	if t.extract == nil {
		t.extract = inProcessPDF
	}
	tt := newTypedTool("pdf_read", permissions.ClassRead, pdfReadDescription, t.run, minimum("max_chars", 0))
	tt.subject = func(a pdfReadArgs) permissions.Subject { return permissions.Subject{Reads: []string{a.Path}} }
	return withSummary(tt, func(a pdfReadArgs) string { return a.Path })
}

func (t *pdfRead) run(ctx context.Context, args pdfReadArgs) providers.ToolResult {
	if _, err := pdftext.ParsePages(args.Pages); err != nil {
		return errorResult("Invalid pages: %v.", err)
	}
	real, err := t.sb.ResolveRead(args.Path)
	if err != nil {
		return errorResult("%s", err)
	}
	data, msg := readPDFFile(real, args.Path)
	if msg != "" {
		return errorResult("%s", msg)
	}
	limit := t.maxOutput
	if args.MaxChars > 0 {
		limit = min(args.MaxChars, t.maxOutput)
	}
	ctx, cancel := context.WithTimeout(ctx, pdfReadTimeout)
	defer cancel()
	doc, err := t.extract(ctx, data, args.Pages, limit)
	switch {
	case errors.Is(err, pdftext.ErrEncrypted):
		return errorResult("%s is encrypted with a password; pdf_read cannot read it.", args.Path)
	case err != nil:
		return errorResult("Cannot read %s: %v.", args.Path, err)
	}
	return textResult(renderPDFRead(args.Path, doc, limit))
}

// readPDFFile reads a resolved path; msg names shown, the path as the
// model wrote it, when that fails.
func readPDFFile(real, shown string) ([]byte, string) {
	fi, err := os.Stat(real)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, fmt.Sprintf("File %s does not exist.", shown)
	case err != nil:
		return nil, fmt.Sprintf("Cannot read %s: %v.", shown, err)
	case fi.IsDir():
		return nil, fmt.Sprintf("%s is a directory; use glob_search to find the PDF files in it.", shown)
	case !fi.Mode().IsRegular():
		return nil, fmt.Sprintf("%s is not a regular file.", shown)
	case fi.Size() > maxPDFBytes:
		return nil, fmt.Sprintf("File %s is too large (%d bytes; the limit is %d).", shown, fi.Size(), maxPDFBytes)
	}
	data, err := readChecked(real, maxPDFBytes)
	if err != nil {
		return nil, fmt.Sprintf("Cannot read %s: %s.", shown, confine.Why(err))
	}
	return data, ""
}

// renderPDFRead lays out pdf_read's result within limit characters of
// page text: a header with the page count, each page under a marker, and
// a note naming the pages to ask for next when it stops early.
func renderPDFRead(shown string, doc *pdftext.Doc, limit int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %s.\n", shown, plural(doc.NumPages, "page"))
	used := 0
	for i, pg := range doc.Pages {
		fmt.Fprintf(&b, "\n[page %d]\n", pg.Num)
		text := pg.Text
		switch {
		case pg.Err != "":
			text = "(" + pg.Err + ")"
		case text == "":
			text = "(no text on this page; it may be a scanned image)"
		}
		room := limit - used
		if n := utf8.RuneCountInString(text); n > room {
			b.WriteString(text[:runeOffsetOf(text, room)])
			rest := append([]int{pg.Num}, doc.Rest...)
			for _, later := range doc.Pages[i+1:] {
				rest = append(rest, later.Num)
			}
			fmt.Fprintf(&b, "\n\n[Stopped at %d characters, inside page %d (%d more characters on it). To read on, call pdf_read with pages=%q.]",
				limit, pg.Num, n-room, formatPages(rest))
			return b.String()
		}
		b.WriteString(text)
		b.WriteString("\n")
		used += utf8.RuneCountInString(text)
	}
	if len(doc.Rest) > 0 {
		fmt.Fprintf(&b, "\n[Stopped at %d characters. To read on, call pdf_read with pages=%q.]", limit, formatPages(doc.Rest))
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// formatPages writes ascending page numbers as ranges: 1-3,5.
func formatPages(ps []int) string {
	var parts []string
	for i := 0; i < len(ps); {
		j := i
		for j+1 < len(ps) && ps[j+1] == ps[j]+1 {
			j++
		}
		if j == i {
			parts = append(parts, fmt.Sprint(ps[i]))
		} else {
			parts = append(parts, fmt.Sprintf("%d-%d", ps[i], ps[j]))
		}
		i = j + 1
	}
	return strings.Join(parts, ",")
}
