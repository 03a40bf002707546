package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/clawseed/clawseed/cmd/clawseed/internal/app"
	"github.com/clawseed/clawseed/internal/termtext"
	"github.com/clawseed/clawseed/internal/textdiff"
	"github.com/clawseed/clawseed/skills/install"
	"github.com/clawseed/clawseed/skills/lock"
)

func newSkillsUpdateCmd(opts *skillsOptions) *cobra.Command {
	o := &installOptions{skillsOptions: opts}
	cmd := &cobra.Command{
		Use:   "update [NAME]",
		Short: "Move locked skills to the newest commit of their ref, showing what changed first",
		Args:  cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			name := ""
			if len(args) == 1 {
				name = args[0]
			}
			return skillsUpdateRun(cmd.Context(), o, name)
		},
	}
	cmd.Flags().BoolVar(&o.User, "user", false, "update the skills of $CLAWSEED_HOME/skills.lock instead of the project's")
	cmd.Flags().BoolVar(&o.Yes, "yes", false, "do not ask; update despite high or critical findings or local changes")
	return cmd
}

// pendingUpdate is a skill whose new files are staged, waiting for the
// confirmation.
type pendingUpdate struct {
	entry  lock.Entry
	staged string
	// same: the files did not change, only the commit moves.
	same bool
}

func skillsUpdateRun(ctx context.Context, o *installOptions, name string) error {
	cfg, err := loadConfig(o.global, o.io.Err)
	if err != nil {
		return err
	}
	target, err := o.targetLock(cfg)
	if err != nil {
		return err
	}
	locked, _, err := target.Read()
	if err != nil {
		return err
	}
	entries := locked.Entries
	if name != "" {
		e := locked.Lookup(name)
		if e == nil {
			return &install.Error{Err: fmt.Errorf("%s is not in %s", termtext.EscapeLine(name), target.Path)}
		}
		entries = []lock.Entry{*e}
	}
	if len(entries) == 0 {
		fmt.Fprintf(o.io.Out, "No skills in %s.\n", target.Path)
		return nil
	}
	git, done := fetchGit(cfg, o.io.Err)
	defer done()
	var (
		pending []pendingUpdate
		refused []installRefused
	)
	defer func() {
		for _, p := range pending {
			if p.staged != "" {
				os.RemoveAll(p.staged) // only those not placed are left
			}
		}
	}()
	// One fetch per source and ref, however many of its skills are locked.
	trees := map[[2]string]*install.Tree{}
	defer func() {
		for _, t := range trees {
			t.Close()
		}
	}()
	fetch := func(e lock.Entry) (*install.Tree, error) {
		key := [2]string{e.Source, e.Ref}
		if t, ok := trees[key]; ok {
			return t, nil
		}
		src, err := install.ParseSource(e.Source, target.Root)
		if err != nil {
			return nil, err
		}
		t, err := install.Fetch(ctx, git, src, e.Ref)
		if err != nil {
			return nil, err
		}
		trees[key] = t
		return t, nil
	}
	w := o.io.Out
	for _, e := range entries {
		tree, err := fetch(e)
		if err != nil {
			return err
		}
		p, why, err := stageUpdate(ctx, o, tree, target, e)
		if err != nil {
			return err
		}
		if why != "" {
			refused = append(refused, installRefused{e.Name, why})
		}
		if p != nil {
			pending = append(pending, *p)
		}
	}
	if len(refused) > 0 {
		return refusedError("updated", refused)
	}
	if len(pending) == 0 {
		return nil
	}
	ok, err := confirm(o, fmt.Sprintf("Update %s in %s?", plural(len(pending), "skill"), target.Root))
	if err != nil {
		return err
	}
	if !ok {
		return &install.Error{Err: errNotConfirmed}
	}
	// A placement that fails stops there; the lock records those placed.
	var placeErr error
	err = lock.Update(ctx, target.Path, func(f *lock.File) error {
		for i := range pending {
			p := &pending[i]
			if p.same {
				f.Put(p.entry)
				fmt.Fprintf(w, "Locked %s at %s (files unchanged)\n", termtext.EscapeLine(p.entry.Name), orDash(shortCommit(p.entry.Commit)))
				continue
			}
			if placeErr = install.Place(p.staged, target.Root, p.entry.Name); placeErr != nil {
				return nil
			}
			p.staged = ""
			f.Put(p.entry)
			fmt.Fprintf(w, "Updated %s to %s (%s)\n", termtext.EscapeLine(p.entry.Name), orDash(shortCommit(p.entry.Commit)), p.entry.Hash)
		}
		return nil
	})
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "Wrote %s\n", termtext.EscapeLine(target.Path))
	return placeErr
}

