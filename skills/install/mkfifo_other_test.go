//go:build !unix

package install

import "errors"

func mkfifo(string) error { return errors.New("no FIFOs on this platform") }
