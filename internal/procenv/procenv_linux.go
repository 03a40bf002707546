//go:build linux

package procenv

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

func harden(isSecret func(name, value string) bool) error {
	err := hideSecrets(isSecret)
	if e := unix.Prctl(unix.PR_SET_DUMPABLE, 0, 0, 0, 0); e != nil {
		err = errors.Join(err, fmt.Errorf("cannot make the process non-dumpable: %w", e))
	}
	return err
}

// A span is the value of one variable in the environment block, as an
// offset from env_start and a length.
type span struct {
	name     string
	off, len int
}

// hideSecrets overwrites the secret values in the environment block with
// mask. It goes through /proc/self/mem at addresses taken from
// /proc/self/stat, so it can only ever write inside the block the kernel
// reports, and needs no unsafe pointer arithmetic.
func hideSecrets(isSecret func(name, value string) bool) error {
	if !anySecret(os.Environ(), isSecret) {
		return nil // nothing to hide: do not depend on /proc at all
	}
	start, end, err := envBounds()
	if err != nil {
		return fmt.Errorf("cannot hide secret environment variables from /proc/%d/environ: %w", os.Getpid(), err)
	}
	mem, err := os.OpenFile("/proc/self/mem", os.O_RDWR, 0)
	if err != nil {
		return fmt.Errorf("cannot hide secret environment variables from /proc/%d/environ: %w", os.Getpid(), err)
	}
	defer mem.Close()
	block := make([]byte, end-start)
	if _, err := mem.ReadAt(block, start); err != nil {
		return fmt.Errorf("cannot hide secret environment variables: reading the environment block: %w", err)
	}
	spans := secretSpans(block, isSecret)
	keepHeapCopies(spans)
	var failed []string
	for _, s := range spans {
		if _, err := mem.WriteAt(bytes.Repeat([]byte{mask}, s.len), start+int64(s.off)); err != nil {
			failed = append(failed, s.name)
		}
	}
	if len(failed) > 0 {
		return fmt.Errorf("cannot hide %s from /proc/%d/environ: writing the environment block failed", strings.Join(failed, ", "), os.Getpid())
	}
	return nil
}

func anySecret(environ []string, isSecret func(name, value string) bool) bool {
	for _, kv := range environ {
		if name, v, ok := strings.Cut(kv, "="); ok && v != "" && isSecret(name, v) {
			return true
		}
	}
	return false
}

// keepHeapCopies sets every variable about to be masked again with a fresh
// copy of its value. Go's own environment is already a heap copy, but when
// cgo is linked libc's environ still points into the block; os.Setenv
// updates both, so neither sees the mask.
func keepHeapCopies(spans []span) {
	for _, s := range spans {
		if v, ok := os.LookupEnv(s.name); ok {
			_ = os.Setenv(s.name, strings.Clone(v)) // the name came from a valid entry
		}
	}
}

// secretSpans returns the non-empty values of the block's NAME=VALUE entries
// whose names are secret.
func secretSpans(block []byte, isSecret func(name, value string) bool) []span {
	var spans []span
	off := 0
	for off < len(block) {
		entry := block[off:]
		if i := bytes.IndexByte(entry, 0); i >= 0 {
			entry = entry[:i]
		}
		if eq := bytes.IndexByte(entry, '='); eq > 0 && eq+1 < len(entry) && isSecret(string(entry[:eq]), string(entry[eq+1:])) {
			spans = append(spans, span{name: string(entry[:eq]), off: off + eq + 1, len: len(entry) - eq - 1})
		}
		off += len(entry) + 1
	}
	return spans
}

// envBounds returns env_start and env_end, fields 50 and 51 of
// /proc/self/stat (Linux 3.5 and later).
func envBounds() (start, end int64, err error) {
	b, err := os.ReadFile("/proc/self/stat")
	if err != nil {
		return 0, 0, err
	}
	return parseEnvBounds(string(b))
}

func parseEnvBounds(stat string) (start, end int64, err error) {
	// Field 2, the command name in parentheses, may itself contain spaces
	// and parentheses: the fields that follow start after the last ')'.
	i := strings.LastIndexByte(stat, ')')
	if i < 0 {
		return 0, 0, errors.New("unexpected /proc/self/stat format")
	}
	fields := strings.Fields(stat[i+1:]) // fields[0] is field 3
	const envStart, envEnd = 50 - 3, 51 - 3
	if len(fields) <= envEnd {
		return 0, 0, errors.New("/proc/self/stat has no env_start and env_end fields (Linux before 3.5)")
	}
	start, err1 := strconv.ParseInt(fields[envStart], 10, 64)
	end, err2 := strconv.ParseInt(fields[envEnd], 10, 64)
	if err1 != nil || err2 != nil || start <= 0 || end < start {
		return 0, 0, fmt.Errorf("/proc/self/stat reports an unusable environment block [%s, %s)", fields[envStart], fields[envEnd])
	}
	return start, end, nil
}
