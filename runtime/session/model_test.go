package session

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/clawseed/clawseed/providers"
)

// A /model switch is recorded, and the last one comes back on load, so a
// resumed session goes on with the model it last used (issue 25, item 3);
// files without a switch load with none, and a record without its name or
// model is skipped with a warning.
func TestModelRecords(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	w := s.Create(Header{ID: "m1", Workspace: "/ws", Provider: "openai", Model: "fast-model"})
	for _, step := range []func() error{
		func() error {
			return w.RecordModel(ModelChange{Name: "smart", Provider: "openai", Model: "smart-model"})
		},
		func() error { return w.RecordMessage(providers.UserText("first")) },
		func() error { return w.RecordModel(ModelChange{Name: "smart", Provider: "openai", Model: "other-id"}) },
		func() error { return w.RecordMessage(providers.UserText("second")) },
	} {
		if err := step(); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.RecordModel(ModelChange{Name: "x"}); err == nil {
		t.Error("a switch without a model was written")
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	got, err := s.Load("m1")
	if err != nil {
		t.Fatal(err)
	}
	want := &ModelChange{Name: "smart", Provider: "openai", Model: "other-id"}
	if diff := cmp.Diff(want, got.ModelSwitch); diff != "" || len(got.Warnings) > 0 {
		t.Errorf("ModelSwitch (-want +got)\n%s\nwarnings %v", diff, got.Warnings)
	}

	for _, tc := range []struct {
		name, data string
		want       *ModelChange
		warning    string
	}{
		{"old file", lines(hdr, msg("a")), nil, ""},
		{"last wins", lines(hdr, `{"type":"model_switch","model_switch":{"name":"a","model":"m1"}}`, msg("a"),
			`{"type":"model_switch","model_switch":{"name":"b","model":"m2"}}`), &ModelChange{Name: "b", Model: "m2"}, ""},
		{"no model", lines(hdr, `{"type":"model_switch","model_switch":{"name":"a"}}`, msg("a")), nil, "model_switch record without name and model, line skipped"},
		{"null", lines(hdr, `{"type":"model_switch","model_switch":null}`, msg("a")), nil, "model_switch record without name and model, line skipped"},
	} {
		got, err := Parse("s.jsonl", []byte(tc.data))
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if !cmp.Equal(got.ModelSwitch, tc.want) || (tc.warning == "") != (len(got.Warnings) == 0) ||
			tc.warning != "" && !strings.Contains(got.Warnings[0], tc.warning) {
			t.Errorf("%s: ModelSwitch %+v, warnings %q", tc.name, got.ModelSwitch, got.Warnings)
		}
	}
}