// stageUpdate finds e's skill in tree (its source at its ref), stages its
// new files next to the installed ones and prints what changed and the
// findings. It returns nil when the skill is up to date, or a refusal:
// local changes or high findings without --yes.
func stageUpdate(ctx context.Context, o *installOptions, tree *install.Tree, target app.SkillLock, e lock.Entry) (*pendingUpdate, string, error) {
	w := o.io.Out
	name := termtext.EscapeLine(e.Name)
	if tree.Commit != "" && tree.Commit == e.Commit {
		fmt.Fprintf(w, "%s: up to date (%s)\n", name, shortCommit(e.Commit))
		return nil, "", nil
	}
	c, err := install.FindAt(tree, e.Path)
	if err != nil {
		return nil, "", err
	}
	if c.Name != e.Name {
		return nil, fmt.Sprintf("the skill at %s is now named %s; remove and add it again", termtext.EscapeLine(e.Path), termtext.EscapeLine(c.Name)), nil
	}
	staged, hash, err := install.Stage(&c, target.Root)
	if err != nil {
		return nil, "", err
	}
	p := &pendingUpdate{entry: lock.Entry{Name: e.Name, Source: e.Source, Ref: e.Ref, Commit: tree.Commit, Path: e.Path, Hash: hash}, staged: staged}
	if hash == e.Hash {
		// The skill's files did not change: only the lock's commit moves
		// (nothing is placed, local changes stay for verify to report).
		os.RemoveAll(staged)
		if tree.Commit == e.Commit {
			fmt.Fprintf(w, "%s: up to date\n", name)
			return nil, "", nil
		}
		fmt.Fprintf(w, "%s: files unchanged at %s\n", name, shortCommit(tree.Commit))
		p.staged, p.same = "", true
		return p, "", nil
	}
	installed := filepath.Join(target.Root, e.Name)
	fmt.Fprintf(w, "%s: %s -> %s\n", name, orDash(shortCommit(e.Commit)), orDash(shortCommit(tree.Commit)))
	newFiles, err := lock.FileHashes(staged)
	if err != nil {
		os.RemoveAll(staged)
		return nil, "", &install.Error{Err: err}
	}
	state, _, _ := app.LockedCheck(target.Root, e, nil)
	base, exact := lockedVersion(ctx, tree, e, installed, state)
	if !exact {
		fmt.Fprintf(w, "  (%s: the locked version could not be read, so the changes below include yours)\n", state)
	}
	baseFiles, err := lock.FileHashes(base)
	if err != nil {
		baseFiles = map[string]string{}
	}
	printFileChanges(w, "", baseFiles, newFiles)
	if base != installed {
		local, err := lock.FileHashes(installed)
		if err != nil {
			local = map[string]string{}
		}
		printFileChanges(w, " locally", baseFiles, local)
	}
	oldMD, _ := os.ReadFile(filepath.Join(base, "SKILL.md"))
	newMD, _ := os.ReadFile(filepath.Join(staged, "SKILL.md"))
	if d := textdiff.Unified("a/"+e.Name+"/SKILL.md", "b/"+e.Name+"/SKILL.md", string(oldMD), string(newMD), 3); d != "" {
		fmt.Fprint(w, termtext.Escape(d))
	}
	findings := scanSkill(ctx, staged, o.io.Err)
	printFindings(w, findings)
	why := ""
	if !o.Yes {
		if state == app.LockedModified {
			why = termtext.EscapeLine(installed) + " was modified since install; not overwritten (update it anyway, losing your changes, with --yes)"
		} else if bad := severe(findings); len(bad) > 0 {
			why = fmt.Sprintf("%d high or critical findings in the new version (see above); update anyway with --yes", len(bad))
		}
	}
	return p, why, nil
}

// lockedVersion is the folder holding the files the lock recorded for e,
// which an update compares the new version with, so that what changed
// upstream is shown apart from what was changed here: the installed
// folder while it matches the lock (state ok), else the skill at the
// locked commit, when the clone holds it and it hashes as the lock says.
// exact is false when neither could be had (a plain folder source, a
// history rewritten upstream): base is then the installed folder, and
// the changes shown include the local ones.
func lockedVersion(ctx context.Context, tree *install.Tree, e lock.Entry, installed string, state app.LockedState) (base string, exact bool) {
	if state == app.LockedOK {
		return installed, true
	}
	if e.Commit == "" {
		return installed, false
	}
	old, err := tree.At(ctx, e.Commit)
	if err != nil {
		return installed, false
	}
	c, err := install.FindAt(old, e.Path)
	if err != nil {
		return installed, false
	}
	if h, err := lock.TreeHash(c.Dir); err != nil || h != e.Hash {
		return installed, false
	}
	return c.Dir, true
}

// printFileChanges lists the files added, removed and changed from old to
// new, each kind labelled with suffix (" locally" for the changes made
// here since install, "" for upstream's).
func printFileChanges(w io.Writer, suffix string, old, new map[string]string) {
	added, removed, changed := lock.Changes(old, new)
	changedKind := "changed"
	if suffix != "" {
		changedKind = "modified"
	}
	for _, l := range []struct {
		k     string
		paths []string
	}{{"added", added}, {"removed", removed}, {changedKind, changed}} {
		for _, path := range l.paths {
			fmt.Fprintf(w, "  %-16s %s\n", l.k+suffix, termtext.EscapeLine(path))
		}
	}
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
