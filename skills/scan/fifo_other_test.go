//go:build !unix

package scan

import "errors"

func mkfifo(string) error { return errors.ErrUnsupported }
