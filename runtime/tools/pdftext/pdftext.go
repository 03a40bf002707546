// Package pdftext extracts the text of PDF pages, for pdf_read and for
// web_fetch of a PDF.
//
// The PDF library it uses (github.com/ledongthuc/pdf) trusts the file's
// structure: it panics on many malformed files, and some make it loop or
// allocate without bound. [Extract] turns panics into errors, bounds the
// page-tree walk, refuses the content streams known to hang the library,
// and gives up when its context ends; a caller that must survive any file
// runs it in a child process (tools.ChildPDF).
package pdftext

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/ledongthuc/pdf"
)

// Limits of PDF text extraction. The PDF library trusts the file's
// structure, so the page tree walk is bounded here.
const (
	maxPDFPageTreeDepth = 64
	maxPDFPageNodes     = 100000
)

// Pages is a parsed page selection such as "1-3,5,9-". The zero value
// selects every page.
type Pages []pageSpan

// pageSpan is one range; to 0 means "to the last page".
type pageSpan struct{ from, to int }

// ParsePages reads a selection: comma-separated page numbers and ranges
// (N, N-M, N-), 1-based, ascending within a range; "" and "all" select
// every page. Its errors are phrases for the model.
func ParsePages(s string) (Pages, error) {
	s = strings.TrimSpace(s)
	if s == "" || strings.EqualFold(s, "all") {
		return nil, nil
	}
	var set Pages
	for part := range strings.SplitSeq(s, ",") {
		part = strings.TrimSpace(part)
		lo, hi, isRange := strings.Cut(part, "-")
		from, err := pageNumber(lo, part)
		if err != nil {
			return nil, err
		}
		to := from
		if isRange {
			if strings.TrimSpace(hi) == "" {
				to = 0
			} else if to, err = pageNumber(hi, part); err != nil {
				return nil, err
			} else if to < from {
				return nil, fmt.Errorf("page range %q goes backwards; write it as %d-%d", part, to, from)
			}
		}
		set = append(set, pageSpan{from, to})
	}
	return set, nil
}

func pageNumber(s, part string) (int, error) {
	n, err := strconv.Atoi(strings.TrimSpace(s))
	if err != nil || n < 1 {
		return 0, fmt.Errorf("%q is not a page or page range (write pages like \"1-3,5\" or \"10-\"; pages start at 1)", part)
	}
	return n, nil
}

// pages returns the selected page numbers of a document of n pages, in
// order, without repeats, or an error naming a page past the end.
func (set Pages) pages(n int) ([]int, error) {
	if len(set) == 0 {
		set = Pages{{1, 0}}
	}
	seen := make(map[int]bool)
	var out []int
	for _, sp := range set {
		if sp.from > n {
			return nil, fmt.Errorf("page %d does not exist: the PDF has %s", sp.from, plural(n, "page"))
		}
		to := sp.to
		if to == 0 || to > n {
			to = n
		}
		for p := sp.from; p <= to; p++ {
			if !seen[p] {
				seen[p] = true
				out = append(out, p)
			}
		}
	}
	return out, nil
}

// Doc is the text of some pages of a PDF.
type Doc struct {
	// NumPages is the number of pages in the document.
	NumPages int
	// Pages are the extracted pages, in the order selected.
	Pages []Page
	// Rest are the selected pages not extracted because the character
	// limit was reached first.
	Rest []int
}

// A Page is the text of one page. Its fields are also the JSON that
// tools.ServePDFText sends.
type Page struct {
	// Num is the page number, from 1.
	Num int
	// Text is the page's text, one line per line of text, without
	// trailing spaces or runs of blank lines.
	Text string
	// Err says why the page's text could not be extracted ("" when it was).
	Err string
}

// ErrEncrypted is returned for a PDF that needs a password.
var ErrEncrypted = errors.New("the PDF is encrypted with a password")

// Extract returns the text of the selected pages of the PDF in r,
// stopping once limit characters (0 = no limit) were extracted. It never
// panics: the PDF library panics on many malformed files, which become
// errors here. ctx bounds the time spent; a library call stuck in a
// malformed file is then abandoned.
func Extract(ctx context.Context, r io.ReaderAt, size int64, sel Pages, limit int) (*Doc, error) {
	type result struct {
		doc *Doc
		err error
	}
	done := make(chan result, 1)
	go func() {
		var res result
		defer func() {
			if p := recover(); p != nil {
				res = result{err: fmt.Errorf("the PDF is damaged or uses features the reader does not support (%v)", p)}
			}
			done <- res
		}()
		res.doc, res.err = extract(ctx, r, size, sel, limit)
	}()
	select {
	case res := <-done:
		return res.doc, res.err
	case <-ctx.Done():
		return nil, fmt.Errorf("reading the PDF took too long: %w", ctx.Err())
	}
}

