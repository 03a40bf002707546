package main

import (
	"github.com/spf13/cobra"

	"github.com/clawseed/clawseed/cmd/clawseed/internal/app"
	"github.com/clawseed/clawseed/runtime/tools"
)

// newPDFTextCmd is the child side of the PDF extraction of pdf_read and
// web_fetch: a request line and a PDF on stdin, the extracted text as JSON
// on stdout. app starts it in a child process, which can be killed when
// the PDF library loops or allocates without bound on a hostile file.
func newPDFTextCmd(streams *IOStreams) *cobra.Command {
	return &cobra.Command{
		Use:    app.PDFTextCommand,
		Short:  "Extract the text of the PDF on stdin for pdf_read and web_fetch (internal)",
		Hidden: true,
		Args:   cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return tools.ServePDFText(streams.In, streams.Out)
		},
	}
}
