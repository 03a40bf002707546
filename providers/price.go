package providers

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// A Price is what a model costs, in US dollars per million tokens of each
// kind. Cache reads and writes are parts of the input (see [Usage]): only
// the rest of the input is billed at Input.
type Price struct {
	Input      float64
	Output     float64
	CacheRead  float64
	CacheWrite float64
	// Source says where the price comes from ("built-in price list",
	// "config FILE:LINE", "local model, no charge"), for display.
	Source string
}

// LocalPriceSource is the Source of the zero price of a model that runs on
// the user's machine (Ollama, LM Studio, vLLM).
const LocalPriceSource = "local model, no charge"

// Cost returns the cost of u at p in US dollars. A usage whose cache parts
// exceed its input (a provider's inconsistency) bills no uncached input
// rather than a negative amount.
func (p Price) Cost(u Usage) float64 {
	uncached := max(u.InputTokens-u.CachedInputTokens-u.CacheWriteTokens, 0)
	return (float64(uncached)*p.Input +
		float64(u.CachedInputTokens)*p.CacheRead +
		float64(u.CacheWriteTokens)*p.CacheWrite +
		float64(u.OutputTokens)*p.Output) / 1e6
}

// String describes the rates, e.g. "input $3, cache read $0.3, cache write
// $3.75, output $15 per million tokens".
func (p Price) String() string {
	return fmt.Sprintf("input $%s, cache read $%s, cache write $%s, output $%s per million tokens",
		rate(p.Input), rate(p.CacheRead), rate(p.CacheWrite), rate(p.Output))
}

func rate(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }

// A PriceFunc returns the price of a model id; false means no price is
// known.
type PriceFunc func(model string) (Price, bool)

// ModelUsage is the usage of the requests sent under one model id.
type ModelUsage struct {
	Model string `json:"model"`
	Usage
}

// AddModelUsage adds u to model's entry of list, which stays sorted by
// model (so output built from it never depends on map order), and returns
// the list.
func AddModelUsage(list []ModelUsage, model string, u Usage) []ModelUsage {
	i, found := slices.BinarySearchFunc(list, model, func(m ModelUsage, name string) int {
		return strings.Compare(m.Model, name)
	})
	if !found {
		list = slices.Insert(list, i, ModelUsage{Model: model})
	}
	list[i].Add(u)
	return list
}

// TotalUsage sums a list of per-model usage.
func TotalUsage(list []ModelUsage) Usage {
	var total Usage
	for _, m := range list {
		total.Add(m.Usage)
	}
	return total
}

// UsageSince returns what was added to after since before (both sorted by
// model, as [AddModelUsage] keeps them): the usage of a turn, from the
// session's usage before and after it. Models without new usage are left
// out.
func UsageSince(after, before []ModelUsage) []ModelUsage {
	var out []ModelUsage
	for _, m := range after {
		d := m.Usage
		if i := slices.IndexFunc(before, func(b ModelUsage) bool { return b.Model == m.Model }); i >= 0 {
			b := before[i].Usage
			d = Usage{
				InputTokens:       d.InputTokens - b.InputTokens,
				OutputTokens:      d.OutputTokens - b.OutputTokens,
				CachedInputTokens: d.CachedInputTokens - b.CachedInputTokens,
				CacheWriteTokens:  d.CacheWriteTokens - b.CacheWriteTokens,
			}
		}
		if d != (Usage{}) {
			out = append(out, ModelUsage{Model: m.Model, Usage: d})
		}
	}
	return out
}

// A Bill is the cost of some per-model usage.
type Bill struct {
	// USD is the cost of the models with a known price.
	USD float64
	// Unpriced are the models used without a known price, in model order;
	// when there are any, USD is only a lower bound.
	Unpriced []string
}

// Charge prices each model's usage with price (nil prices nothing).
func Charge(list []ModelUsage, price PriceFunc) Bill {
	var b Bill
	for _, m := range list {
		p, ok := Price{}, false
		if price != nil {
			p, ok = price(m.Model)
		}
		if !ok {
			b.Unpriced = append(b.Unpriced, m.Model)
			continue
		}
		b.USD += p.Cost(m.Usage)
	}
	return b
}

// Known reports whether every model's price was known, so USD is the whole
// cost.
func (b Bill) Known() bool { return len(b.Unpriced) == 0 }