func extract(ctx context.Context, r io.ReaderAt, size int64, sel Pages, limit int) (*Doc, error) {
	rd, err := pdf.NewReader(versionFix{r}, size)
	if errors.Is(err, pdf.ErrInvalidPassword) {
		return nil, ErrEncrypted
	}
	if err != nil {
		return nil, fmt.Errorf("the file is not a readable PDF (%s)", strings.TrimPrefix(err.Error(), "malformed PDF: "))
	}
	all, err := pageValues(rd.Trailer().Key("Root").Key("Pages"))
	if err != nil {
		return nil, err
	}
	nums, err := sel.pages(len(all))
	if err != nil {
		return nil, err
	}
	doc := &Doc{NumPages: len(all)}
	chars := 0
	for i, n := range nums {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		if limit > 0 && chars >= limit {
			doc.Rest = nums[i:]
			break
		}
		pg := Page{Num: n}
		if err := pageHazard(all[n-1]); err != nil {
			pg.Err = err.Error()
		} else if text, err := pdfPageText(all[n-1]); err != nil {
			pg.Err = err.Error()
		} else {
			pg.Text = text
		}
		chars += utf8.RuneCountInString(pg.Text)
		doc.Pages = append(doc.Pages, pg)
	}
	return doc, nil
}

// pageValues walks the page tree in document order. Unlike the library's
// own Page(n), it bounds depth and size, so a tree whose Kids point back up
// cannot loop forever.
func pageValues(root pdf.Value) ([]pdf.Value, error) {
	var out []pdf.Value
	nodes := 0
	var walk func(v pdf.Value, depth int) error
	walk = func(v pdf.Value, depth int) error {
		nodes++
		if depth > maxPDFPageTreeDepth || nodes > maxPDFPageNodes {
			return errors.New("the PDF's page tree is too deep or too large (it may be damaged)")
		}
		switch v.Key("Type").Name() {
		case "Page":
			out = append(out, v)
		case "Pages":
			kids := v.Key("Kids")
			for i := range kids.Len() {
				if err := walk(kids.Index(i), depth+1); err != nil {
					return err
				}
			}
		}
		return nil
	}
	if err := walk(root, 0); err != nil {
		return nil, err
	}
	if len(out) == 0 {
		return nil, errors.New("the PDF has no pages (it may be damaged)")
	}
	return out, nil
}

// maxPDFStreamBytes bounds a page's decoded content stream or font CMap
// (a few kilobytes of deflate data can expand to gigabytes).
const maxPDFStreamBytes = 32 << 20

// pageHazard checks a page before the library interprets it, for the
// inputs known to make the library loop for ever: a content stream or a
// font's ToUnicode CMap that ends inside a hex string, and a /Parent chain
// that never ends (the library walks it to find inherited resources). It
// also refuses streams that decompress to more than maxPDFStreamBytes.
func pageHazard(v pdf.Value) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("the page's text could not be extracted (%v)", p)
		}
	}()
	res := v
	for depth := 0; res.Key("Resources").IsNull(); depth++ {
		if depth > maxPDFPageTreeDepth {
			return errors.New("the page's /Parent chain does not end (the PDF is damaged)")
		}
		if res = res.Key("Parent"); res.IsNull() {
			break
		}
	}
	if err := streamHazard(v.Key("Contents"), "content stream"); err != nil {
		return err
	}
	fonts := (pdf.Page{V: v}).Resources().Key("Font")
	for _, name := range fonts.Keys() {
		if err := streamHazard(fonts.Key(name).Key("ToUnicode"), "font "+name+"'s character map"); err != nil {
			return err
		}
	}
	return nil
}

// streamHazard reads a stream (or an array of streams, read as one) the
// way the library will, and reports one that would make it loop or that is
// too large.
func streamHazard(v pdf.Value, what string) error {
	var parts []pdf.Value
	switch v.Kind() {
	case pdf.Stream:
		parts = []pdf.Value{v}
	case pdf.Array:
		for i := range v.Len() {
			parts = append(parts, v.Index(i))
		}
	default:
		return nil
	}
	readers := make([]io.Reader, len(parts))
	for i, p := range parts {
		readers[i] = p.Reader()
	}
	data, err := io.ReadAll(io.LimitReader(io.MultiReader(readers...), maxPDFStreamBytes+1))
	if err != nil {
		return fmt.Errorf("the page's %s cannot be decoded (%v)", what, err)
	}
	if len(data) > maxPDFStreamBytes {
		return fmt.Errorf("the page's %s is larger than %d MiB once decompressed", what, maxPDFStreamBytes>>20)
	}
	if endsInHexString(data) {
		return fmt.Errorf("the page's %s ends inside a hex string (the PDF is damaged)", what)
	}
	return nil
}

