// Command clawseed is a single-binary agent runtime whose skills live in the
// system prompt. See the README for usage.
package main

import "os"

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}
