package memory

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/clawseed/clawseed/internal/flock"
)

// TestWriteWaitsForTheFolderLock: a write waits for the folder's lock that
// another holder (another process, another Store) has, until its context
// ends; then it fails naming the lock and writes nothing.
func TestWriteWaitsForTheFolderLock(t *testing.T) {
	t.Parallel()
	const release = 40 * time.Millisecond
	tests := []struct {
		name    string
		release bool // the holder lets go after release
		timeout time.Duration
		wantErr error
	}{
		{"released while waiting", true, 10 * time.Second, nil},
		{"context ends first", false, release, context.DeadlineExceeded},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := newStore(t)
			unlock, err := flock.LockContext(context.Background(), filepath.Join(s.dir, ".lock"))
			if err != nil {
				t.Fatal(err)
			}
			if tt.release {
				time.AfterFunc(release, unlock)
			} else {
				defer unlock()
			}
			// start is taken before the deadline is set, so that a Save
			// that waits out the whole timeout never measures less.
			start := time.Now()
			ctx, cancel := context.WithTimeout(context.Background(), tt.timeout)
			defer cancel()
			_, _, err = s.Save(ctx, Memory{Name: "waited", Type: TypeUser, Description: "d", Body: "b"})
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("Save: err = %v, want %v", err, tt.wantErr)
			}
			if waited := time.Since(start); waited < release {
				t.Errorf("Save returned after %v, while the lock was held", waited)
			}
			ms, _, lerr := s.List(context.Background())
			if lerr != nil {
				t.Fatal(lerr)
			}
			if tt.wantErr != nil {
				if !strings.HasPrefix(err.Error(), "memory: waiting for lock ") {
					t.Errorf("error %q does not say what it waited for", err)
				}
				if len(ms) != 0 {
					t.Errorf("a failed Save wrote %d memories", len(ms))
				}
			} else if len(ms) != 1 {
				t.Errorf("List after Save: %d memories, want 1", len(ms))
			}
		})
	}
}
