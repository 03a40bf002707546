package main

import (
	"context"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/clawseed/clawseed/cmd/clawseed/internal/repl"
	"github.com/clawseed/clawseed/internal/termtext"
	"github.com/clawseed/clawseed/skills"
)

func newSkillsSearchCmd(opts *skillsOptions) *cobra.Command {
	return &cobra.Command{
		Use:   "search TERMS...",
		Short: "Search every skill you can activate, listed in the index or not (best first, at most 10)",
		Args:  cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return skillsSearchRun(cmd.Context(), opts, strings.Join(args, " "))
		},
	}
}

// searchHitJSON is one result of `skills search --json`.
type searchHitJSON struct {
	Name        string `json:"name"`
	Description string `json:"description"`
	Source      string `json:"source"`
	Status      string `json:"status"`
	Path        string `json:"path"`
}

// skillsSearchRun ranks the skills the user could activate (§4.5: the
// model's search plus the user-only skills) against query. No match is not
// an error: it prints a sentence (or an empty list) and exits 0.
func skillsSearchRun(ctx context.Context, opts *skillsOptions, query string) error {
	cfg, err := loadConfig(opts.global, opts.io.Err)
	if err != nil {
		return err
	}
	cat := opts.discover(ctx, cfg)
	set := skills.NewActiveSet(skills.ActiveConfig{Excluded: cfg.Skills.Excluded}, cat)
	found := set.Search(query, skills.MaxSearchResults, true)
	if opts.JSON {
		hits := make([]searchHitJSON, 0, len(found))
		for _, s := range found {
			hits = append(hits, searchHitJSON{Name: s.Name, Description: s.Description, Source: string(s.Source), Status: string(s.Status), Path: skillPath(s)})
		}
		return writeJSON(opts.io.Out, map[string]any{"query": query, "results": hits})
	}
	if len(found) == 0 {
		fmt.Fprintf(opts.io.Out, "No skill matches '%s'.\n", termtext.EscapeLine(query))
		return nil
	}
	for _, s := range found {
		fmt.Fprintln(opts.io.Out, termtext.EscapeLine(s.Name)+" — "+repl.Preview(s.Description, 200))
	}
	return nil
}
