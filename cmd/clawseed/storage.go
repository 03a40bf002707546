package main

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/clawseed/clawseed/cmd/clawseed/internal/app"
	"github.com/clawseed/clawseed/cmd/clawseed/internal/config"
	"github.com/clawseed/clawseed/internal/termtext"
	"github.com/clawseed/clawseed/runtime/memory"
	"github.com/clawseed/clawseed/runtime/session"
)

// storageOptions are the flags of the `clawseed storage` subcommands.
type storageOptions struct {
	global *globalOptions
	io     *IOStreams
}

func newStorageCmd(g *globalOptions, io *IOStreams) *cobra.Command {
	opts := &storageOptions{global: g, io: io}
	cmd := &cobra.Command{
		Use:   "storage",
		Short: "Migrate the PostgreSQL schema; move sessions and memories between the files and a database",
	}
	migrate := &cobra.Command{
		Use:   "migrate",
		Short: "Create or upgrade the clawseed schema of [storage].postgres_url (safe to run from every replica)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return storageMigrateRun(cmd.Context(), opts)
		},
	}
	export := &cobra.Command{
		Use:   "export DIR",
		Short: "Copy every session and memory of the configured storage into DIR as session files and DIR/memory",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return storageCopyRun(cmd.Context(), opts, args[0], true)
		},
	}
	imp := &cobra.Command{
		Use:   "import DIR",
		Short: "Copy the session files of DIR and the memories of DIR/memory into the configured storage (those it holds are skipped)",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return storageCopyRun(cmd.Context(), opts, args[0], false)
		},
	}
	cmd.AddCommand(migrate, export, imp)
	return cmd
}

// storageConfig loads the configuration the storage commands read.
func storageConfig(opts *storageOptions) (*config.Config, error) {
	cfg, err := loadConfig(opts.global, opts.io.Err)
	if err != nil {
		return nil, err
	}
	if err := cfg.Use("sessions", "memory", "storage"); err != nil {
		return nil, err
	}
	return cfg, nil
}

func storageMigrateRun(ctx context.Context, opts *storageOptions) error {
	cfg, err := storageConfig(opts)
	if err != nil {
		return err
	}
	if cfg.Storage.Backend != config.StoragePostgres {
		fmt.Fprintf(opts.io.Out, "Nothing to migrate: [storage].backend is %q.\n", cfg.Storage.Backend)
		return nil
	}
	applied, err := app.MigrateStorage(ctx, cfg, opts.global.proc)
	if err != nil {
		return err
	}
	if len(applied) == 0 {
		fmt.Fprintln(opts.io.Out, "The schema is up to date.")
		return nil
	}
	fmt.Fprintf(opts.io.Out, "Applied %s.\n", strings.Join(applied, ", "))
	return nil
}

// storageCopyRun copies every session from the configured store to the
// session files of dir (export), or from them to the configured store
// (import): each whole, records byte for byte, with its summary and its
// update time; then every memory, of every folder, between the configured
// store and the memory files of dir/memory ([storageCopyMemories]). A
// session or memory the destination holds is skipped; one that cannot be
// read is reported, and the command then fails.
func storageCopyRun(ctx context.Context, opts *storageOptions, dir string, export bool) error {
	cfg, err := storageConfig(opts)
	if err != nil {
		return err
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return usageError(err)
	}
	configured, err := app.OpenSessionStore(ctx, cfg, opts.global.proc)
	if err != nil {
		return err
	}
	files := session.Files{Store: &session.Store{Dir: abs}}
	if cfg.Storage.Backend != config.StoragePostgres && filepath.Clean(cfg.SessionsDir()) == abs {
		return usageError(fmt.Errorf("%s is the sessions folder itself", dir))
	}
	if cfg.Storage.Backend != config.StoragePostgres && filepath.Clean(cfg.MemoryDir()) == filepath.Join(abs, "memory") {
		return usageError(fmt.Errorf("%s is the memory folder itself", filepath.Join(dir, "memory")))
	}
	var from, to app.SessionStore = configured, files
	if !export {
		from, to = files, configured
	}
	infos, err := from.List(ctx)
	if err != nil {
		return err
	}
	copied, skipped, failed := 0, 0, 0
	for _, in := range infos {
		if err := ctx.Err(); err != nil {
			return err
		}
		if in.Err != "" {
			failed++
			fmt.Fprintf(opts.io.Err, "✗ %s: %s\n", termtext.EscapeLine(in.ID), termtext.Escape(in.Err))
			continue
		}
		st, err := from.Export(ctx, in.ID)
		if err == nil {
			err = to.Import(ctx, st)
		}
		switch {
		case errors.Is(err, session.ErrExists):
			skipped++
		case err != nil:
			failed++
			fmt.Fprintf(opts.io.Err, "✗ %s: %s\n", termtext.EscapeLine(in.ID), termtext.Escape(err.Error()))
		default:
			copied++
		}
	}
	verb, where := "Exported", "to "+abs
	if !export {
		verb, where = "Imported", "into "+to.Location()
	}
	fmt.Fprintf(opts.io.Out, "%s %s %s", verb, plural(copied, "session"), termtext.EscapeLine(where))
	if skipped > 0 {
		fmt.Fprintf(opts.io.Out, " (%d already there, skipped)", skipped)
	}
	fmt.Fprintln(opts.io.Out, ".")
	memFailed, err := storageCopyMemories(ctx, opts, cfg, filepath.Join(abs, "memory"), export)
	if err != nil {
		return err
	}
	switch {
	case failed > 0 && memFailed > 0:
		return fmt.Errorf("%s and %s could not be copied", plural(failed, "session"), plural(memFailed, "memory file"))
	case failed > 0:
		return fmt.Errorf("%s could not be copied", plural(failed, "session"))
	case memFailed > 0:
		return fmt.Errorf("%s could not be copied", plural(memFailed, "memory file"))
	}
	return nil
}

// storageCopyMemories copies every memory from the configured store to the
// memory files of dir (export), or from them to the configured store
// (import), each at its folder and file name with its times, and returns
// the number of memory files that could not be read (each reported).
func storageCopyMemories(ctx context.Context, opts *storageOptions, cfg *config.Config, dir string, export bool) (int, error) {
	configured, err := app.OpenMemoryRows(ctx, cfg, opts.global.proc)
	if err != nil {
		return 0, err
	}
	var from, to app.MemoryRows = configured, memory.Files{Dir: dir}
	if !export {
		from, to = to, configured
	}
	rows, diags, err := from.All(ctx)
	if err != nil {
		return 0, err
	}
	for _, d := range diags {
		fmt.Fprintf(opts.io.Err, "✗ %s: %s\n", termtext.EscapeLine(d.Path), termtext.Escape(d.Message))
	}
	copied, skipped, err := to.Import(ctx, rows)
	if err != nil {
		return 0, err
	}
	verb, where := "Exported", "to "+dir
	if !export {
		verb, where = "Imported", "into "+to.Location()
	}
	fmt.Fprintf(opts.io.Out, "%s %s %s", verb, plural(copied, "memory"), termtext.EscapeLine(where))
	if skipped > 0 {
		fmt.Fprintf(opts.io.Out, " (%d already there, skipped)", skipped)
	}
	fmt.Fprintln(opts.io.Out, ".")
	return len(diags), nil
}
