// Command clawseed is a single-binary agent runtime whose skills live in the
// system prompt. See the README for usage.
package main

import (
	"os"

	"github.com/clawseed/clawseed/cmd/clawseed/internal/app"
)

func main() {
	proc := &app.Process{}
	proc.DeferGC(os.Getenv) // until the session is built: startgc.go
	os.Exit(runProcess(proc, os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}
