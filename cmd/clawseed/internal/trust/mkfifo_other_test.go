//go:build !unix

package trust

import "errors"

func mkfifo(string) error { return errors.New("no FIFOs on this platform") }
