package providertest_test

import (
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/rogpeppe/go-internal/txtar"

	"github.com/clawseed/clawseed/providers/providertest"
)

// TestImagesOnEveryWire reads the request each adapter's images golden
// case sends (the same history on every wire) and checks the transcript
// shows each image with its declared type and size: what scripts grep.
// The golden data are only the formats' magic bytes, so no size is read;
// the WebP one is four bytes of nothing, which Check reports.
func TestImagesOnEveryWire(t *testing.T) {
	tests := []struct {
		wire providertest.Wire
		file string
		want string
	}{
		{providertest.WireOpenAI, "../openai/testdata/images.txtar", `user: What is this?
user: [image image/png 0x0 8 bytes]
call call_1 file_read {"path":"photo.jpg"}
tool call_1: photo.jpg: image/jpeg, 3x2.
user: Compare them.
user: [image image/jpeg 0x0 3 bytes]
assistant: Done.
user: [image image/webp 0x0 4 bytes]
`},
		{providertest.WireResponses, "../openai/testdata/responses/images.txtar", `user: What is this?
user: [image image/png 0x0 8 bytes]
call call_1 file_read {"path":"photo.jpg"}
tool call_1: photo.jpg: image/jpeg, 3x2.
tool call_1: [image image/jpeg 0x0 3 bytes]
user: Compare them.
assistant: Done.
user: [image image/webp 0x0 4 bytes]
`},
		{providertest.WireAnthropic, "../anthropic/testdata/images.txtar", `user: What is this?
user: [image image/png 0x0 8 bytes]
call call_1 file_read {"path":"photo.jpg"}
tool call_1: photo.jpg: image/jpeg, 3x2.
tool call_1: [image image/jpeg 0x0 3 bytes]
user: Compare them.
assistant: Done.
user: [image image/webp 0x0 4 bytes]
`},
	}
	for _, tt := range tests {
		t.Run(string(tt.wire), func(t *testing.T) {
			data, err := os.ReadFile(tt.file)
			if err != nil {
				t.Fatal(err)
			}
			var body []byte
			for _, f := range txtar.Parse(data).Files {
				if f.Name == "request.json" {
					body = f.Data
				}
			}
			v, err := providertest.ReadRequest(tt.wire, body)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, v.Transcript()); diff != "" {
				t.Errorf("transcript (-want +got):\n%s", diff)
			}
			err = v.Check()
			if err == nil || !strings.Contains(err.Error(), `image declared image/webp holds ""`) {
				t.Errorf("Check = %v, want the WebP that is none refused", err)
			}
		})
	}
}
