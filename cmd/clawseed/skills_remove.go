package main

import (
	"context"
	"fmt"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/clawseed/clawseed/internal/termtext"
	"github.com/clawseed/clawseed/skills/install"
	"github.com/clawseed/clawseed/skills/lock"
)

func newSkillsRemoveCmd(opts *skillsOptions) *cobra.Command {
	o := &installOptions{skillsOptions: opts}
	cmd := &cobra.Command{
		Use:   "remove NAME",
		Short: "Delete an installed skill's folder and its skills.lock entry",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return skillsRemoveRun(cmd.Context(), o, args[0])
		},
	}
	cmd.Flags().BoolVar(&o.User, "user", false, "remove from $CLAWSEED_HOME/skills (and its skills.lock) instead of the project")
	return cmd
}

// skillsRemoveRun removes only what the lock names: the folder of that
// name inside the skills root, never a skill `skills add` did not install.
func skillsRemoveRun(ctx context.Context, o *installOptions, name string) error {
	cfg, err := loadConfig(o.global, o.io.Err)
	if err != nil {
		return err
	}
	target, err := o.targetLock(cfg)
	if err != nil {
		return err
	}
	dir := filepath.Join(target.Root, name)
	err = lock.Update(ctx, target.Path, func(f *lock.File) error {
		if f.Lookup(name) == nil {
			return &install.Error{Err: fmt.Errorf("%s is not in %s: remove only deletes skills installed with skills add", termtext.EscapeLine(name), target.Path)}
		}
		if err := install.Remove(target.Root, name); err != nil {
			return err
		}
		f.Remove(name)
		return nil
	})
	if err != nil {
		return err
	}
	fmt.Fprintf(o.io.Out, "Removed %s and its entry in %s\n", termtext.EscapeLine(dir), target.Path)
	return nil
}
