package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/clawseed/clawseed/cmd/clawseed/internal/app"
	"github.com/clawseed/clawseed/internal/termtext"
	"github.com/clawseed/clawseed/providers"
)

func newMemoryDistillCmd(g *globalOptions, io *IOStreams) *cobra.Command {
	var o app.DistillOptions
	cmd := &cobra.Command{
		Use:   "distill",
		Short: "Turn the daily memory logs of past days into topic memories (one model request)",
		Long: "Distil the daily logs ([memory].mode = \"daily_log\": <memory dir>/logs/YYYY-MM-DD.md) of the days\n" +
			"before today into topic memories and a fresh MEMORY.md, with one request to the summary model\n" +
			"([context].summary_model, else the default model), then move the logs to logs/done/. With nothing\n" +
			"to distill it makes no request. Schedule it with `clawseed cron add --every 24h -- memory distill`.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if o.Since != "" {
				if _, err := time.Parse(time.DateOnly, o.Since); err != nil {
					return usageError(fmt.Errorf("--since: %q is not a date like 2025-01-31", o.Since))
				}
			}
			return memoryDistillRun(cmd.Context(), g, io, o)
		},
	}
	cmd.Flags().StringVar(&o.Since, "since", "", "distill only the logs of `DATE` (YYYY-MM-DD) and later")
	cmd.Flags().BoolVar(&o.DryRun, "dry-run", false, "ask the model and print what would be written, without writing anything")
	return cmd
}

func memoryDistillRun(ctx context.Context, g *globalOptions, io *IOStreams, o app.DistillOptions) error {
	cfg, err := loadConfig(g, io.Err)
	if err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	o.Notices = io.Err
	rep, err := app.DistillMemory(ctx, cfg, o)
	if !rep.Nothing() || rep.Pending || len(rep.Usage) > 0 {
		printDistill(io.Out, rep, o.DryRun)
	}
	if err != nil {
		// The configuration's errors are exit 2, an interrupt 130, a
		// distillation that failed (or runs elsewhere) 1: errorCode's
		// classes.
		return err
	}
	if rep.Nothing() && !rep.Pending {
		fmt.Fprintf(io.Out, "Nothing to distill: no log of a day before today in %s.\n", filepath.Join(rep.Dir, "logs"))
	}
	return nil
}

// printDistill writes what the distillation did (or, in a dry run, would
// do) and what its requests cost.
func printDistill(w io.Writer, rep app.DistillReport, dryRun bool) {
	rel := func(path string) string {
		if r, err := filepath.Rel(rep.Dir, path); err == nil {
			return filepath.ToSlash(r)
		}
		return path
	}
	if rep.Pending {
		fmt.Fprintln(w, "An interrupted distillation is pending: run `clawseed memory distill` without --dry-run to finish it.")
		return
	}
	if rep.Resumed > 0 {
		fmt.Fprintf(w, "Finished an interrupted distillation of %s.\n", plural(rep.Resumed, "log"))
	}
	if len(rep.Duplicates) > 0 {
		fmt.Fprintf(w, "Already distilled, removed from logs/: %s.\n", strings.Join(rep.Duplicates, ", "))
	}
	if len(rep.Logs) > 0 {
		verb, created, updated := "Distilled", "created", "updated"
		if dryRun {
			verb, created, updated = "Dry run: would distill", "would create", "would update"
		}
		fmt.Fprintf(w, "%s %s (%s) into %s", verb, plural(len(rep.Logs), "log"), strings.Join(rep.Logs, ", "), plural(len(rep.Memories), "memory"))
		if len(rep.Memories) == 0 {
			fmt.Fprintln(w, ".")
		} else {
			fmt.Fprintln(w, ":")
		}
		for _, m := range rep.Memories {
			what := updated
			if m.Created {
				what = created
			}
			if m.Appended {
				what += " (added to its end)"
			}
			fmt.Fprintf(w, "  %s %s (%s): %s\n", what, termtext.EscapeLine(m.Name), m.Type, rel(m.Path))
		}
		if dryRun {
			fmt.Fprintln(w, "Nothing was written.")
		} else {
			fmt.Fprintf(w, "Moved the logs to %s.\n", filepath.Join(rep.Dir, "logs", "done"))
		}
	}
	if len(rep.Left) > 0 {
		fmt.Fprintf(w, "Left for the next run (the request was full): %s.\n", strings.Join(rep.Left, ", "))
	}
	if len(rep.Changed) > 0 {
		fmt.Fprintf(w, "Changed while they were distilled, left in logs/ for the next run: %s.\n", strings.Join(rep.Changed, ", "))
	}
	if len(rep.Usage) > 0 {
		fmt.Fprintln(w, distillUsage(rep.Usage, rep.Price, rep.Requests))
	}
}

// distillUsage is the last line: the requests' tokens and cost.
func distillUsage(usage []providers.ModelUsage, price providers.PriceFunc, requests int) string {
	var models []string
	for _, m := range usage {
		models = append(models, termtext.EscapeLine(m.Model))
	}
	total := providers.TotalUsage(usage)
	cost := "unknown (no price for " + strings.Join(models, ", ") + ")"
	if usd := costUSD(usage, price); usd != nil {
		cost = fmt.Sprintf("$%.6f", *usd)
	}
	return fmt.Sprintf("Usage: %s to %s: %d input tokens (%d cached), %d output tokens. Cost: %s.",
		plural(requests, "request"), strings.Join(models, ", "), total.InputTokens, total.CachedInputTokens, total.OutputTokens, cost)
}

// plural is "1 log", "2 logs"; "memory" becomes "memories".
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	if strings.HasSuffix(noun, "y") {
		return fmt.Sprintf("%d %sies", n, strings.TrimSuffix(noun, "y"))
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