// endsInHexString reports whether the library's lexer could reach the end
// of data inside a hex string <...>: it then reads end-of-data as white
// space for ever. Its hex loop reads a character (leaving at '>'), then a
// second one, and stops at the first pair that is not two hex digits, so
// from every '<' (wherever the lexer might start one) this replays that
// loop; each replay ends at the next character that is neither hex nor
// white space, so the whole check is linear.
func endsInHexString(data []byte) bool {
	for p, c := range data {
		if c == '<' && hexLoopHitsEnd(data[p+1:]) {
			return true
		}
	}
	return false
}

func hexLoopHitsEnd(d []byte) bool {
	i := 0
	next := func() (byte, bool) {
		for i < len(d) {
			c := d[i]
			i++
			if !pdfSpace(c) {
				return c, true
			}
		}
		return 0, false
	}
	for {
		c, ok := next()
		if !ok {
			return true
		}
		if c == '>' {
			return false
		}
		c2, ok := next()
		if !ok {
			return true
		}
		if !pdfHex(c) || !pdfHex(c2) {
			return false
		}
	}
}

// pdfSpace is the library's white space.
func pdfSpace(c byte) bool {
	return c == 0 || c == '\t' || c == '\n' || c == '\f' || c == '\r' || c == ' '
}

func pdfHex(c byte) bool {
	return pdfDigit(c) || ('a' <= c && c <= 'f') || ('A' <= c && c <= 'F')
}

// pdfPageText lays out the text of one page: characters in content-stream
// order, a line break where the baseline moves, a space where a gap opens.
func pdfPageText(v pdf.Value) (text string, err error) {
	defer func() {
		if p := recover(); p != nil {
			text, err = "", fmt.Errorf("the page's text could not be extracted (%v)", p)
		}
	}()
	var b strings.Builder
	var prev pdf.Text
	have := false
	for _, t := range (pdf.Page{V: v}).Content().Text {
		if t.S == "" || t.S == "\n" || !utf8.ValidString(t.S) {
			continue
		}
		if have {
			b.WriteString(pdfGlyphGap(prev, t))
		}
		b.WriteString(t.S)
		prev, have = t, true
	}
	return pdfTidy(b.String()), nil
}

// pdfGlyphGap returns what goes between two consecutive glyphs: a newline
// when the second starts a new line, a space when there is a visible gap,
// else nothing.
func pdfGlyphGap(prev, t pdf.Text) string {
	size := math.Max(math.Abs(prev.FontSize), math.Abs(t.FontSize))
	if size == 0 {
		size = 10
	}
	if math.Abs(t.Y-prev.Y) > size*0.5 {
		return "\n"
	}
	if isSpaceText(prev.S) || isSpaceText(t.S) {
		return ""
	}
	end := prev.X + prev.W
	gap := t.X - end
	if prev.W == 0 {
		// No glyph widths (a standard font without /Widths): only a
		// clear jump counts as a gap.
		if t.X-prev.X > size*0.3 {
			return " "
		}
		return ""
	}
	if gap > size*0.15 || t.X < prev.X-size {
		return " "
	}
	return ""
}

func isSpaceText(s string) bool {
	r, _ := utf8.DecodeRuneInString(s)
	return unicode.IsSpace(r)
}

// pdfTidy trims trailing spaces of lines and collapses runs of blank lines.
func pdfTidy(s string) string {
	lines := strings.Split(s, "\n")
	out := lines[:0]
	blank := 0
	for _, l := range lines {
		l = strings.TrimRightFunc(l, unicode.IsSpace)
		if l == "" {
			blank++
			if blank > 1 {
				continue
			}
		} else {
			blank = 0
		}
		out = append(out, l)
	}
	return strings.TrimSpace(strings.Join(out, "\n"))
}

// versionFix presents a PDF 2.0 (or any "%PDF-x.y") header as %PDF-1.7:
// the library refuses versions it was not written for, although text
// extraction does not depend on them.
type versionFix struct{ r io.ReaderAt }

func (v versionFix) ReadAt(p []byte, off int64) (int, error) {
	n, err := v.r.ReadAt(p, off)
	if off < 9 && n > 0 {
		head := make([]byte, 9)
		k, _ := v.r.ReadAt(head, 0)
		head = head[:k]
		if k == 9 && string(head[:5]) == "%PDF-" && pdfDigit(head[5]) && head[6] == '.' && pdfDigit(head[7]) {
			fixed := append([]byte("%PDF-1.7"), head[8])
			if fixed[8] == ' ' || fixed[8] == '\t' {
				fixed[8] = '\n'
			}
			copy(p[:n], fixed[off:])
		}
	}
	return n, err
}

func pdfDigit(b byte) bool { return b >= '0' && b <= '9' }

// plural returns "1 page", "3 pages".
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
