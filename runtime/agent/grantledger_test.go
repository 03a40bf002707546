package agent

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/clawseed/clawseed/skills"
)

// TestGrantLedgerStartedEquivalent checks the ledger's sorted copy of the
// catalog against a map of every skill's hashes, filled in catalog order
// (what the ledger kept before): for catalogs sorted or not, with two
// skills of one name (the later counts), and names it never had.
func TestGrantLedgerStartedEquivalent(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(28, 2))
	for round := range 50 {
		cat := &skills.Catalog{}
		for i := range rng.IntN(40) {
			cat.Skills = append(cat.Skills, &skills.Skill{
				Name:         fmt.Sprintf("s-%02d", rng.IntN(30)),
				SkillHash:    fmt.Sprintf("skill-%d-%d", round, i),
				ManifestHash: fmt.Sprintf("manifest-%d", rng.IntN(3)),
			})
		}
		if rng.IntN(2) == 0 {
			slices.SortStableFunc(cat.Skills, byName)
		}
		want := map[string]fileHashes{}
		for _, s := range cat.Skills {
			want[s.Name] = hashesOf(s)
		}
		g := newGrantLedger(cat)
		// What the catalog's holder does to its list in place later
		// changes nothing.
		slices.Reverse(cat.Skills)
		for i := range 32 {
			name := fmt.Sprintf("s-%02d", i)
			if got := g.started(name); got != want[name] {
				t.Fatalf("round %d: started(%s) = %v, want %v", round, name, got, want[name])
			}
		}
	}
	if got := newGrantLedger(nil).started("x"); got != (fileHashes{}) {
		t.Errorf("a ledger without a catalog has %v", got)
	}
}
