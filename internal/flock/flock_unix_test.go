//go:build unix

package flock

import (
	"bufio"
	"context"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// take is one way to take the lock on path; its release function undoes it.
type take struct {
	name string
	take func(path string) (release func(), err error)
}

func file(path string) (*os.File, error) { return os.Open(path) } // read-only is enough

var (
	tryLockTake     = take{"TryLock", TryLock}
	tryLockFileTake = take{"TryLockFile", func(path string) (func(), error) {
		f, err := file(path)
		if err != nil {
			return nil, err
		}
		if err := TryLockFile(f); err != nil {
			f.Close()
			return nil, err
		}
		return func() { f.Close() }, nil
	}}
	takes = []take{
		{"Lock", Lock},
		tryLockTake,
		{"LockContext", func(path string) (func(), error) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			return LockContext(ctx, path)
		}},
		{"LockContext background", func(path string) (func(), error) {
			return LockContext(context.Background(), path)
		}},
		tryLockFileTake,
	}
)

// contenders try for a held lock without waiting, each failing its own way.
var contenders = []struct {
	take
	wantErr error
}{
	{tryLockTake, ErrHeld},
	{take{"LockContext, context ended", func(path string) (func(), error) {
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		return LockContext(ctx, path)
	}}, context.Canceled},
	{tryLockFileTake, ErrHeld},
}

// TestOneLock: on Unix every function takes the same lock, so whichever
// took it, every other one finds it held until it is released, and free
// after.
func TestOneLock(t *testing.T) {
	t.Parallel()
	for _, holder := range takes {
		for _, c := range contenders {
			t.Run(holder.name+"/"+c.name, func(t *testing.T) {
				t.Parallel()
				path := filepath.Join(t.TempDir(), "x.lock")
				if err := os.WriteFile(path, nil, 0o600); err != nil { // for TryLockFile's open
					t.Fatal(err)
				}
				release, err := holder.take(path)
				if err != nil {
					t.Fatal(err)
				}
				if _, err := c.take.take(path); !errors.Is(err, c.wantErr) {
					t.Errorf("while held: err = %v, want %v", err, c.wantErr)
				}
				release()
				release2, err := c.take.take(path)
				if err != nil {
					t.Fatalf("after release: %v", err)
				}
				release2()
			})
		}
	}
}

func TestTryLockFileErrors(t *testing.T) {
	t.Parallel()
	f, err := os.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	f.Close()
	err = TryLockFile(f) // closed: Fd is -1
	var pe *os.PathError
	if !errors.As(err, &pe) || pe.Op != "flock" {
		t.Errorf("TryLockFile on a closed file: %v, want a flock *PathError", err)
	}
}

const helperEnv = "CLAWSEED_FLOCK_TEST_HELPER"

// TestHelperProcess is the other process of TestOtherProcess: it takes the
// lock named by helperEnv, says so, and holds it until it is killed.
func TestHelperProcess(t *testing.T) {
	path := os.Getenv(helperEnv)
	if path == "" {
		t.Skip("helper process only")
	}
	if _, err := Lock(path); err != nil {
		t.Fatal(err)
	}
	os.Stdout.WriteString("locked\n")
	io.Copy(io.Discard, os.Stdin) // until the parent kills this process
}

// TestOtherProcess: a lock another process holds is held for every
// function here, a waiting LockContext gets it when that process dies by
// SIGKILL (the kernel drops it), and so does a new one.
func TestOtherProcess(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "x.lock")
	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperProcess$", "-test.count=1")
	cmd.Env = append(os.Environ(), helperEnv+"="+path)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	defer stdin.Close()
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	if line, err := bufio.NewReader(stdout).ReadString('\n'); line != "locked\n" {
		t.Fatalf("helper said %q, %v", line, err)
	}

	for _, c := range contenders {
		if _, err := c.take.take(path); !errors.Is(err, c.wantErr) {
			t.Errorf("%s: err = %v, want %v", c.name, err, c.wantErr)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Millisecond)
	defer cancel()
	if _, err := LockContext(ctx, path); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("LockContext with a deadline: err = %v, want DeadlineExceeded", err)
	}

	got := make(chan error, 1)
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		unlock, err := LockContext(ctx, path)
		if err == nil {
			unlock()
		}
		got <- err
	}()
	select {
	case err := <-got:
		t.Fatalf("LockContext returned (%v) while the other process held the lock", err)
	case <-time.After(50 * time.Millisecond):
	}
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	cmd.Wait()
	if err := <-got; err != nil {
		t.Fatalf("LockContext waiting for a killed holder: %v", err)
	}
	unlock, err := TryLock(path)
	if err != nil {
		t.Fatalf("TryLock after the holder was killed: %v", err)
	}
	unlock()
}
