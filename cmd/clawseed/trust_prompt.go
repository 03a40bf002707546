package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/clawseed/clawseed/cmd/clawseed/internal/app"
	"github.com/clawseed/clawseed/cmd/clawseed/internal/config"
	"github.com/clawseed/clawseed/cmd/clawseed/internal/repl"
	"github.com/clawseed/clawseed/internal/termtext"
	"github.com/clawseed/clawseed/skills"
)

// The trust decision itself is app's (app.WorkspaceTrusted, §9.1); chat
// asks the question once per workspace.

// askTrust shows what the workspace asks for and asks once whether to trust
// it; a yes is recorded in the trust store. The question is asked once per
// workspace: a no is remembered (a marker in $CLAWSEED_HOME/cache), and
// /trust changes it later. No answer (end of input, Ctrl-C) is not a no:
// the workspace stays untrusted for this run and is asked about again.
// A workspace the user trusted whose project files changed since is asked
// about again, whatever an earlier no said, and the question says which
// changed; a no to that is remembered for that change.
func askTrust(ctx context.Context, cfg *config.Config, cat *skills.Catalog, in repl.LineReader, out io.Writer) (bool, error) {
	asks := app.TrustAsks(cfg, cat)
	if cfg.Trusted || len(asks) == 0 || cfg.Home == "" {
		return false, nil
	}
	marker := app.TrustAnswerFile(cfg.Home, cfg.Workspace)
	answered := cfg.Workspace + "\n"
	if cfg.TrustChanged != "" {
		answered += cfg.TrustChanged + "\n"
	}
	if data, err := os.ReadFile(marker); err == nil && string(data) == answered {
		return false, nil
	}
	width := outputWidth(out)
	fmt.Fprint(out, app.TrustQuestion(cfg, asks, width))
	line, err := in.ReadLine(ctx, app.TrustPrompt)
	if err != nil {
		if ctx.Err() != nil {
			return false, ctx.Err()
		}
		// End of input or Ctrl-C is no answer: untrusted for this run
		// only, nothing remembered, asked again at the next start.
		fmt.Fprintln(out)
		printWrapped(out, "Not trusted for this run (no answer); the question comes back at the next start.", width)
		return false, nil
	}
	if ans := strings.ToLower(strings.TrimSpace(line)); ans != "y" && ans != "yes" {
		if err := os.MkdirAll(filepath.Dir(marker), 0o700); err == nil {
			os.WriteFile(marker, []byte(answered), 0o600)
		}
		printWrapped(out, "Not trusted: the project's config may only lower privileges, its skills run no commands unasked, and their allowed-tools pre-approve nothing. /trust changes this.", width)
		return false, nil
	}
	if err := app.GrantTrust(cfg); err != nil {
		return false, err
	}
	return true, nil
}

// printWrapped prints text word-wrapped to width columns (termtext.Wrap).
func printWrapped(w io.Writer, text string, width int) {
	for _, l := range termtext.Wrap(text, width, "", "") {
		fmt.Fprintln(w, l)
	}
}
