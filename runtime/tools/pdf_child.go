package tools

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"runtime/debug"
	"strings"
	"time"

	"github.com/clawseed/clawseed/runtime/tools/pdftext"
)

// A PDFExtractor returns the text of the selected pages of a PDF, stopping
// after limit characters (0 = no limit), like [pdftext.Extract].
type PDFExtractor func(ctx context.Context, data []byte, pages string, limit int) (*pdftext.Doc, error)

// inProcessPDF extracts in this process. The PDF library trusts the file:
// fuzzing found inputs that make it loop for ever (an unterminated hex
// string at the end of a content stream), and a cyclic xref /Prev chain or
// a huge /Size does the same or exhausts memory. In process, ctx only
// abandons such a call; [ChildPDF] contains it.
func inProcessPDF(ctx context.Context, data []byte, pages string, limit int) (*pdftext.Doc, error) {
	sel, err := pdftext.ParsePages(pages)
	if err != nil {
		return nil, err
	}
	return pdftext.Extract(ctx, bytes.NewReader(data), int64(len(data)), sel, limit)
}

// Limits of the extraction child process.
const (
	// pdfChildMemory is the address space the child may use.
	pdfChildMemory = 2 << 30
	// pdfChildStack bounds goroutine stacks, so that runaway recursion in
	// the library ends the child quickly.
	pdfChildStack = 64 << 20
	// maxPDFChildOutput bounds what the parent reads back.
	maxPDFChildOutput = 64 << 20
)

// ChildPDF returns a [PDFExtractor] that runs the extraction in a child
// process: argv[0] of args and path name the program (normally clawseed
// itself), the rest its arguments (the hidden command that calls
// [ServePDFText]). A file that makes the library loop, recurse or allocate
// without bound then costs a killed child, not the session. The child is
// killed when ctx ends. start starts it (nil: unconfined; it needs no
// network and writes nothing).
func ChildPDF(start Starter, path string, args ...string) PDFExtractor {
	return func(ctx context.Context, data []byte, pages string, limit int) (*pdftext.Doc, error) {
		if _, err := pdftext.ParsePages(pages); err != nil {
			return nil, err
		}
		req, err := json.Marshal(pdfChildRequest{Pages: pages, Limit: limit})
		if err != nil {
			return nil, err
		}
		cmd := exec.CommandContext(ctx, path)
		cmd.Args = args
		cmd.Env = []string{} // the child needs nothing from the environment
		cmd.Stdin = io.MultiReader(bytes.NewReader(append(req, '\n')), bytes.NewReader(data))
		var stdout, stderr bytes.Buffer
		cmd.Stdout = &pdfChildOutput{buf: &stdout, max: maxPDFChildOutput}
		cmd.Stderr = &pdfChildOutput{buf: &stderr, max: 4096}
		cmd.WaitDelay = time.Second
		runErr := start.run(ctx, cmd, false)
		if ctx.Err() != nil {
			return nil, fmt.Errorf("reading the PDF took too long: %w", ctx.Err())
		}
		var res pdfChildResult
		if err := json.Unmarshal(stdout.Bytes(), &res); err != nil {
			if runErr != nil {
				return nil, fmt.Errorf("the PDF reader failed on this file (%v); the file is probably damaged", childFailure(runErr, stderr.String()))
			}
			return nil, fmt.Errorf("the PDF reader gave no usable answer: %v", err)
		}
		switch {
		case res.Encrypted:
			return nil, pdftext.ErrEncrypted
		case res.Error != "":
			return nil, errors.New(res.Error)
		}
		return &pdftext.Doc{NumPages: res.NumPages, Pages: res.Pages, Rest: res.Rest}, nil
	}
}

// childFailure summarises how the child ended: its exit status and the
// first line of what it printed (a Go runtime fatal error names the cause,
// such as "out of memory" or "stack overflow").
func childFailure(err error, stderr string) string {
	line, _, _ := strings.Cut(strings.TrimSpace(stderr), "\n")
	if line == "" {
		return err.Error()
	}
	return err.Error() + ": " + line
}

type pdfChildRequest struct {
	Pages string `json:"pages"`
	Limit int    `json:"limit"`
}

type pdfChildResult struct {
	NumPages  int            `json:"num_pages"`
	Pages     []pdftext.Page `json:"pages"`
	Rest      []int          `json:"rest,omitempty"`
	Error     string         `json:"error,omitempty"`
	Encrypted bool           `json:"encrypted,omitempty"`
}

// ServePDFText is the child side of [ChildPDF]: it reads the request line
// and the PDF from r and writes the result as JSON to w. It lowers its own
// limits first (memory, stack), so a hostile file ends it quickly.
func ServePDFText(r io.Reader, w io.Writer) error {
	limitChildMemory(pdfChildMemory)
	debug.SetMaxStack(pdfChildStack)
	br := bufio.NewReader(r)
	line, err := br.ReadBytes('\n')
	if err != nil {
		return fmt.Errorf("read request: %w", err)
	}
	var req pdfChildRequest
	if err := json.Unmarshal(line, &req); err != nil {
		return fmt.Errorf("read request: %w", err)
	}
	data, err := io.ReadAll(io.LimitReader(br, maxPDFBytes+1))
	if err != nil {
		return fmt.Errorf("read PDF: %w", err)
	}
	if len(data) > maxPDFBytes {
		return errors.New("PDF too large")
	}
	var res pdfChildResult
	doc, err := inProcessPDF(context.Background(), data, req.Pages, req.Limit)
	switch {
	case errors.Is(err, pdftext.ErrEncrypted):
		res.Encrypted = true
	case err != nil:
		res.Error = err.Error()
	default:
		res.NumPages, res.Pages, res.Rest = doc.NumPages, doc.Pages, doc.Rest
	}
	return json.NewEncoder(w).Encode(res)
}

// pdfChildOutput keeps at most max bytes and drops the rest, so a child
// cannot make the parent allocate without bound.
type pdfChildOutput struct {
	buf *bytes.Buffer
	max int
}

func (l *pdfChildOutput) Write(p []byte) (int, error) {
	if room := l.max - l.buf.Len(); room > 0 {
		l.buf.Write(p[:min(room, len(p))])
	}
	return len(p), nil
}
