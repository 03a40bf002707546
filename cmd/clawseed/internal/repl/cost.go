package repl

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/clawseed/clawseed/internal/termtext"
	"github.com/clawseed/clawseed/providers"
)

// showCost prints /cost: this session's tokens by kind, the cache hit ratio,
// and the cost in US dollars, per model when more than one was used. A model
// without a known price makes the total "at least" the priced models' cost
// ("unknown" when none has a price), like cost_usd's null in run's JSON.
func (c *Chat) showCost() {
	byModel := c.Agent.UsageByModel()
	total := providers.TotalUsage(byModel)
	if total == (providers.Usage{}) {
		fmt.Fprintln(c.Out, "No tokens used in this session yet.")
		return
	}
	writeTokens(c.Out, total)
	if len(byModel) == 1 {
		m := byModel[0]
		p, ok := c.price(m.Model)
		fmt.Fprintf(c.Out, "Model %s: %s.\n", modelLabel(m.Model), termtext.EscapeLine(describePrice(p, ok)))
	} else {
		fmt.Fprintln(c.Out, "By model:")
		width := 0
		for _, m := range byModel {
			width = max(width, len(modelLabel(m.Model)))
		}
		for _, m := range byModel {
			p, ok := c.price(m.Model)
			cost := "no price known"
			if ok {
				cost = usd(p.Cost(m.Usage))
				if p.Source == providers.LocalPriceSource {
					cost += " (local model, no charge)"
				}
			}
			fmt.Fprintf(c.Out, "  %-*s  %s: %s\n", width, modelLabel(m.Model), tokensShort(m.Usage), cost)
		}
	}
	for _, line := range purposeLines(c.Agent.UsageByPurpose(), c.price) {
		fmt.Fprintln(c.Out, line)
	}
	bill := providers.Charge(byModel, c.price)
	fmt.Fprintln(c.Out, "Cost: "+costLine(bill))
}

// purposeLines are the lines of the requests clawseed made on its own,
// one per purpose ("Memory extraction (included above): input …"), in
// purpose order: their tokens are already in the totals and per model
// above.
func purposeLines(list []providers.PurposeUsage, price providers.PriceFunc) []string {
	var lines []string
	for i := 0; i < len(list); {
		purpose := list[i].Purpose
		var models []providers.ModelUsage
		for ; i < len(list) && list[i].Purpose == purpose; i++ {
			models = append(models, providers.ModelUsage{Model: list[i].Model, Usage: list[i].Usage})
		}
		label := termtext.EscapeLine(purpose)
		if label != "" {
			label = strings.ToUpper(label[:1]) + label[1:]
		}
		lines = append(lines, fmt.Sprintf("%s (included above): %s: %s", label, tokensShort(providers.TotalUsage(models)), costLine(providers.Charge(models, price))))
	}
	return lines
}

func (c *Chat) price(model string) (providers.Price, bool) {
	if c.Prices == nil {
		return providers.Price{}, false
	}
	return c.Prices(model)
}

func writeTokens(w io.Writer, u providers.Usage) {
	uncached := max(u.InputTokens-u.CachedInputTokens-u.CacheWriteTokens, 0)
	fmt.Fprintln(w, "Tokens this session:")
	for _, row := range []struct {
		name string
		n    int
	}{
		{"input, uncached", uncached},
		{"cache read", u.CachedInputTokens},
		{"cache write", u.CacheWriteTokens},
		{"output", u.OutputTokens},
	} {
		fmt.Fprintf(w, "  %-16s %12s\n", row.name, thousands(row.n))
	}
	if u.InputTokens > 0 {
		ratio := float64(u.CachedInputTokens) / float64(u.InputTokens) * 100
		fmt.Fprintf(w, "Cache hit ratio: %.1f%% of %s input tokens were read from the cache.\n", ratio, thousands(u.InputTokens))
	}
}

// describePrice says which rates priced a model and where they come from.
func describePrice(p providers.Price, ok bool) string {
	switch {
	case !ok:
		return "no price known; set price in its [providers.models.NAME] entry of config.toml"
	case p.Source == providers.LocalPriceSource:
		return p.Source
	}
	return fmt.Sprintf("%s (%s)", p, p.Source)
}

func costLine(b providers.Bill) string {
	if b.Known() {
		return usd(b.USD)
	}
	labels := make([]string, len(b.Unpriced))
	for i, m := range b.Unpriced {
		labels[i] = modelLabel(m)
	}
	missing := "no price for " + strings.Join(labels, ", ") + "; set price in the [providers.models.NAME] entry"
	if b.USD == 0 {
		return "unknown (" + missing + ")"
	}
	return "at least " + usd(b.USD) + " (" + missing + ")"
}

// tokensShort is one model's usage on one line.
func tokensShort(u providers.Usage) string {
	s := "input " + thousands(u.InputTokens)
	var parts []string
	if u.CachedInputTokens > 0 {
		parts = append(parts, thousands(u.CachedInputTokens)+" cache read")
	}
	if u.CacheWriteTokens > 0 {
		parts = append(parts, thousands(u.CacheWriteTokens)+" cache write")
	}
	if len(parts) > 0 {
		s += " (" + strings.Join(parts, ", ") + ")"
	}
	return s + ", output " + thousands(u.OutputTokens)
}

func modelLabel(model string) string {
	if model == "" {
		return "(unnamed model)"
	}
	return termtext.EscapeLine(model)
}

// usd formats dollars to the micro-dollar, as run's cost_usd is rounded.
func usd(v float64) string { return "$" + strconv.FormatFloat(v, 'f', 6, 64) }

// thousands writes n with comma separators: 1234567 → "1,234,567".
func thousands(n int) string {
	s := strconv.Itoa(n)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	for i, r := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(r)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}
