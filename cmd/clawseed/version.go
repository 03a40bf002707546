package main

import (
	"fmt"
	"runtime"
	"runtime/debug"

	"github.com/spf13/cobra"
)

// version is set at link time (-ldflags "-X main.version=v1.2.3"); otherwise the
// module version from the build info is used. It is the package's one var
// because the linker can set only a string variable: a constant of the build,
// never written at run time.
var version = ""

func versionString() string {
	return fmt.Sprintf("clawseed %s (%s, %s/%s)", versionNumber(), runtime.Version(), runtime.GOOS, runtime.GOARCH)
}

// versionNumber is the version alone ("v1.2.3", "devel"): the link-time
// string, else the module's, else "devel".
func versionNumber() string {
	if version != "" {
		return version
	}
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return bi.Main.Version
	}
	return "devel"
}

func newVersionCmd(io *IOStreams) *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print the version",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			_, err := fmt.Fprintln(io.Out, versionString())
			return err
		},
	}
}
