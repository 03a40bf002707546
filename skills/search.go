package skills

import (
	"math"
	"slices"
	"strings"
	"unicode"
)

// MaxSearchResults caps a skill search (§4.5).
const MaxSearchResults = 10

// Field weights of [ActiveSet.Search]: a word of the name or a trigger says
// more about when to use a skill than one of its description.
const (
	weightName    = 3.0
	weightTrigger = 2.5
	weightText    = 1.0
	// exactNameBonus puts a skill whose name is the whole query first.
	exactNameBonus = 100.0
)

// Search ranks the skills a caller could activate (the listed ones, plus
// the user-only ones when byUser) against query and returns at most limit
// (≤ [MaxSearchResults]) that match any of its words, best first. The
// ranking is BM25 without length normalisation over name, triggers,
// description and when_to_use, tokenised case- and punctuation-
// insensitively, with name and trigger words weighted up; ties keep name
// order. It never changes the set.
func (a *ActiveSet) Search(query string, limit int, byUser bool) []*Skill {
	if limit <= 0 || limit > MaxSearchResults {
		limit = MaxSearchResults
	}
	terms := searchTokens(query)
	if len(terms) == 0 {
		return nil
	}
	a.mu.Lock()
	var pool []*Skill
	for _, name := range a.activatable(byUser) {
		pool = append(pool, a.cat.Lookup(name))
	}
	a.mu.Unlock()

	docs := make([]map[string]float64, len(pool))
	df := map[string]int{}
	for i, s := range pool {
		docs[i] = skillTerms(s)
		for t := range docs[i] {
			df[t]++
		}
	}
	type scored struct {
		s     *Skill
		score float64
	}
	var hits []scored
	whole := strings.Join(terms, "")
	for i, s := range pool {
		score := 0.0
		for _, t := range terms {
			tf := docs[i][t]
			if tf == 0 {
				continue
			}
			idf := math.Log(1 + (float64(len(pool))-float64(df[t])+0.5)/(float64(df[t])+0.5))
			score += idf * tf * 2.2 / (tf + 1.2)
		}
		if score == 0 {
			continue
		}
		if strings.Join(searchTokens(s.Name), "") == whole {
			score += exactNameBonus
		}
		hits = append(hits, scored{s, score})
	}
	slices.SortStableFunc(hits, func(x, y scored) int {
		switch {
		case x.score > y.score:
			return -1
		case x.score < y.score:
			return 1
		}
		return 0
	})
	out := make([]*Skill, 0, min(limit, len(hits)))
	for _, h := range hits[:min(limit, len(hits))] {
		out = append(out, h.s)
	}
	return out
}

// skillTerms returns the weighted term frequencies of a skill's searchable
// fields.
func skillTerms(s *Skill) map[string]float64 {
	tf := map[string]float64{}
	add := func(text string, w float64) {
		for _, t := range searchTokens(text) {
			tf[t] += w
		}
	}
	add(s.Name, weightName)
	for _, tr := range s.Triggers {
		add(tr, weightTrigger)
	}
	add(s.Description, weightText)
	add(s.WhenToUse, weightText)
	return tf
}

// searchTokens splits text into lower-case runs of letters and digits.
func searchTokens(text string) []string {
	return strings.FieldsFunc(strings.ToLower(text), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	})
}
