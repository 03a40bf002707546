package providers

import (
	"cmp"
	"slices"
)

// A PurposeUsage is the usage of the requests clawseed made on its own for
// one purpose (such as "memory extraction") under one model. It is a part
// of the session's usage, already counted in its per-model totals: /cost
// and `run --output json` show it apart so the user sees what the
// background work cost.
type PurposeUsage struct {
	Purpose string `json:"purpose"`
	Model   string `json:"model"`
	Usage
}

// AddPurposeUsage adds u to the (purpose, model) entry of list, which stays
// sorted by purpose, then model (so output built from it never depends on
// map order), and returns the list.
func AddPurposeUsage(list []PurposeUsage, purpose, model string, u Usage) []PurposeUsage {
	key := PurposeUsage{Purpose: purpose, Model: model}
	i, found := slices.BinarySearchFunc(list, key, comparePurpose)
	if !found {
		list = slices.Insert(list, i, key)
	}
	list[i].Add(u)
	return list
}

func comparePurpose(a, b PurposeUsage) int {
	return cmp.Or(cmp.Compare(a.Purpose, b.Purpose), cmp.Compare(a.Model, b.Model))
}

// PurposeSince returns what was added to after since before (both as
// [AddPurposeUsage] keeps them): the part of a run's usage spent on each
// purpose. Entries without new usage are left out.
func PurposeSince(after, before []PurposeUsage) []PurposeUsage {
	var out []PurposeUsage
	for _, p := range after {
		d := p.Usage
		if i, found := slices.BinarySearchFunc(before, p, comparePurpose); found {
			b := before[i].Usage
			d = Usage{
				InputTokens:       d.InputTokens - b.InputTokens,
				OutputTokens:      d.OutputTokens - b.OutputTokens,
				CachedInputTokens: d.CachedInputTokens - b.CachedInputTokens,
				CacheWriteTokens:  d.CacheWriteTokens - b.CacheWriteTokens,
			}
		}
		if d != (Usage{}) {
			out = append(out, PurposeUsage{Purpose: p.Purpose, Model: p.Model, Usage: d})
		}
	}
	return out
}
