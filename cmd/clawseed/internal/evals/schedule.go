package evals

import (
	"context"
	"errors"
	"slices"
	"sync"

	"github.com/clawseed/clawseed/providers"
)

// A RunFunc runs a case once: [Runner.Run], or a test's.
type RunFunc func(ctx context.Context, c Case, opts RunOptions) Run

// A Plan is what [Execute] runs: each case Runs times over Parallel
// workers.
type Plan struct {
	Cases    []Case
	Runs     int
	Parallel int
	// MaxCostUSD stops scheduling runs once the runs finished have cost
	// that much (0: no ceiling). Runs already going finish, so the spend
	// can pass it by what at most Parallel-1 runs cost.
	MaxCostUSD float64
	// Options gives each case's run options; nil runs every case with
	// the zero RunOptions.
	Options func(Case) RunOptions
	// Done, when set, is called after each run, under a lock (the runs
	// finished so far, the runs planned).
	Done func(finished, planned int, c Case, r Run)
}

// An Outcome is what [Execute] ran.
type Outcome struct {
	// Results holds each case with its finished runs (errors included),
	// in the plan's case order.
	Results []Result
	// Planned runs; Skipped were not started because of the cost
	// ceiling; Cancelled were not started or not finished because ctx
	// ended (Ctrl-C).
	Planned, Skipped, Cancelled int
	// Usage and CostUSD are the finished runs' (errors included);
	// Unpriced names the models without a known price.
	Usage    providers.Usage
	CostUSD  float64
	Unpriced []string
}

// Execute runs the plan: run 1 of every case, then run 2 of every case,
// and so on, so that a cost ceiling or Ctrl-C leaves each case with some
// runs rather than some cases with all of theirs. A run's error is its
// own (Run.Err), never the whole plan's.
func Execute(ctx context.Context, run RunFunc, p Plan) Outcome {
	runs, workers := max(p.Runs, 1), max(p.Parallel, 1)
	type job struct{ c int }
	var jobs []job
	for range runs {
		for i := range p.Cases {
			jobs = append(jobs, job{i})
		}
	}
	out := Outcome{Planned: len(jobs), Results: make([]Result, len(p.Cases))}
	for i, c := range p.Cases {
		out.Results[i].Case = c
	}
	var mu sync.Mutex
	next, finished := 0, 0
	// take returns the next job to run, counting those it passes over.
	take := func() (job, bool) {
		mu.Lock()
		defer mu.Unlock()
		for next < len(jobs) {
			j := jobs[next]
			next++
			switch {
			case ctx.Err() != nil:
				out.Cancelled++
			case p.MaxCostUSD > 0 && out.CostUSD >= p.MaxCostUSD:
				out.Skipped++
			default:
				return j, true
			}
		}
		return job{}, false
	}
	var wg sync.WaitGroup
	for range min(workers, len(jobs)) {
		wg.Go(func() {
			for {
				j, ok := take()
				if !ok {
					return
				}
				c := p.Cases[j.c]
				var opts RunOptions
				if p.Options != nil {
					opts = p.Options(c)
				}
				r := run(ctx, c, opts)
				mu.Lock()
				out.Usage.Add(r.Usage)
				out.CostUSD += r.CostUSD
				for _, m := range r.Unpriced {
					if !slices.Contains(out.Unpriced, m) {
						out.Unpriced = append(out.Unpriced, m)
					}
				}
				if r.Err != nil && ctx.Err() != nil && errors.Is(r.Err, ctx.Err()) {
					out.Cancelled++ // cut short by Ctrl-C: not the run's failure
				} else {
					out.Results[j.c].Runs = append(out.Results[j.c].Runs, r)
					finished++
					if p.Done != nil {
						p.Done(finished, out.Planned, c, r)
					}
				}
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	slices.Sort(out.Unpriced)
	return out
}
