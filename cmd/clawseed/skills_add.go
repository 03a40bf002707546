package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/clawseed/clawseed/cmd/clawseed/internal/app"
	"github.com/clawseed/clawseed/internal/termtext"
	"github.com/clawseed/clawseed/skills/install"
	"github.com/clawseed/clawseed/skills/lock"
	"github.com/clawseed/clawseed/skills/scan"
)

// skillsAddOptions are the flags of `skills add`.
type skillsAddOptions struct {
	installOptions
	Path   string
	Ref    string
	Skills []string
}

func newSkillsAddCmd(opts *skillsOptions) *cobra.Command {
	o := &skillsAddOptions{installOptions: installOptions{skillsOptions: opts}}
	cmd := &cobra.Command{
		Use:   "add SOURCE",
		Short: "Install skills from a git URL, owner/repo, a local folder or repository, pinned in skills.lock",
		Long: "Install skills from SOURCE — a git URL, GitHub's owner/repo, a local folder or a local git repository —\n" +
			"into .clawseed/skills/ (or $CLAWSEED_HOME/skills/ with --user), recording source, commit and a hash of\n" +
			"their files in skills.lock. Every skill found is listed with what it asks for and the scan's findings first.",
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return skillsAddRun(cmd.Context(), o, args[0])
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.Path, "path", "", "look for skills only in this folder of the source")
	f.StringVar(&o.Ref, "ref", "", "branch, tag or commit to install (default: the default branch)")
	f.BoolVar(&o.User, "user", false, "install into $CLAWSEED_HOME/skills (skills.lock there) instead of the project")
	f.BoolVar(&o.Yes, "yes", false, "do not ask; install despite high or critical findings; replace an existing folder")
	f.StringSliceVar(&o.Skills, "skill", nil, "install only this skill (repeatable; default: every skill found)")
	return cmd
}

func skillsAddRun(ctx context.Context, o *skillsAddOptions, spec string) error {
	cfg, err := loadConfig(o.global, o.io.Err)
	if err != nil {
		return err
	}
	target, err := o.targetLock(cfg)
	if err != nil {
		return err
	}
	src, err := install.ParseSource(spec, cwd())
	if err != nil {
		return err
	}
	git, done := fetchGit(cfg, o.io.Err)
	defer done()
	tree, err := install.Fetch(ctx, git, src, o.Ref)
	if err != nil {
		return err
	}
	defer tree.Close()
	found, err := install.Find(ctx, tree, strings.Trim(o.Path, "/"))
	if err != nil {
		return err
	}
	if len(found) == 0 {
		return &install.Error{Err: fmt.Errorf("no skill (a folder with SKILL.md) in %s", termtext.EscapeLine(src.Spec))}
	}
	chosen, err := chooseSkills(found, o.Skills)
	if err != nil {
		return err
	}
	locked, _, err := target.Read()
	if err != nil {
		return err
	}
	w := o.io.Out
	from := src.Spec
	if tree.Commit != "" {
		from += " @ " + shortCommit(tree.Commit)
	}
	fmt.Fprintf(w, "Found %s in %s:\n\n", plural(len(found), "skill"), termtext.EscapeLine(from))
	var refused []installRefused
	for i := range found {
		c := &found[i]
		if !slices.Contains(chosen, c) {
			fmt.Fprintf(w, "%s (%s): not selected\n\n", termtext.EscapeLine(c.Name), termtext.EscapeLine(c.Path))
			continue
		}
		findings := scanSkill(ctx, c.Dir, o.io.Err)
		printAsks(w, c, findings)
		fmt.Fprintln(w)
		if why := addRefusal(o, target, locked, src, chosen, c, findings); why != "" {
			refused = append(refused, installRefused{c.Name, why})
		}
	}
	if len(refused) > 0 {
		return withInstallableHint(refusedError("installed", refused), chosen, refused)
	}
	ok, err := confirm(&o.installOptions, fmt.Sprintf("Install %s into %s?", plural(len(chosen), "skill"), target.Root))
	if err != nil {
		return err
	}
	if !ok {
		return &install.Error{Err: errNotConfirmed}
	}
	// Every copy is made before anything is placed: a copy that fails
	// leaves the installed skills as they were.
	staged := make([]string, len(chosen))
	hashes := make([]string, len(chosen))
	defer func() {
		for _, dir := range staged {
			if dir != "" {
				os.RemoveAll(dir)
			}
		}
	}()
	for i, c := range chosen {
		if staged[i], hashes[i], err = install.Stage(c, target.Root); err != nil {
			return err
		}
	}
	// A placement that fails stops there; the lock records those placed.
	var placeErr error
	err = lock.Update(ctx, target.Path, func(f *lock.File) error {
		for i, c := range chosen {
			if placeErr = install.Place(staged[i], target.Root, c.Name); placeErr != nil {
				return nil
			}
			staged[i] = ""
			f.Put(lock.Entry{Name: c.Name, Source: src.Spec, Ref: o.Ref, Commit: tree.Commit, Path: c.Path, Hash: hashes[i]})
			fmt.Fprintf(w, "Installed %s in %s (%s)\n", termtext.EscapeLine(c.Name), termtext.EscapeLine(filepath.Join(target.Root, c.Name)), hashes[i])
		}
		return nil
	})
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "Wrote %s\n", termtext.EscapeLine(target.Path))
	return placeErr
}

