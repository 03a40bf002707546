package skills

// maxSuggestDistance is the largest edit distance at which an unknown skill
// name gets a "Did you mean" suggestion (§4.5 row 3).
const maxSuggestDistance = 2

// Suggest returns the candidate closest to name within an edit distance
// of 2, the first one in candidates' order on a tie, or "" when none is
// close: the "did you mean" of unknown skills and slash commands.
func Suggest(name string, candidates []string) string { return suggest(name, candidates) }

// suggest returns the candidate closest to name within maxSuggestDistance,
// the first one in candidates' order on a tie, or "" when none is close.
// candidates are expected in name order.
func suggest(name string, candidates []string) string {
	best, bestDist := "", maxSuggestDistance+1
	for _, c := range candidates {
		if d := levenshtein(name, c, bestDist-1); d < bestDist {
			best, bestDist = c, d
		}
	}
	return best
}

// levenshtein returns the edit distance (insertions, deletions and
// substitutions of runes) between a and b, or limit+1 as soon as it is known to
// exceed limit, which keeps a search over thousands of names cheap.
func levenshtein(a, b string, limit int) int {
	ra, rb := []rune(a), []rune(b)
	if abs(len(ra)-len(rb)) > limit {
		return limit + 1
	}
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		rowMin := cur[0]
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			rowMin = min(rowMin, cur[j])
		}
		if rowMin > limit {
			return limit + 1
		}
		prev, cur = cur, prev
	}
	return min(prev[len(rb)], limit+1)
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}
