package pdftext

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestParsePages(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in      string
		n       int
		want    []int
		wantErr string
	}{
		{in: "", n: 3, want: []int{1, 2, 3}},
		{in: "all", n: 2, want: []int{1, 2}},
		{in: "1-3,5", n: 9, want: []int{1, 2, 3, 5}},
		{in: " 2 - 4 , 3 ", n: 9, want: []int{2, 3, 4}},
		{in: "7-", n: 9, want: []int{7, 8, 9}},
		{in: "5,1", n: 9, want: []int{5, 1}},
		{in: "2-20", n: 3, want: []int{2, 3}},
		{in: "4", n: 3, wantErr: "page 4 does not exist: the PDF has 3 pages"},
		{in: "0", n: 3, wantErr: `"0" is not a page or page range (write pages like "1-3,5" or "10-"; pages start at 1)`},
		{in: "-3", n: 3, wantErr: `"-3" is not a page or page range (write pages like "1-3,5" or "10-"; pages start at 1)`},
		{in: "1,,2", n: 3, wantErr: `"" is not a page or page range (write pages like "1-3,5" or "10-"; pages start at 1)`},
		{in: "1-2-3", n: 3, wantErr: `"1-2-3" is not a page or page range (write pages like "1-3,5" or "10-"; pages start at 1)`},
	}
	for _, tt := range tests {
		set, err := ParsePages(tt.in)
		var got []int
		if err == nil {
			got, err = set.pages(tt.n)
		}
		if tt.wantErr != "" {
			if err == nil || err.Error() != tt.wantErr {
				t.Errorf("%q: error %v, want %q", tt.in, err, tt.wantErr)
			}
			continue
		}
		if err != nil || !cmp.Equal(got, tt.want) {
			t.Errorf("%q: %v, %v; want %v", tt.in, got, err, tt.want)
		}
	}
}

// FuzzParsePages: any selection either fails or yields distinct pages
// within the document.
func FuzzParsePages(f *testing.F) {
	for _, s := range []string{"", "1-3,5", "7-", "2,2,1-9", "0", "x", "1-2-3", " 4 ", "99999999999999999999"} {
		f.Add(s, 10)
	}
	f.Fuzz(func(t *testing.T, s string, n int) {
		if n < 1 || n > 10000 {
			return
		}
		set, err := ParsePages(s)
		if err != nil {
			return
		}
		pages, err := set.pages(n)
		if err != nil {
			return
		}
		seen := map[int]bool{}
		for _, p := range pages {
			if p < 1 || p > n || seen[p] {
				t.Fatalf("%q over %d pages gave %v", s, n, pages)
			}
			seen[p] = true
		}
	})
}

// FuzzExtractPDF: a damaged PDF is an error, never a panic or a hang. The
// seeds are in testdata/fuzz/FuzzExtractPDF: runtime/tools' samplePDF
// (sample), an encrypted file (encrypted), a PDF 2.0 file with an empty
// page (pdf_2_0), and the first input that made the library hang.
func FuzzExtractPDF(f *testing.F) {
	f.Fuzz(func(t *testing.T, data []byte) {
		// Inputs the pre-checks miss can still make the library loop; the
		// deadline abandons them (production runs the library in a child).
		ctx, cancel := context.WithTimeout(t.Context(), 2*time.Second)
		defer cancel()
		doc, err := Extract(ctx, bytes.NewReader(data), int64(len(data)), nil, 10000)
		if err == nil && doc.NumPages < 1 {
			t.Fatalf("no error and %d pages", doc.NumPages)
		}
	})
}

// hangPDF is the input fuzzing found first: a page whose content stream
// ends inside a hex string, on which the PDF library loops for ever.
func hangPDF(t testing.TB) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "fuzz", "FuzzExtractPDF", "hex_string_at_end_of_content"))
	if err != nil {
		t.Fatal(err)
	}
	// The corpus file holds a Go-quoted []byte literal.
	lit := strings.TrimSuffix(strings.TrimPrefix(strings.SplitN(string(b), "\n", 2)[1], "[]byte("), ")\n")
	s, err := strconv.Unquote(lit)
	if err != nil {
		t.Fatal(err)
	}
	return []byte(s)
}

// TestHangInputs: the input fuzzing found first, on which the PDF library
// loops for ever, is caught before the library sees it: the page fails,
// the others are read.
func TestHangInputs(t *testing.T) {
	t.Parallel()
	data := hangPDF(t)
	doc, err := Extract(t.Context(), bytes.NewReader(data), int64(len(data)), nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	if want := "the page's content stream ends inside a hex string (the PDF is damaged)"; doc.Pages[1].Err != want || doc.Pages[0].Text != "A\nB" {
		t.Errorf("pages %+v, want page 2 refused with %q", doc.Pages, want)
	}
}

func TestEndsInHexString(t *testing.T) {
	t.Parallel()
	tests := map[string]bool{
		"BT (A) Tj ET":          false,
		"BT <4142> Tj ET":       false,
		"<<":                    true, // harmless, but a stream never ends so; flagging it is the safe side
		"<< /A 1 >>":            false,
		"(a < b) Tj":            false,
		"BT\n<T":                true,
		"BT <41":                true,
		"BT <4 1\n":             true,
		"BT <414":               true,
		"<":                     true,
		"BT <41 zz> Tj <4142>":  false,
		"BT <41> Tj <":          true,
		"x <4 1 4 2 \x00\f\r\n": true,
		"":                      false,
	}
	for in, want := range tests {
		if got := endsInHexString([]byte(in)); got != want {
			t.Errorf("endsInHexString(%q) = %v, want %v", in, got, want)
		}
	}
}