// chooseSkills returns the candidates named by --skill, or all of them.
func chooseSkills(found []install.Candidate, names []string) ([]*install.Candidate, error) {
	var out []*install.Candidate
	if len(names) == 0 {
		for i := range found {
			out = append(out, &found[i])
		}
		return out, nil
	}
	for _, n := range names {
		i := slices.IndexFunc(found, func(c install.Candidate) bool { return c.Name == n })
		if i < 0 {
			var have []string
			for _, c := range found {
				have = append(have, termtext.EscapeLine(c.Name))
			}
			return nil, usageError(fmt.Errorf("--skill %s: no such skill in the source (found: %s)", termtext.EscapeLine(n), strings.Join(have, ", ")))
		}
		if !slices.Contains(out, &found[i]) {
			out = append(out, &found[i])
		}
	}
	return out, nil
}

// addRefusal says why c may not be installed now ("" when it may): it
// cannot be at all, another chosen skill has its name, it has a high or
// critical finding, or the folder of its name exists and is not this
// source's locked copy, or is but was modified since install — the last
// two unless --yes.
func addRefusal(o *skillsAddOptions, target app.SkillLock, locked *lock.File, src install.Source, chosen []*install.Candidate, c *install.Candidate, findings []scan.Finding) string {
	if c.Problem != "" {
		return c.Problem
	}
	for _, other := range chosen {
		if other != c && other.Name == c.Name {
			return fmt.Sprintf("two skills of this name in the source (%s and %s); choose with --path", termtext.EscapeLine(c.Path), termtext.EscapeLine(other.Path))
		}
	}
	if o.Yes {
		return ""
	}
	if bad := severe(findings); len(bad) > 0 {
		return fmt.Sprintf("%d high or critical findings (see above); install anyway with --yes", len(bad))
	}
	dir := filepath.Join(target.Root, c.Name)
	if _, err := os.Lstat(dir); err != nil {
		return ""
	}
	e := locked.Lookup(c.Name)
	if e == nil || e.Source != src.Spec || e.Path != c.Path {
		return termtext.EscapeLine(dir) + " exists and was not installed from this source; replace it with --yes"
	}
	if state, _, _ := app.LockedCheck(target.Root, *e, nil); state == app.LockedModified {
		return termtext.EscapeLine(dir) + " was modified since install; replace your changes with --yes"
	}
	return ""
}

// withInstallableHint adds to a refusal the --skill flags that would install
// the chosen skills nobody objected to: one refused skill stops the whole
// add (nothing is installed half-way), so the user is told how to take the
// rest.
func withInstallableHint(err error, chosen []*install.Candidate, refused []installRefused) error {
	var flags []string
	for _, c := range chosen {
		if !slices.ContainsFunc(refused, func(r installRefused) bool { return r.name == c.Name }) {
			flags = append(flags, "--skill "+termtext.EscapeLine(c.Name))
		}
	}
	if len(flags) == 0 {
		return err
	}
	return &install.Error{Err: fmt.Errorf("%w\ninstall the others with %s", errors.Unwrap(err), strings.Join(flags, " "))}
}
