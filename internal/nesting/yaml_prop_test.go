package nesting

import (
	"math/rand/v2"
	"strings"
	"testing"
)

// The scan must never count fewer levels than the parser builds: text it
// passes could otherwise nest deeper than Limit. FuzzCheckYAML checks this
// on what the fuzzer finds; TestCheckYAMLNeverUnderestimates checks it in
// every test run on the fuzz seeds, the shapes the fuzzer found, and two
// families of generated documents: nested flow collections whose entries
// and keys are themselves collections (pairs in sequences, `? ` keys,
// collections as keys, in block context too), and token soup.

// yamlRegressions are the input the fuzzer found where the scan counted too
// few levels, and its relatives; each is also in testdata/fuzz/FuzzCheckYAML.
var yamlRegressions = []string{
	"[[0: 0,0]:]",                 // an earlier entry's pair was forgotten when its collection became a key
	"[[a: b, c]: d]",              // the same, with a plain entry after the pair
	"[{a: [[x]], b: c}: d]",       // a flow mapping's earlier entry, under a pair's key
	"[[[a: b, c]: d, e]: f]\n",    // twice over
	"[[a: b, c]: d]: e\n",         // a block key holding it
	"? [[a: b, c]: d]\n: e\n",     // a complex key holding it
	"- [[a: b, c]: d]\n- [x]\n",   // a sequence entry holding it
	"{[[a: b, c]: d]: e, f: g}\n", // a flow mapping key holding it
}

func TestCheckYAMLNeverUnderestimates(t *testing.T) {
	t.Parallel()
	docs := append(append([]string{}, yamlSeeds...), yamlRegressions...)
	r := rand.New(rand.NewPCG(20, 14))
	for range 6000 {
		docs = append(docs, genYAMLDoc(r))
	}
	for range 6000 {
		docs = append(docs, genYAMLSoup(r))
	}
	parsed := 0
	for _, doc := range docs {
		d := yamlTreeDepth(t, []byte(doc))
		if d <= 0 {
			continue
		}
		parsed++
		if scanYAML([]byte(doc), d-1) == nil {
			t.Errorf("%q: the parser nests %d levels, the scan counts %d", doc, d, yamlEstimate([]byte(doc)))
		}
	}
	if parsed < 4000 {
		t.Errorf("only %d of %d generated documents parse: the generators need work", parsed, len(docs))
	}
}

// genYAMLDoc is a document around a random flow node: alone, as a block
// value, key, complex key or sequence entry.
func genYAMLDoc(r *rand.Rand) string {
	n := genFlow(r, 4)
	switch r.IntN(6) {
	case 0:
		return n + "\n"
	case 1:
		return "k: " + n + "\n"
	case 2:
		return n + ": v\n"
	case 3:
		return "? " + n + "\n: " + genFlow(r, 2) + "\n"
	case 4:
		return "- " + n + "\n- " + genFlow(r, 2) + "\n"
	}
	return "a:\n  - " + n + "\n  - b: " + genFlow(r, 2) + "\n"
}

// genFlow is a flow node nested at most depth collections deep.
func genFlow(r *rand.Rand, depth int) string {
	if depth == 0 || r.IntN(4) == 0 {
		return []string{"a", "0", "'q'", "\"q\"", "&x b", "!t c", "a b"}[r.IntN(7)]
	}
	var entries []string
	seq := r.IntN(2) == 0
	for range r.IntN(4) {
		k := genFlow(r, depth-1)
		switch r.IntN(5) {
		case 0, 1:
			entries = append(entries, k)
		case 2:
			entries = append(entries, k+": "+genFlow(r, depth-1))
		case 3:
			entries = append(entries, "? "+k+": "+genFlow(r, depth-1))
		default:
			entries = append(entries, k+":")
		}
	}
	sep := []string{", ", ",", ",\n        "}[r.IntN(3)]
	if seq {
		return "[" + strings.Join(entries, sep) + "]"
	}
	return "{" + strings.Join(entries, sep) + "}"
}

// genYAMLSoup is a generated document with a few YAML tokens inserted
// anywhere.
func genYAMLSoup(r *rand.Rand) string {
	tokens := []string{"[", "]", "{", "}", ",", ": ", ":", "? ", "- ", "a", "\n", "  ", "&y ", "*x", "!t ", "'q'", " #c\n", "|\n  z\n"}
	doc := genYAMLDoc(r)
	for range 1 + r.IntN(3) {
		i := r.IntN(len(doc) + 1)
		doc = doc[:i] + tokens[r.IntN(len(tokens))] + doc[i:]
	}
	return doc
}
