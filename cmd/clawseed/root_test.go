package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/spf13/cobra"

	"github.com/clawseed/clawseed/cmd/clawseed/internal/app"
)

// TestUnknownSubcommand walks every command group of the real root command
// (issue 20, item 19): an unknown subcommand is a usage error (exit 2) with
// a suggestion when it is close to one, not the group's help with exit 0;
// the group alone still prints its help (the root: with --help; alone it
// starts chat).
func TestUnknownSubcommand(t *testing.T) {
	var groups [][]string
	var walk func(cmd *cobra.Command, path []string)
	walk = func(cmd *cobra.Command, path []string) {
		if cmd.HasAvailableSubCommands() {
			groups = append(groups, path)
		}
		for _, sub := range cmd.Commands() {
			if sub.IsAvailableCommand() {
				walk(sub, append(append([]string(nil), path...), sub.Name()))
			}
		}
	}
	walk(newRootCmd(&IOStreams{}, &app.Process{}), nil)
	t.Logf("command groups: %v", groups)
	if len(groups) < 8 { // the root, completion, config, cron, mcp, memory, sessions, skills
		t.Fatalf("only %d command groups found: %v", len(groups), groups)
	}
	for _, path := range groups {
		name := strings.Join(append([]string{"clawseed"}, path...), " ")
		sub := firstSubcommand(t, path)
		for _, tt := range []struct {
			arg, suggest string
		}{
			{typo(sub), sub},
			{"zzzqqq", ""},
		} {
			args := append(append([]string(nil), path...), tt.arg)
			// `clawseed help GROUP TYPO` is the same mistake.
			for _, args := range [][]string{args, append([]string{"help"}, args...)} {
				code, _, errs := runCLI(args...)
				if code != exitUsage {
					t.Errorf("clawseed %v: exit %d, want %d\n%s", args, code, exitUsage, errs)
				}
				if !strings.Contains(errs, `unknown command "`+tt.arg+`" for "`+name+`"`) {
					t.Errorf("clawseed %v: stderr %q", args, errs)
				}
				if tt.suggest != "" && !strings.Contains(errs, "did you mean "+tt.suggest) {
					t.Errorf("clawseed %v: no suggestion of %s: %q", args, tt.suggest, errs)
				}
			}
		}
		alone := path
		if len(path) == 0 {
			alone = []string{"--help"} // bare clawseed starts chat
		}
		if code, out, errs := runCLI(alone...); code != exitOK || !strings.Contains(out, "Usage:") {
			t.Errorf("%s: exit %d, want its help and 0\n%s%s", name, code, out, errs)
		}
	}
}

// TestVersionFlag: --version prints what `clawseed version` prints.
func TestVersionFlag(t *testing.T) {
	code, flag, errs := runCLI("--version")
	_, cmd, _ := runCLI("version")
	if code != exitOK || flag != cmd || flag != versionString()+"\n" {
		t.Errorf("--version: exit %d, %q (stderr %q); version: %q", code, flag, errs, cmd)
	}
}

// runCLI runs the command line in-process and returns its exit code and
// output.
func runCLI(args ...string) (int, string, string) {
	var out, errw bytes.Buffer
	code := run(args, strings.NewReader(""), &out, &errw)
	return code, out.String(), errw.String()
}

// firstSubcommand names the first available subcommand of the group at path.
func firstSubcommand(t *testing.T, path []string) string {
	cmd, _, err := newRootCmd(&IOStreams{}, &app.Process{}).Find(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, sub := range cmd.Commands() {
		// ("add" has no typo of that kind.)
		if sub.IsAvailableCommand() && len(sub.Name()) >= 3 && typo(sub.Name()) != sub.Name() {
			return sub.Name()
		}
	}
	t.Fatalf("%v: no subcommand", path)
	return ""
}

// typo swaps the second and third letters of name: "list" → "lsit".
func typo(name string) string {
	b := []byte(name)
	b[1], b[2] = b[2], b[1]
	return string(b)
}
