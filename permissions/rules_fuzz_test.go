package permissions

import (
	"strings"
	"testing"
)

// FuzzParseRule: any text either fails to parse or gives a rule that can
// be matched against every kind of call without panicking, and whose
// command patterns never match surely what they cannot match possibly
// (allow must never be wider than deny).
func FuzzParseRule(f *testing.F) {
	for _, seed := range []string{
		"Bash", "Bash(npm test:*)", "Bash(npm run test *)", "Bash(ls *)", `Bash(echo \*)`, "Bash(:*)",
		"Read(./secrets/**)", "Read(//etc/**)", "Read(~/.ssh/*)", "Edit(/src/**/*.ts)", "Read(*.env)",
		"Read(a/../../b)", "Read([)", "WebFetch(domain:example.com)", "WebFetch(domain:*.x.org)",
		"WebSearch", "mcp__github", "mcp__github__create_*", "Skill(deploy *)", "Skill(p:*)", "Agent(explorer)",
		"memory_*", "http_request(https://*)", "Bash(", "Bash)", "()", "Bash(()", "Bash(a(b)c)", "\x00",
		"Bash(" + strings.Repeat("*a", 50) + ")",
	} {
		f.Add(seed, "git status --short")
	}
	f.Fuzz(func(t *testing.T, text, command string) {
		r, err := ParseRule(RuleDeny, text, testBases)
		if err != nil {
			return
		}
		words := Words(strings.Fields(command)...)
		if len(words) > 0 && len(command)%2 == 0 {
			words[len(words)/2] = Word{Unknown: true}
		}
		if r.hasSpec && r.cmd.matchCommand(words, false) && !r.cmd.matchCommand(words, true) {
			t.Fatalf("%q matches %v surely but not possibly", text, words)
		}
		subjects := []Subject{
			{Tool: "shell", Class: ClassExec, Shell: &ShellLine{Commands: [][]Word{words}}},
			{Tool: "shell", Class: ClassExec, Shell: &ShellLine{Hidden: "x"}},
			{Tool: "file_read", Reads: []string{"/ws/" + command}},
			{Tool: "file_write", Class: ClassWrite, Writes: []string{"/" + command}},
			{Tool: "web_fetch", Class: ClassNetwork, URL: command},
			{Tool: "Skill", Name: command, Args: command},
			{Tool: "mcp__a__" + command, Class: ClassNetwork},
			{Tool: command, Summary: command},
		}
		allow := r
		allow.Kind = RuleAllow
		for _, s := range subjects {
			deny := Decide([]Rule{r}, s)
			if CoverAll([]Rule{allow}, s) && deny.Kind != RuleDeny && s.Class != ClassNetwork {
				t.Fatalf("%q allows %+v but would not deny it", text, s)
			}
			_ = Hides([]Rule{r}, s.Tool, s.Reads...)
		}
	})
}
