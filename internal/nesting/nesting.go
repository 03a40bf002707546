// Package nesting refuses deeply nested configuration text before a parser
// sees it.
//
// The TOML and YAML libraries handle nesting recursively, and their cost
// grows much faster than the input: a 32 KB manifest.toml nested 8,000 deep
// took 30 s and 2.9 GB to decode. Nothing clawseed reads needs more than a
// handful of levels, so a linear pre-scan that stops at [Limit] levels makes
// the worst case cheap and gives the user an error with a line number.
//
// The scanners are deliberately conservative in one direction only: they
// never report less nesting than the parser would build, so text that
// passes cannot be deeper than [Limit]. Text that is not valid TOML or YAML
// may pass; the parser rejects it afterwards.
package nesting

import "fmt"

// Limit is the deepest nesting of tables, arrays and mappings accepted.
const Limit = 64

// An Error reports where the text first nests deeper than Limit.
type Error struct {
	Line  int // 1-based line of the text where the limit was passed
	Limit int
}

func (e *Error) Error() string {
	return fmt.Sprintf("nesting deeper than %d levels (tables, arrays or mappings inside each other)", e.Limit)
}
