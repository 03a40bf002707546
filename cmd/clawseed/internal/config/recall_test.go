package config

import (
	"strings"
	"testing"
)

// TestMemoryRecall covers [memory].recall: its values, the file:line of a
// bad one, and the untrusted rule: "model" sends memories to a model and
// costs a request per message, so a project file may only choose "fts".
func TestMemoryRecall(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, user, project string
		trusted             bool
		want                string
		wantErr             string // the *Error's text, with its line
		ignored             []ignoredWant
	}{
		{name: "default", want: "fts"},
		{name: "user chooses model", user: "[memory]\nrecall = \"model\"\n", want: "model"},
		{name: "user chooses fts", user: "[memory]\nrecall = \"fts\"\n", want: "fts"},
		{name: "bad value", user: "[memory]\n\nrecall = \"llm\"\n", wantErr: `config.toml:3: memory.recall: invalid value "llm" (want fts, model)`},
		{
			name: "untrusted project may not choose model", project: "[memory]\nrecall = \"model\"\n", want: "fts",
			ignored: []ignoredWant{{"memory.recall", `"model"`, `may only choose "fts" recall`, 2}},
		},
		{name: "trusted project may choose model", project: "[memory]\nrecall = \"model\"\n", trusted: true, want: "model"},
		{name: "untrusted project may choose fts", user: "[memory]\nrecall = \"model\"\n", project: "[memory]\nrecall = \"fts\"\n", want: "fts"},
		{name: "untrusted project may keep the user's model", user: "[memory]\nrecall = \"model\"\n", project: "[memory]\nrecall = \"model\"\n", want: "model"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := newSandbox(t)
			if tt.user != "" {
				writeFile(t, s.userFile(), tt.user)
			}
			project := ""
			if tt.project != "" {
				project = writeFile(t, s.projectFile(), tt.project)
			}
			opts := s.opts(nil)
			opts.Trusted = func(string) (bool, string) { return tt.trusted, "" }
			c, err := Load(opts)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(asConfigError(t, err).Error(), tt.wantErr) {
					t.Fatalf("Load = %v, want an error containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if c.Memory.Recall != tt.want {
				t.Errorf("memory.recall = %q, want %q", c.Memory.Recall, tt.want)
			}
			checkIgnored(t, c, project, tt.ignored)
		})
	}
}
