package eventlog_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/clawseed/clawseed/runtime/eventlog"
	"github.com/clawseed/clawseed/runtime/eventlog/eventlogtest"
)

// TestFilesConformance runs the event logs' conformance suite on the files
// log: two Files on one folder stand for two processes.
func TestFilesConformance(t *testing.T) {
	eventlogtest.Run(t, func(t *testing.T) (eventlog.Log, eventlog.Log) {
		dir := filepath.Join(t.TempDir(), "events")
		return eventlog.NewFiles(dir), eventlog.NewFiles(dir)
	})
}

// TestFilesTornLine: a line torn by a crash is skipped by readers and cut
// off by the next append, which numbers on from the last whole line.
func TestFilesTornLine(t *testing.T) {
	dir := t.TempDir()
	l := eventlog.NewFiles(dir)
	ctx := t.Context()
	for range 2 {
		if _, err := l.Append(ctx, "s", []byte(`{"a":1}`)); err != nil {
			t.Fatal(err)
		}
	}
	path := filepath.Join(dir, "s.jsonl")
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString(`{"seq":3,"time":"2026-11-22T03:19:37Z","data":{"tor`)
	f.Close()
	other := eventlog.NewFiles(dir) // another process: no cache
	if evs, err := other.After(ctx, "s", 0, 0); err != nil || len(evs) != 2 {
		t.Fatalf("After = %d events, %v; want 2", len(evs), err)
	}
	seq, err := other.Append(ctx, "s", []byte(`{"b":2}`))
	if err != nil || seq != 3 {
		t.Fatalf("Append after a torn line: %d, %v; want 3", seq, err)
	}
	evs, err := l.After(ctx, "s", 0, 0)
	if err != nil || len(evs) != 3 || string(evs[2].Data) != `{"b":2}` {
		t.Errorf("After = %v, %v", evs, err)
	}
	seq, err = l.Append(ctx, "s", []byte(`{"c":3}`)) // its cache is stale: the file changed
	if err != nil || seq != 4 {
		t.Errorf("Append by the first log: %d, %v; want 4", seq, err)
	}
}
