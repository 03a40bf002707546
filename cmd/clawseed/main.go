// Command clawseed is a single-binary agent runtime whose skills live in the
// system prompt. See the README for usage.
package main

import (
	"os"

	"github.com/clawseed/clawseed/internal/sandbox"
)

func main() {
	// The sandbox helper (internal/sandbox) runs before anything else: it
	// confines itself and executes a command in its place.
	if len(os.Args) > 1 && os.Args[1] == sandbox.HelperArg {
		os.Exit(sandbox.HelperMain(os.Args[1:]))
	}
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}
