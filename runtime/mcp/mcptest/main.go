package mcptest

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/clawseed/clawseed/internal/atomicfile"
)

// Exit codes of Main.
const (
	ExitOK         = 0
	ExitUsage      = 2
	ExitCrash      = 3 // -crash
	ExitCrashAfter = 4 // -crash-after N
	exitServe      = 1
)

// hangCap bounds how long a -hang server outlives its stdin: it stands for
// a server that ignores its client, but a broken test must not leave it
// running for ever.
const hangCap = time.Minute

// CrashedText is what -crash writes to stderr before exiting.
const CrashedText = "mcptest: crashed on start"

// Main runs the server from os.Args[1:] and returns the exit code:
//
//	mcptestserver [-name N] [-tools N] [-skills good|tampered] [-crash] [-hang]
//	              [-crash-after N] [-http ADDRFILE] [-sse ADDRFILE]
//
// Without -http or -sse it serves stdio until stdin closes. With -http it
// listens on 127.0.0.1:0 with the streamable HTTP handler at /mcp, writes
// the URL (http://127.0.0.1:PORT/mcp, no newline) to ADDRFILE atomically
// and serves until SIGTERM or SIGINT (or until its parent process exits);
// -sse likewise with the (2024-11-05) SSE handler at the same path. Every request it handles is logged to
// stderr as "mcptest: METHOD [NAME]".
func Main() int {
	return run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
}

type mainFlags struct {
	opts     Options
	httpFile string
	sseFile  string
}

func parseFlags(args []string, stderr io.Writer) (mainFlags, error) {
	var f mainFlags
	fs := flag.NewFlagSet("mcptestserver", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&f.opts.Name, "name", defaultName, "server implementation name")
	fs.IntVar(&f.opts.Tools, "tools", 0, "number of extra bulky tools tool_000..")
	fs.StringVar(&f.opts.Skills, "skills", SkillsOff, "serve the two test skills: good, or tampered (pdf-tools fails its digest)")
	fs.BoolVar(&f.opts.Crash, "crash", false, "exit 3 at once, writing \""+CrashedText+"\" to stderr")
	fs.BoolVar(&f.opts.Hang, "hang", false, "never answer")
	fs.IntVar(&f.opts.CrashAfter, "crash-after", 0, "exit 4 after answering this many tools/call requests (0: never)")
	fs.StringVar(&f.httpFile, "http", "", "serve streamable HTTP; write the URL to this file")
	fs.StringVar(&f.sseFile, "sse", "", "serve SSE; write the URL to this file")
	if err := fs.Parse(args); err != nil {
		return f, err
	}
	switch {
	case fs.NArg() > 0:
		return f, fmt.Errorf("unexpected argument %q", fs.Arg(0))
	case f.httpFile != "" && f.sseFile != "":
		return f, errors.New("-http and -sse exclude each other")
	case f.opts.Tools < 0 || f.opts.CrashAfter < 0:
		return f, errors.New("-tools and -crash-after must not be negative")
	case f.opts.Skills != SkillsOff && f.opts.Skills != SkillsGood && f.opts.Skills != SkillsTampered:
		return f, fmt.Errorf("-skills must be %q or %q", SkillsGood, SkillsTampered)
	}
	return f, nil
}

func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	f, err := parseFlags(args, stderr)
	if err != nil {
		if !errors.Is(err, flag.ErrHelp) {
			fmt.Fprintf(stderr, "mcptest: %v\n", err)
		}
		return ExitUsage
	}
	if f.opts.Crash {
		fmt.Fprintln(stderr, CrashedText)
		return ExitCrash
	}
	log := &lineWriter{w: stderr}
	crash := &crasher{after: int64(f.opts.CrashAfter), done: make(chan struct{})}
	if f.httpFile != "" || f.sseFile != "" {
		return serveHTTP(f, log, crash)
	}
	if f.opts.Hang {
		return hang(stdin)
	}
	return serveStdio(f.opts, stdin, stdout, log, crash)
}

