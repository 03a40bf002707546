package main

import (
	"math"

	"github.com/clawseed/clawseed/cmd/clawseed/internal/config"
	"github.com/clawseed/clawseed/providers"
)

// priceFunc returns the session's price lookup for /cost and cost_usd: an
// entry's [providers.models.*].price, free for local presets, else the
// built-in list (config.Prices). The selection in use is noted again at each
// lookup, so a model that /model switched to is priced through its entry or
// preset too.
func (a *app) priceFunc() providers.PriceFunc {
	used := []*config.Resolved{a.resolved}
	if fallbacks, err := a.cfg.ResolveFallbacks(); err == nil {
		used = append(used, fallbacks...)
	}
	book := a.cfg.Prices(used...)
	return func(model string) (providers.Price, bool) {
		book.Use(a.resolved)
		return book.Price(model)
	}
}

// modelsJSON is run's models: the usage of each model that answered, with
// its cost.
func modelsJSON(usage []providers.ModelUsage, price providers.PriceFunc) []modelUsageJSON {
	out := []modelUsageJSON{}
	for _, m := range usage {
		out = append(out, modelUsageJSON{Model: m.Model, usageJSON: newUsageJSON(m.Usage), CostUSD: costUSD([]providers.ModelUsage{m}, price)})
	}
	return out
}

// costUSD is run's cost_usd: the cost of usage in US dollars, rounded to
// the micro-dollar; nil when a model used has no known price.
func costUSD(usage []providers.ModelUsage, price providers.PriceFunc) *float64 {
	bill := providers.Charge(usage, price)
	if !bill.Known() {
		return nil
	}
	usd := math.Round(bill.USD*1e6) / 1e6
	return &usd
}
