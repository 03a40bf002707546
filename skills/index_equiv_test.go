package skills

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

// renderIndexSlow is RenderIndex as it was before it stopped early: every
// listed skill sorted into a new list and its name prepared before the
// budget is looked at. TestRenderIndexEquivalent checks the fast path
// against it.
func renderIndexSlow(skills []*Skill, budgetChars int) Index {
	listed := listedSlow(skills)
	if len(listed) == 0 {
		return Index{}
	}
	idx := Index{Listed: len(listed), Total: len(listed)}
	if budgetChars <= 0 {
		budgetChars = math.MaxInt
	}
	fixed := utf8.RuneCountInString(indexHeader) + utf8.RuneCountInString(indexFooter)
	entries := make([]indexEntry, len(listed))
	for i, s := range listed {
		entries[i] = newIndexEntry(s)
	}
	size := func(level IndexLevel, descCap int) int {
		n := fixed
		for i := range entries {
			n += entries[i].runes(level, descCap)
		}
		return n
	}
	done := func(level IndexLevel, descCap int) Index {
		idx.Level = level
		idx.Text = renderEntries(entries, level, descCap, len(entries), len(entries))
		return idx
	}
	switch {
	case size(IndexNamesOnly, 0) > budgetChars:
		k, n := 0, fixed
		for k < len(entries) {
			next := n + entries[k].runes(IndexNamesOnly, 0)
			if next+moreCommentRunes(len(entries)-k-1) > budgetChars {
				break
			}
			n = next
			k++
		}
		idx.Level, idx.Listed = IndexTruncated, k
		idx.Text = renderEntries(entries, IndexNamesOnly, 0, k, len(entries))
		return idx
	case size(IndexNoTriggers, 0) > budgetChars:
		return done(IndexNamesOnly, 0)
	case size(IndexNoDescriptions, 0) > budgetChars:
		return done(IndexNoTriggers, 0)
	case size(IndexFull, minDescriptionRunes) > budgetChars:
		return done(IndexNoDescriptions, 0)
	case size(IndexFull, maxDescriptionRunes) <= budgetChars:
		return done(IndexFull, maxDescriptionRunes)
	}
	lo, hi := minDescriptionRunes, maxDescriptionRunes-1
	for lo < hi {
		mid := (lo + hi + 1) / 2
		if size(IndexFull, mid) <= budgetChars {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	return done(IndexShortened, lo)
}

// listedSlow returns the skills of the index in name order, in a new list.
func listedSlow(skills []*Skill) []*Skill {
	var listed []*Skill
	for _, s := range skills {
		if s != nil && (s.Status == StatusListed || s.Status == StatusActive) {
			listed = append(listed, s)
		}
	}
	slices.SortFunc(listed, byName)
	return listed
}

// TestRenderIndexEquivalent checks that RenderIndex, which prepares only the
// names that can fit and reuses a sorted list, renders what renderIndexSlow
// does, for lists sorted or not, with skills left out of the index, names
// that need escaping and every budget from the header's size to no limit.
func TestRenderIndexEquivalent(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(28, 1))
	seen := map[IndexLevel]bool{}
	statuses := []Status{StatusListed, StatusListed, StatusListed, StatusActive, StatusHidden, StatusUserOnly}
	for round := range 40 {
		var list []*Skill
		for i := range rng.IntN(60) {
			s := &Skill{
				Name:        fmt.Sprintf("s-%03d", rng.IntN(100)),
				Dir:         fmt.Sprintf("/d/%d", i),
				Description: strings.Repeat("word & <more> ", rng.IntN(30)),
				Status:      statuses[rng.IntN(len(statuses))],
			}
			if rng.IntN(4) == 0 {
				s.Name += ` "quoted" ` + strings.Repeat("技", rng.IntN(3))
			}
			if rng.IntN(2) == 0 {
				s.Triggers = []string{"t", fmt.Sprint(i)}
			}
			if rng.IntN(3) == 0 {
				s.ArgumentHint = "<path>"
			}
			list = append(list, s)
		}
		if rng.IntN(2) == 0 {
			slices.SortFunc(list, byName)
		}
		if rng.IntN(8) == 0 {
			list = append(list, nil)
		}
		// Every budget at which the level changes, and some in between.
		budgets := []int{-1, 0, 1, 100, 300, math.MaxInt}
		var entries []indexEntry
		for _, s := range listedSlow(list) {
			entries = append(entries, newIndexEntry(s))
		}
		for _, at := range []struct {
			level IndexLevel
			cap   int
		}{{IndexNamesOnly, 0}, {IndexNoTriggers, 0}, {IndexNoDescriptions, 0}, {IndexFull, minDescriptionRunes}, {IndexFull, 100}, {IndexFull, maxDescriptionRunes}} {
			n := runeLen(renderEntries(entries, at.level, at.cap, len(entries), len(entries)))
			budgets = append(budgets, n-1, n, n+1, n/2, n/3)
		}
		for _, budget := range budgets {
			for b := budget; b <= budget+40 && b >= budget; b += 13 {
				want, got := renderIndexSlow(list, b), RenderIndex(list, b)
				if got != want {
					t.Fatalf("round %d budget %d: got %v %d/%d, want %v %d/%d\n%s\nwant:\n%s",
						round, b, got.Level, got.Listed, got.Total, want.Level, want.Listed, want.Total, got.Text, want.Text)
				}
				if want.Total > 0 {
					seen[want.Level] = true
				}
			}
		}
	}
	if len(seen) != len(indexLevelNames) {
		t.Errorf("levels reached: %v, want all %d", seen, len(indexLevelNames))
	}
}