// hang reads stdin without answering, then stays hung after it closes (as
// a wedged server would) until a signal or hangCap.
func hang(stdin io.Reader) int {
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGTERM, syscall.SIGINT)
	defer signal.Stop(sig)
	_, _ = io.Copy(io.Discard, stdin)
	select {
	case <-sig:
	case <-orphaned():
	case <-time.After(hangCap):
	}
	return ExitOK
}

// orphaned is closed once the process that started this one has exited. A
// test killed by its timeout runs no cleanups, and its HTTP or hanging
// server, which no closed stdin ends, must not outlive it.
func orphaned() <-chan struct{} {
	ch := make(chan struct{})
	parent := os.Getppid()
	go func() {
		for os.Getppid() == parent {
			time.Sleep(200 * time.Millisecond)
		}
		close(ch)
	}()
	return ch
}

func serveStdio(opts Options, stdin io.Reader, stdout io.Writer, log *lineWriter, crash *crasher) int {
	s := newServer(opts, log)
	var t mcp.Transport = &mcp.IOTransport{Reader: io.NopCloser(stdin), Writer: nopWriteCloser{stdout}}
	if crash.after > 0 {
		t = &crashTransport{Transport: t, crash: crash}
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	errc := make(chan error, 1)
	go func() { errc <- s.Run(ctx, t) }()
	select {
	case <-crash.done:
		log.printf("crashed after %d tools/call", crash.after)
		return ExitCrashAfter
	case err := <-errc:
		if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, mcp.ErrConnectionClosed) {
			log.printf("serving stdio: %v", err)
			return exitServe
		}
		return ExitOK
	}
}

type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }

// serveHTTP serves the streamable (or SSE) handler on a loopback port
// until SIGTERM or SIGINT.
func serveHTTP(f mainFlags, log *lineWriter, crash *crasher) int {
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	defer stop()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		log.printf("listening: %v", err)
		return exitServe
	}
	var h http.Handler
	if f.opts.Hang {
		h = hangHandler{}
	} else {
		h = crash.wrap(Handler(newServer(f.opts, log), f.sseFile != ""))
	}
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
	serveErr := make(chan error, 1)
	go func() { serveErr <- srv.Serve(ln) }()
	addrFile := f.httpFile + f.sseFile // exactly one is set
	// Whole or not at all: a script waiting for the file never reads half
	// a URL.
	if err := atomicfile.Write(addrFile, []byte("http://"+ln.Addr().String()+"/mcp"), 0o644); err != nil {
		log.printf("%v", err)
		_ = srv.Close()
		return exitServe
	}
	code := ExitOK
	select {
	case <-ctx.Done():
	case <-orphaned():
	case <-crash.done:
		log.printf("crashed after %d tools/call", crash.after)
		code = ExitCrashAfter
	case err := <-serveErr:
		log.printf("serving HTTP: %v", err)
		return exitServe
	}
	// Close, not Shutdown: SSE and standalone streams never end by themselves.
	_ = srv.Close()
	return code
}

// Handler serves s at /mcp over the streamable HTTP transport, or over the
// 2024-11-05 SSE transport when sse is set (at the same path, so that a
// client falling back from streamable HTTP keeps its URL). For in-process
// HTTP tests: httptest.NewServer(Handler(NewServer(opts), false)).URL+"/mcp".
func Handler(s *mcp.Server, sse bool) http.Handler {
	get := func(*http.Request) *mcp.Server { return s }
	var h http.Handler
	if sse {
		h = mcp.NewSSEHandler(get, nil)
	} else {
		h = mcp.NewStreamableHTTPHandler(get, nil)
	}
	mux := http.NewServeMux()
	mux.Handle("/mcp", h)
	return mux
}

// hangHandler accepts every request and never answers it.
type hangHandler struct{}

func (hangHandler) ServeHTTP(_ http.ResponseWriter, r *http.Request) {
	_, _ = io.Copy(io.Discard, r.Body)
	<-r.Context().Done()
}
