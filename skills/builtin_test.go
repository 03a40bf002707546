package skills

import (
	"context"
	"reflect"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

// The bundled skills of issue 30 and skill-creator.
var wantBuiltins = []string{"batch", "debug", "dream", "init", "loop", "remember", "simplify", "skill-creator", "skillify", "update-config"}

// TestBuiltinSkills: every bundled skill loads without a diagnostic, says
// when to use it, and keeps its index entry short.
func TestBuiltinSkills(t *testing.T) {
	if got := builtinNames(); !slices.Equal(got, wantBuiltins) {
		t.Fatalf("builtinNames() = %v, want %v", got, wantBuiltins)
	}
	for _, name := range wantBuiltins {
		t.Run(name, func(t *testing.T) {
			s, diags := loadBuiltin(name)
			if s == nil || len(diags) > 0 {
				t.Fatalf("loadBuiltin(%q) = %v, %v", name, s, diags)
			}
			if s.Name != name || s.Source != SourceBuiltin {
				t.Errorf("name %q source %q", s.Name, s.Source)
			}
			if strings.TrimSpace(s.Body) == "" || strings.TrimSpace(s.Description) == "" {
				t.Errorf("empty body or description")
			}
			if name == "skill-creator" {
				return // the older skill, with a manifest and triggers
			}
			if s.WhenToUse == "" {
				t.Errorf("no when_to_use")
			}
			// Its index entry: description and when_to_use, at most 250
			// characters (the index's cap), so none is ever cut.
			if n := utf8.RuneCountInString(s.Description + " " + s.WhenToUse); n > 250 {
				t.Errorf("description + when_to_use = %d characters, want <= 250", n)
			}
		})
	}
}

// TestBuiltinSetDiscovery: discoveries given the built-ins parsed once
// (Options.BuiltinSet) list what discoveries that parse them list, and
// each gets its own copies: one catalog's status decisions do not reach
// another's.
func TestBuiltinSetDiscovery(t *testing.T) {
	t.Parallel()
	opts := Options{Builtins: true, Excluded: []string{"debug"}}
	want := Discover(context.Background(), opts)
	opts.BuiltinSet = ParseBuiltins()
	first := Discover(context.Background(), opts)
	opts.Excluded = nil
	second := Discover(context.Background(), opts)
	if !reflect.DeepEqual(first, want) {
		t.Errorf("with the parsed set:\n%+v\nwant\n%+v", first, want)
	}
	if len(first.Skills) != len(wantBuiltins) || len(second.Skills) != len(wantBuiltins) {
		t.Fatalf("%d and %d skills, want %d", len(first.Skills), len(second.Skills), len(wantBuiltins))
	}
	for i, s := range first.Skills {
		if s == second.Skills[i] {
			t.Fatalf("%s: both catalogs hold one skill", s.Name)
		}
		// Nor one list: a change to one catalog's skill stays there.
		if len(s.AllowedTools) > 0 && &s.AllowedTools[0] == &second.Skills[i].AllowedTools[0] {
			t.Fatalf("%s: both catalogs share its allowed-tools", s.Name)
		}
		if hidden := s.Name == "debug"; (s.Status == StatusHidden) != hidden || (second.Skills[i].Status == StatusHidden) {
			t.Errorf("%s: statuses %q and %q", s.Name, s.Status, second.Skills[i].Status)
		}
	}
}

// TestBuiltinIndexSize measures what the bundled skills add to the
// <available_skills> index, and keeps it under a ceiling: they are listed
// in every session.
func TestBuiltinIndexSize(t *testing.T) {
	cat := Discover(context.Background(), Options{Builtins: true})
	all := RenderIndex(cat.Skills, 0)
	var creatorOnly []*Skill
	for _, s := range cat.Skills {
		if s.Name == "skill-creator" {
			creatorOnly = append(creatorOnly, s)
		}
	}
	one := RenderIndex(creatorOnly, 0)
	growth := utf8.RuneCountInString(all.Text) - utf8.RuneCountInString(one.Text)
	t.Logf("index: %d characters with skill-creator alone, %d with every built-in (+%d)", utf8.RuneCountInString(one.Text), utf8.RuneCountInString(all.Text), growth)
	if all.Listed != len(wantBuiltins) || all.Level != IndexFull {
		t.Fatalf("listed %d at %v, want %d at full", all.Listed, all.Level, len(wantBuiltins))
	}
	if growth > 2000 {
		t.Errorf("the bundled skills add %d characters to the index, want <= 2000", growth)
	}
}

// TestBuiltinBody: the init skill's body is what /init sends.
func TestBuiltinBody(t *testing.T) {
	if b := BuiltinBody("init"); !strings.HasPrefix(b, "Survey this repository") || strings.Contains(b, "allowed-tools") {
		t.Errorf("BuiltinBody(init) = %.80q…", b)
	}
	if b := BuiltinBody("no-such"); b != "" {
		t.Errorf("BuiltinBody(no-such) = %q", b)
	}
}

// dropBuiltins removes from a discSummary's lines the built-ins other
// than keep: tests about one built-in list only it.
func dropBuiltins(lines []string, keep ...string) []string {
	return slices.DeleteFunc(lines, func(l string) bool {
		name, rest, _ := strings.Cut(l, " ")
		return strings.HasPrefix(rest, "builtin ") && !slices.Contains(keep, name)
	})
}
