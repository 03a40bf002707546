package providertest_test

import (
	"bytes"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/rogpeppe/go-internal/txtar"

	"github.com/clawseed/clawseed/providers/providertest"
)

var update = flag.Bool("update", false, "rewrite the response sections of testdata/wire/*.txtar")

// TestWireGolden runs every testdata/wire/*.txtar case: a server started
// with script.jsonl receives request.json (POSTed to the path in `path`,
// default /v1/messages) and its raw answer — status, the headers a client
// reads, body — must equal response.http. -update rewrites response.http.
func TestWireGolden(t *testing.T) {
	t.Parallel()
	files, err := filepath.Glob(filepath.Join("testdata", "wire", "*.txtar"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no golden cases: %v", err)
	}
	for _, file := range files {
		t.Run(strings.TrimSuffix(filepath.Base(file), ".txtar"), func(t *testing.T) {
			t.Parallel()
			ar, err := txtar.ParseFile(file)
			if err != nil {
				t.Fatal(err)
			}
			script, err := providertest.ParseScript(section(t, ar, "script.jsonl", true))
			if err != nil {
				t.Fatal(err)
			}
			path := strings.TrimSpace(string(section(t, ar, "path", false)))
			if path == "" {
				path = "/v1/messages"
			}
			got := rawAnswer(t, script, path, section(t, ar, "request.json", true))
			if *update {
				setSection(ar, "response.http", got)
				if err := os.WriteFile(file, txtar.Format(ar), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			if diff := cmp.Diff(string(section(t, ar, "response.http", true)), string(got)); diff != "" {
				t.Errorf("answer (-golden +got):\n%s", diff)
			}
		})
	}
}

func section(t *testing.T, ar *txtar.Archive, name string, required bool) []byte {
	t.Helper()
	for _, f := range ar.Files {
		if f.Name == name {
			return f.Data
		}
	}
	if required && (!*update || name != "response.http") {
		t.Fatalf("no %s section", name)
	}
	return nil
}

func setSection(ar *txtar.Archive, name string, data []byte) {
	for i, f := range ar.Files {
		if f.Name == name {
			ar.Files[i].Data = data
			return
		}
	}
	ar.Files = append(ar.Files, txtar.File{Name: name, Data: data})
}

// answerHeaders are the response headers a golden shows.
var answerHeaders = []string{"Content-Type", "Request-Id", "Retry-After"}

// rawAnswer sends one request to a fresh server and renders the answer. A
// dropped connection shows as a last line "[connection dropped: ERR]".
func rawAnswer(t *testing.T, script []providertest.Response, path string, body []byte) []byte {
	t.Helper()
	s := providertest.NewServer(script)
	defer s.Close()
	base := strings.TrimSuffix(s.URL(), "/v1")
	resp, err := http.Post(base+path, "application/json", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out bytes.Buffer
	fmt.Fprintf(&out, "HTTP %d\n", resp.StatusCode)
	for _, h := range slices.Sorted(slices.Values(answerHeaders)) {
		if v := resp.Header.Get(h); v != "" {
			fmt.Fprintf(&out, "%s: %s\n", h, v)
		}
	}
	out.WriteString("\n")
	b, err := io.ReadAll(resp.Body)
	out.Write(b)
	if err != nil {
		fmt.Fprintf(&out, "[connection dropped: %v]\n", err)
	}
	return out.Bytes()
}
