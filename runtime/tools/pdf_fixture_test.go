package tools

import (
	"bytes"
	"fmt"
	"strings"
)

// testPDF is a hand-built PDF: each page is a list of lines of text set in
// Helvetica (WinAnsi encoding), one line under the other.
type testPDF struct {
	pages [][]string
	// header replaces "%PDF-1.4".
	header string
	// encrypt adds a Standard security handler whose user password is not
	// empty, so the file cannot be opened without it.
	encrypt bool
	// prevCycle points the trailer's /Prev at its own xref table: the PDF
	// library follows such a chain for ever.
	prevCycle bool
}

// bytes writes the PDF with a correct cross-reference table.
func (p testPDF) bytes() []byte {
	var objs []string
	add := func(s string) int {
		objs = append(objs, s)
		return len(objs)
	}
	catalog := add("") // filled in below
	pagesObj := add("")
	font := add("<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>")
	var kids []string
	for _, lines := range p.pages {
		var content strings.Builder
		content.WriteString("BT\n/F1 12 Tf\n72 720 Td\n")
		for i, l := range lines {
			if i > 0 {
				content.WriteString("0 -16 Td\n")
			}
			fmt.Fprintf(&content, "(%s) Tj\n", pdfEscape(l))
		}
		content.WriteString("ET\n")
		stream := add(fmt.Sprintf("<< /Length %d >>\nstream\n%sendstream", content.Len(), content.String()))
		page := add(fmt.Sprintf("<< /Type /Page /Parent %d 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 %d 0 R >> >> /Contents %d 0 R >>", pagesObj, font, stream))
		kids = append(kids, fmt.Sprintf("%d 0 R", page))
	}
	objs[catalog-1] = fmt.Sprintf("<< /Type /Catalog /Pages %d 0 R >>", pagesObj)
	objs[pagesObj-1] = fmt.Sprintf("<< /Type /Pages /Kids [%s] /Count %d >>", strings.Join(kids, " "), len(kids))

	var b bytes.Buffer
	header := p.header
	if header == "" {
		header = "%PDF-1.4"
	}
	b.WriteString(header + "\n")
	offsets := make([]int, len(objs))
	for i, o := range objs {
		offsets[i] = b.Len()
		fmt.Fprintf(&b, "%d 0 obj\n%s\nendobj\n", i+1, o)
	}
	xref := b.Len()
	fmt.Fprintf(&b, "xref\n0 %d\n0000000000 65535 f \n", len(objs)+1)
	for _, off := range offsets {
		fmt.Fprintf(&b, "%010d 00000 n \n", off)
	}
	trailer := fmt.Sprintf("/Size %d /Root %d 0 R", len(objs)+1, catalog)
	if p.encrypt {
		trailer += " /Encrypt << /Filter /Standard /V 1 /R 2 /O <" + strings.Repeat("4f", 32) + "> /U <" +
			strings.Repeat("55", 32) + "> /P -4 >> /ID [<00112233445566778899aabbccddeeff> <00112233445566778899aabbccddeeff>]"
	}
	if p.prevCycle {
		trailer += fmt.Sprintf(" /Prev %d", xref)
	}
	fmt.Fprintf(&b, "trailer\n<< %s >>\nstartxref\n%d\n%%%%EOF\n", trailer, xref)
	return b.Bytes()
}

// pdfEscape escapes a PDF literal string and encodes it as WinAnsi
// (Latin-1 for the characters the tests use).
func pdfEscape(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch {
		case r == '(' || r == ')' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r < 0x80:
			b.WriteRune(r)
		case r < 0x100:
			fmt.Fprintf(&b, "\\%03o", r)
		default:
			b.WriteByte('?')
		}
	}
	return b.String()
}

// samplePDF is the document of testdata/pdf/sample.pdf.
var samplePDF = testPDF{pages: [][]string{
	{"Quarterly report", "Revenue grew by 12% (in euros)."},
	{"Page two: the Café results", "Costs stayed flat."},
	{"Appendix", "Contact: finance@example.com"},
}}
