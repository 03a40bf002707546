package main

import (
	"context"
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/clawseed/clawseed/cmd/clawseed/internal/app"
	"github.com/clawseed/clawseed/cmd/clawseed/internal/config"
	"github.com/clawseed/clawseed/internal/termtext"
	"github.com/clawseed/clawseed/runtime/agent"
	"github.com/clawseed/clawseed/runtime/instructions"
)

// configShowInstructions lists the project instruction files a session
// reads (`config show --instructions`): each file with its source, why it
// was read, its size and what the prompt keeps of it, then the files found
// and not used, with the reason. Paths and reasons come from the file
// system and are escaped.
func configShowInstructions(ctx context.Context, cfg *config.Config, w io.Writer) error {
	set := app.Instructions(ctx, cfg)
	if set == nil {
		_, err := fmt.Fprintln(w, "Project instructions are off ([instructions].enabled = false).")
		return err
	}
	esc := termtext.EscapeLine
	section := set.Section()
	files := "files"
	if len(set.Files) == 1 {
		files = "file"
	}
	fmt.Fprintf(w, "Project instructions: %d %s, a section of %d bytes (~%d tokens); caps %d bytes a file, %d in all.\n",
		len(set.Files), files, len(section), agent.EstimateTokens(section), set.MaxFileBytes, set.MaxTotalBytes)
	if len(set.Files) > 0 {
		tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "SOURCE\tFILE\tBYTES\tIN PROMPT\tWHY")
		for _, f := range set.Files {
			kept := "all"
			if f.Cut() {
				kept = fmt.Sprint(f.Kept)
			}
			fmt.Fprintf(tw, "%s\t%s\t%d\t%s\t%s\n", f.Source, esc(f.Shown), f.Bytes, kept, esc(instructionWhy(f)))
		}
		if err := tw.Flush(); err != nil {
			return err
		}
	}
	if len(set.Refused) > 0 {
		fmt.Fprintln(w, "Not used:")
		tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
		for _, r := range set.Refused {
			why := r.Reason
			if r.From != "" {
				why = "imported by " + r.From + ": " + why
			}
			fmt.Fprintf(tw, "  %s\t%s\t%s\n", r.Source, esc(r.Shown), esc(why))
		}
		if err := tw.Flush(); err != nil {
			return err
		}
	}
	for _, n := range set.Notes {
		fmt.Fprintln(w, "Note: "+esc(n))
	}
	return nil
}

// instructionWhy says why a file is in the section, and what was cut.
func instructionWhy(f instructions.File) string {
	var why string
	switch f.Source {
	case instructions.SourceUser:
		why = "the user's own"
	case instructions.SourceParent:
		why = "a folder above the workspace, in the repository"
	case instructions.SourceProject:
		why = "the workspace"
	case instructions.SourceImport:
		why = "imported by " + f.From
	case instructions.SourceRule:
		why = "no paths: always"
		if f.From != "" {
			why = "paths " + f.From + " match a file"
		}
	}
	switch {
	case f.Text == "":
		why += "; empty"
	case f.Kept == 0:
		why += "; left out: over max_total_bytes"
	case f.Cut():
		why += "; cut (max_file_bytes or max_total_bytes)"
	}
	return why
}
