package main

import (
	"math"

	"github.com/clawseed/clawseed/providers"
)

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
