package skills

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestSubstitute(t *testing.T) {
	t.Parallel()
	vars := map[string]string{
		VarSkillDir:  "/ws/.clawseed/skills/s",
		VarSessionID: "sess-1",
		VarWorkspace: "/ws",
	}
	named := []string{"file", "file_path", "mode"}
	tests := []struct {
		name, body, args string
		want             string
	}{
		{"all args", "Do $ARGUMENTS now.", "a b  c", "Do a b  c now."},
		{"all args empty", "Do $ARGUMENTS.", "", "Do ."},
		{"indexed", "$ARGUMENTS[0]/$ARGUMENTS[2]", "x y z", "x/z"},
		{"indexed missing", "[$ARGUMENTS[5]]", "x", "[]"},
		{"indexed huge", "[$ARGUMENTS[99999999999999999999999]]", "x", "[]"},
		{"indexed malformed", "$ARGUMENTS[x]", "a b", "a b[x]"},
		{"indexed unclosed", "$ARGUMENTS[1", "a b", "a b[1"},
		{"positional", "$0 then $1", "first second", "first then second"},
		// A bare $N without an Nth word is text (a price, LaTeX), not a
		// placeholder (issue 8 item 15).
		{"positional missing", "<$3>", "a", "<$3>\n\nARGUMENTS: a"},
		{"positional missing, none used", "<$0> costs $45", "", "<$0> costs $45"},
		{"latex dollar keeps its backslash", `Total: \$45 and \$$TOTAL`, "a b", "Total: \\$45 and \\$$TOTAL\n\nARGUMENTS: a b"},
		{"escaped positional in range", `\$1 is $1`, "a b", "$1 is b"},
		{"positional two digits", "$10", "0 1 2 3 4 5 6 7 8 9 ten", "ten"},
		{"positional followed by ident", "$5x and $1_", "a b c d e f", "$5x and $1_\n\nARGUMENTS: a b c d e f"},
		{"positional followed by punctuation", "$1.", "a b", "b."},
		{"quotes group words", "[$0][$1][$2]", `"two words" 'single $q' plain`, "[two words][single $q][plain]"},
		{"backslash escapes", "[$0][$1]", `a\ b c\"d`, `[a b][c"d]`},
		{"escapes in double quotes", "[$0]", `"say \"hi\" \n"`, `[say "hi" \n]`},
		{"empty quoted word", "[$0][$1]", `"" x`, "[][x]"},
		{"unterminated quote", "[$0][$1]", `a "b c`, "[a][b c]"},
		{"named", "Open $file in $mode mode.", "main.go lib.go read", "Open main.go in read mode."},
		{"named longest first", "$file_path vs $file", "a.go b.go", "b.go vs a.go"},
		{"named not followed by ident", "$filex $file-1", "a.go", "$filex a.go-1"},
		{"named missing word", "[$mode]", "only", "[]"},
		{"named counts as use", "File: $file", "a.go extra", "File: a.go"},
		{"skill dir", "Run ${CLAWSEED_SKILL_DIR}/scripts/x.sh", "", "Run /ws/.clawseed/skills/s/scripts/x.sh"},
		{"session and workspace", "${CLAWSEED_SESSION_ID} ${CLAWSEED_WORKSPACE}", "", "sess-1 /ws"},
		{"claude aliases", "${CLAUDE_SKILL_DIR} ${CLAUDE_SESSION_ID} ${CLAUDE_PROJECT_DIR}", "", "/ws/.clawseed/skills/s sess-1 /ws"},
		{"unknown brace", "${HOME} ${CLAWSEED_OTHER} ${", "", "${HOME} ${CLAWSEED_OTHER} ${"},
		{"vars are not argument use", "In ${CLAWSEED_WORKSPACE}", "go", "In /ws\n\nARGUMENTS: go"},
		{"escaped dollar", `Costs \$5 and \$ARGUMENTS stays`, "", `Costs \$5 and $ARGUMENTS stays`},
		{"escaped placeholder does not count", `\$ARGUMENTS`, "a", "$ARGUMENTS\n\nARGUMENTS: a"},
		{"escaped var", `\${CLAWSEED_WORKSPACE}`, "", "${CLAWSEED_WORKSPACE}"},
		{"lone backslash", `a\b\\c\`, "", `a\b\\c\`},
		{"backslash before a shell variable stays", `echo "Total: \$$TOTAL and \$HOME"`, "", `echo "Total: \$$TOTAL and \$HOME"`},
		{"backslash before other dollars stays", `\$ \$. \$$ \${HOME} \${CLAWSEED_OTHER} \$ARGUMENTSX \$5x \$`, "", `\$ \$. \$$ \${HOME} \${CLAWSEED_OTHER} \$ARGUMENTSX \$5x \$`},
		{"escaped positional", `\$1 and \$ARGUMENTS[0]`, "x y", "$1 and $ARGUMENTS[0]\n\nARGUMENTS: x y"},
		{"escaped named", `\$file_path \$file \$filex`, "", `$file_path $file \$filex`},
		{"escaped var is kept whole", `\${CLAUDE_SKILL_DIR}/x`, "", `${CLAUDE_SKILL_DIR}/x`},
		{"double backslash before dollar", `\\$0`, "x", `\$0` + "\n\nARGUMENTS: x"},
		{"other dollars untouched", "$HOME $ $$ $ARGUMENTSX $", "", "$HOME $ $$ $ARGUMENTSX $"},
		{"append when unused", "Body text.\n\n", "do it", "Body text.\n\nARGUMENTS: do it"},
		{"no append for blank args", "Body.", "  ", "Body."},
		{"append to empty body", "", "x", "ARGUMENTS: x"},
		{"single pass", "$0 $1", "$1 ${CLAWSEED_WORKSPACE}", "$1 ${CLAWSEED_WORKSPACE}"},
		{"single pass all args", "$ARGUMENTS", "$ARGUMENTS $0", "$ARGUMENTS $0"},
		{"unicode around", "→$0←", "é", "→é←"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := Substitute(tt.body, tt.args, named, vars)
			if got != tt.want {
				t.Errorf("Substitute(%q, %q) = %q, want %q", tt.body, tt.args, got, tt.want)
			}
		})
	}
}

func TestSubstituteMissingVars(t *testing.T) {
	t.Parallel()
	got := Substitute("${CLAWSEED_SESSION_ID}|${CLAUDE_PROJECT_DIR}", "", nil, map[string]string{VarSessionID: ""})
	if want := "|${CLAUDE_PROJECT_DIR}"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	// A variable that is not set is not substituted, so its backslash is
	// not an escape.
	got = Substitute(`\${CLAUDE_PROJECT_DIR} \${CLAWSEED_SESSION_ID}`, "", nil, map[string]string{VarSessionID: "s"})
	if want := `\${CLAUDE_PROJECT_DIR} ${CLAWSEED_SESSION_ID}`; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

func TestSubstituteNamedEdgeCases(t *testing.T) {
	t.Parallel()
	// Empty and duplicate names: the first position of a name wins.
	got := Substitute("$a $b", "0 1 2 3", []string{"", "a", "a", "b"}, nil)
	if want := "1 3"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	// ARGUMENTS and positions take precedence over named arguments.
	got = Substitute("$ARGUMENTS $0", "x y", []string{"ARGUMENTS", "0"}, nil)
	if want := "x y x"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

func TestSplitWords(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   string
		want []string
	}{
		{"", nil},
		{"   ", nil},
		{"a", []string{"a"}},
		{" a \t b\nc ", []string{"a", "b", "c"}},
		{`'a b' "c d"`, []string{"a b", "c d"}},
		{`a'b c'd`, []string{"ab cd"}},
		{`'it''s'`, []string{"its"}},
		{`"a\"b" 'a\b'`, []string{`a"b`, `a\b`}},
		{`"\$x \y"`, []string{`$x \y`}},
		{`a\ b\\c`, []string{`a b\c`}},
		{`trailing\`, []string{`trailing\`}},
		{`''`, []string{""}},
		{`"unterminated`, []string{"unterminated"}},
		{`'unterminated`, []string{"unterminated"}},
		{"技能 参数", []string{"技能", "参数"}},
	}
	for _, tt := range tests {
		if diff := cmp.Diff(tt.want, SplitWords(tt.in)); diff != "" {
			t.Errorf("SplitWords(%q) (-want +got):\n%s", tt.in, diff)
		}
	}
}

func FuzzSubstitute(f *testing.F) {
	f.Add("Do $ARGUMENTS now", "a b", "file")
	f.Add("$0 $1 $ARGUMENTS[2] ${CLAWSEED_SKILL_DIR}", `"x y" 'z' w\ v`, "mode")
	f.Add(`\$ARGUMENTS \\$0 $`, "", "")
	f.Add("$file_path $file ${CLAUDE_PROJECT_DIR} ${", "a", "file_path")
	f.Add("$ARGUMENTS[99999999999999999999]", `"unterminated`, "x")
	f.Add(`echo "Total: \$$TOTAL" costs \$45 \$HOME \${HOME}`, "a", "HOME")
	f.Add(`\$name \$names \${CLAUDE_SKILL_DIR} \\$1 \`, `b\ c`, "name")
	f.Fuzz(func(t *testing.T, body, args, name string) {
		vars := map[string]string{VarSkillDir: "/d", VarSessionID: "s", VarWorkspace: "/w"}
		out := Substitute(body, args, []string{name}, vars)
		// A backslash is only ever dropped where it escapes a placeholder,
		// that is right before a $; substituted values add, never remove
		// (unless the argument's name has one).
		if got, min := strings.Count(out, `\`), strings.Count(body, `\`)-strings.Count(body, `\$`); got < min && !strings.Contains(name, `\`) {
			t.Errorf("Substitute(%q, %q) = %q dropped backslashes", body, args, out)
		}
		// Without a $ in the body nothing is substituted: the body comes back,
		// with the arguments appended when they are not blank.
		if !strings.Contains(body, "$") {
			want := body
			if strings.TrimSpace(args) != "" {
				want = strings.TrimRight(body, " \t\r\n")
				if want != "" {
					want += "\n\n"
				}
				want += "ARGUMENTS: " + args
			}
			if out != want {
				t.Errorf("Substitute(%q, %q) = %q, want %q", body, args, out, want)
			}
		}
		// Placeholders used leave no append; no args never append.
		if strings.TrimSpace(args) == "" && strings.Contains(out, "\n\nARGUMENTS: ") && !strings.Contains(body, "ARGUMENTS: ") {
			t.Errorf("appended blank args: %q", out)
		}
	})
}
