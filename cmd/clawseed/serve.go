package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/clawseed/clawseed/cmd/clawseed/internal/app"
	"github.com/clawseed/clawseed/cmd/clawseed/internal/config"
	apiserver "github.com/clawseed/clawseed/cmd/clawseed/internal/server"
	"github.com/clawseed/clawseed/cmd/clawseed/internal/streamjson"
	"github.com/clawseed/clawseed/providers"
)

// serveOptions are the flags of `clawseed serve`.
type serveOptions struct {
	global  *globalOptions
	io      *IOStreams
	Listen  string
	TLSCert string
	TLSKey  string
	Migrate bool
}

// serveGrace is how long running turns get to finish when the server is
// asked to stop (SIGINT, SIGTERM) before they are cancelled.
const serveGrace = 30 * time.Second

func newServeCmd(g *globalOptions, io *IOStreams) *cobra.Command {
	opts := &serveOptions{global: g, io: io}
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Serve the agent over HTTP + SSE, with its web page (GET /)",
		Long: "Serve sessions over HTTP: create one in a trusted workspace of this machine, send messages and\n" +
			"read the turn's events as server-sent events (the objects `run --output stream-json` prints),\n" +
			"answer approval requests. The API is described at /openapi.json; [serve] in config.toml\n" +
			"sets its limits and bearer tokens. Without tokens it listens only on a loopback address.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return serveRun(cmd.Context(), opts)
		},
	}
	f := cmd.Flags()
	f.StringVar(&opts.Listen, "listen", "", "address to listen on, host:port (default [serve].listen, 127.0.0.1:8787)")
	f.StringVar(&opts.TLSCert, "tls-cert", "", "serve HTTPS with this certificate file (PEM; with --tls-key)")
	f.StringVar(&opts.TLSKey, "tls-key", "", "the certificate's private key file (PEM)")
	f.BoolVar(&opts.Migrate, "migrate", false, "bring the postgres backend's schema up to date first (as `clawseed storage migrate`)")
	return cmd
}

func serveRun(ctx context.Context, opts *serveOptions) error {
	if (opts.TLSCert == "") != (opts.TLSKey == "") {
		return usageError(errors.New("--tls-cert and --tls-key go together"))
	}
	if opts.Listen != "" {
		if _, _, err := config.SplitListen(opts.Listen); err != nil {
			return usageError(fmt.Errorf("--listen: %w", err))
		}
	}
	cfg, err := loadConfig(opts.global, opts.io.Err)
	if err != nil {
		return err
	}
	log := newServeLogger(opts.global, opts.io.Err)
	if opts.Migrate {
		applied, err := app.MigrateStorage(ctx, cfg, opts.global.proc)
		if err != nil {
			return fmt.Errorf("migrate: %w", err)
		}
		if len(applied) > 0 {
			log.Info("Storage migrated", "applied", strings.Join(applied, ", "))
		}
	}
	srv, err := apiserver.New(apiserver.Options{
		Config: cfg,
		Load: func(ctx context.Context, ws string) (*config.Config, error) {
			g := *opts.global
			g.Workspace = ws
			return loadConfig(&g, logWriter{log})
		},
		Init: func(s *app.Session) streamjson.Init { return streamInit(s) },
		Outcome: func(s *app.Session, status, final string, iterations int, usage []providers.ModelUsage, err error) streamjson.Outcome {
			return streamOutcome(s, status, final, iterations, usage, err)
		},
		Process: opts.global.proc,
		Log:     log,
	})
	if err != nil {
		if errors.As(err, new(*app.StoreError)) {
			return err // the database: unreachable, or not migrated
		}
		return usageError(err)
	}
	ln, err := srv.Listen(ctx, opts.Listen)
	if err != nil {
		srv.Close(ctx)
		if errors.Is(err, apiserver.ErrNeedTokens) {
			return usageError(err)
		}
		return err
	}
	// The scheduled jobs: on postgres each due time runs once across the
	// replicas (River). They stop before the process closes its database.
	stopJobs, err := app.StartJobs(ctx, cfg, opts.global.proc, log)
	if err != nil {
		ln.Close()
		srv.Close(ctx)
		return err
	}
	defer stopJobs()
	tls := opts.TLSCert != ""
	fmt.Fprintf(opts.io.Out, "clawseed: serving on %s (the web page at /, the API described at /openapi.json)\n", apiserver.URL(ln, tls))
	flushOut(opts.io.Out)

	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	hs := srv.HTTPServer()
	served := make(chan error, 1)
	go func() {
		if tls {
			served <- hs.ServeTLS(ln, opts.TLSCert, opts.TLSKey)
		} else {
			served <- hs.Serve(ln)
		}
	}()
	var serveErr error
	select {
	case serveErr = <-served:
	case <-ctx.Done():
	}
	log.Info("Shutting down")
	grace, cancel := context.WithTimeout(context.Background(), serveGrace)
	defer cancel()
	shut := make(chan error, 1)
	go func() { shut <- hs.Shutdown(grace) }()
	closeErr := srv.Close(grace)
	if err := <-shut; err != nil {
		log.Warn("Connections cut at shutdown", "error", err)
	}
	if closeErr != nil {
		log.Warn("Shutdown", "error", closeErr)
	}
	if serveErr != nil && !errors.Is(serveErr, http.ErrServerClosed) {
		return fmt.Errorf("serve: %w", serveErr)
	}
	return nil
}

// newServeLogger is the server's log on stderr: requests that fail,
// sessions opened and closed, notices; debug lines with -v.
func newServeLogger(g *globalOptions, stderr interface{ Write([]byte) (int, error) }) *slog.Logger {
	level := slog.LevelInfo
	if g.Verbose {
		level = slog.LevelDebug
	}
	return slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: level}))
}

// logWriter turns the warning lines of loading a session's configuration
// into log lines.
type logWriter struct{ log *slog.Logger }

func (w logWriter) Write(p []byte) (int, error) {
	w.log.Warn("Configuration", "text", string(p))
	return len(p), nil
}

// flushOut flushes the escaping writer of stdout, so that the address
// line shows before the server runs.
func flushOut(w interface{ Write([]byte) (int, error) }) {
	if f, ok := w.(interface{ Flush() error }); ok {
		f.Flush()
	}
}
