package evals

import (
	"cmp"
	"crypto/sha256"
	"math"
	"slices"
)

// Split divides cases into a training share of about share (0 < share <
// 1) and the held-out validation rest, the same way every time: per
// expected skill (and for the cases expecting none), the cases ordered by
// a hash of their prompt, the first round(share × n) for training. A
// group of two cases or more keeps at least one on each side, so each
// skill is both learned from and checked; a group of one is training.
// Both lists keep the file's order.
func Split(cases []Case, share float64) (train, valid []Case) {
	groups := map[string][]int{}
	for i, c := range cases {
		groups[c.Expect] = append(groups[c.Expect], i)
	}
	inTrain := make([]bool, len(cases))
	for _, idx := range groups {
		slices.SortStableFunc(idx, func(a, b int) int {
			ha, hb := sha256.Sum256([]byte(cases[a].Prompt)), sha256.Sum256([]byte(cases[b].Prompt))
			return cmp.Or(slices.Compare(ha[:], hb[:]), cmp.Compare(cases[a].ID, cases[b].ID))
		})
		n := len(idx)
		k := int(math.Round(share * float64(n)))
		if n >= 2 {
			k = min(max(k, 1), n-1)
		} else {
			k = n
		}
		for _, i := range idx[:k] {
			inTrain[i] = true
		}
	}
	for i, c := range cases {
		if inTrain[i] {
			train = append(train, c)
		} else {
			valid = append(valid, c)
		}
	}
	return train, valid
}
