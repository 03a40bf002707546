package permissions

import (
	"net/url"
	"path"
	"slices"
	"strings"
)

// A Subject is what permission rules are matched against for one call:
// the tool, and what the call does as its tool reports it before it runs.
type Subject struct {
	// Tool is the tool's name in this runtime (shell, file_read, Skill,
	// mcp__github__create_issue); Class its class for this call.
	Tool  string
	Class Class
	// Summary is the call's one line (the command, the path, the URL): what
	// a rule's specifier is matched against when nothing below says more.
	Summary string
	// Shell is set for a call that runs a command line.
	Shell *ShellLine
	// Reads and Writes are the files the call reads and writes: absolute
	// paths, each in every form that names it (as the call named it, and
	// with symbolic links resolved), all of which an allow rule must
	// cover and any of which a deny rule may.
	Reads, Writes []string
	// URL is the address a network call requests.
	URL string
	// Name is what a Skill call activates or an Agent call runs; Args the
	// Skill call's arguments.
	Name, Args string
}

// A ShellLine is a command line as the shell checker reads it: every
// simple command it runs, nested ones (in substitutions, eval and sh -c
// strings, xargs and find -exec) included.
type ShellLine struct {
	Commands [][]Word
	// Hidden is set, with why, when the line may run commands Commands
	// does not show (it does not parse, eval runs a variable, PATH is
	// set): no allow rule pre-approves it, and a deny or ask rule of
	// commands applies to it as if it matched.
	Hidden string
	// Unapprovable is set, with why, when no allow rule may pre-approve
	// the line although its commands are known (a redirection writes
	// outside the workspace).
	Unapprovable string
}

// SimpleShellLine reads a command line without a shell parser, for
// callers that have none: a line with no shell syntax (operators,
// substitutions, quotes, redirections) is one command of its
// space-separated words; any other line is hidden.
func SimpleShellLine(line string) *ShellLine {
	line = strings.TrimSpace(line)
	if line == "" || strings.ContainsAny(line, ";&|`$<>()\n\r'\"\\*?[]{}~#=") {
		return &ShellLine{Hidden: "it has shell syntax that cannot be checked here"}
	}
	return &ShellLine{Commands: [][]Word{Words(strings.Fields(line)...)}}
}

// An atom is one thing of a call a rule's specifier is matched against.
type atom struct {
	kind  atomKind
	words []Word // command
	path  string // read, write
	text  string // url, name, summary
	args  string // name: the skill's arguments
}

type atomKind int

const (
	atomSummary atomKind = iota
	atomCommand
	atomRead
	atomWrite
	atomURL
	atomName
)

// atoms splits a call into what rules match: each simple command of a
// command line, each form of each file it writes (or else reads), its
// URL, the skill or subagent it names, or else its summary.
func (s Subject) atoms() []atom {
	var out []atom
	switch {
	case s.Shell != nil:
		for _, c := range s.Shell.Commands {
			out = append(out, atom{kind: atomCommand, words: c})
		}
	case len(s.Writes) > 0:
		for _, p := range s.Writes {
			out = append(out, atom{kind: atomWrite, path: p})
		}
	case len(s.Reads) > 0:
		for _, p := range s.Reads {
			out = append(out, atom{kind: atomRead, path: p})
		}
	case s.URL != "":
		out = append(out, atom{kind: atomURL, text: s.URL})
	case s.Tool == skillTool || s.Tool == agentTool:
		out = append(out, atom{kind: atomName, text: s.Name, args: s.Args})
	default:
		out = append(out, atom{kind: atomSummary, text: s.Summary})
	}
	return out
}

// The tools whose calls name what they run.
const (
	skillTool = "Skill"
	agentTool = "Agent"
)

// names reports whether the rule's tool part covers the call. For allow
// (possibly false) a network tool must be named (`web_fetch`, WebFetch,
// `mcp__server`), never matched by a glob such as `*`: reaching the
// network is a decision about that tool. http_request is never covered by
// an allow of WebFetch.
func (r Rule) names(s Subject, possibly bool) bool {
	switch r.fam {
	case famShell:
		return s.Shell != nil
	case famRead:
		return len(s.Reads) > 0 && len(s.Writes) == 0
	case famEdit:
		return len(s.Writes) > 0
	case famWebFetch:
		return s.Tool == "web_fetch" || possibly && s.Tool == "http_request"
	case famSkill:
		return s.Tool == skillTool
	case famAgent:
		return s.Tool == agentTool
	}
	if serverGlob(r.name, s.Tool) || r.name == s.Tool {
		return true
	}
	if !possibly && s.Class == ClassNetwork {
		return false
	}
	return MatchGlob(r.name, s.Tool)
}

// matches reports whether the rule's specifier matches the atom: surely
// (allow) or possibly (deny, ask). A rule without one matches every atom.
func (r Rule) matches(a atom, possibly bool) bool {
	if !r.hasSpec {
		return true
	}
	switch a.kind {
	case atomCommand:
		if r.cmd.matchCommand(a.words, possibly) {
			return true
		}
		// A deny or ask of `rm` also stops `/bin/rm`: the shell runs the
		// same program. (An allow of `rm` does not cover `./rm`.)
		if possibly && len(a.words) > 0 && !a.words[0].Unknown && strings.Contains(a.words[0].Text, "/") {
			w := slices.Clone(a.words)
			w[0].Text = path.Base(w[0].Text)
			return r.cmd.matchCommand(w, true)
		}
		return false
	case atomRead, atomWrite:
		return r.pathErr == nil && r.path.matchPath(a.path)
	case atomURL:
		return matchURL(r.spec, a.text, possibly)
	case atomName:
		// Skill(deploy) names the skill (with any arguments), Skill(deploy
		// prod) the skill with those; Skill(deploy *) and Skill(plugin:*)
		// are patterns over its name, or "name args".
		full := strings.TrimSpace(a.text + " " + a.args)
		if !strings.Contains(r.spec, "*") {
			return r.spec == a.text || r.spec == full
		}
		return r.cmd.matchText(a.text) || r.cmd.matchText(full) || cmdPatternGlob(r.spec).matchText(a.text)
	}
	return MatchGlob(r.spec, a.text)
}

// cmdPatternGlob reads a specifier as a plain wildcard (no `:*` legacy).
func cmdPatternGlob(spec string) cmdPattern { return cmdPattern{alts: [][]unit{wildUnits(spec)}} }

// matchURL matches a WebFetch specifier: `domain:HOST` (HOST may start
// with "*." for its subdomains) against the URL's host, anything else as a
// glob over the URL. A URL whose host cannot be read possibly matches.
func matchURL(spec, raw string, possibly bool) bool {
	host, ok := strings.CutPrefix(spec, "domain:")
	if !ok {
		return MatchGlob(spec, raw)
	}
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil || u.Hostname() == "" {
		return possibly
	}
	got := strings.TrimSuffix(strings.ToLower(u.Hostname()), ".")
	host = strings.TrimSuffix(strings.ToLower(strings.TrimSpace(host)), ".")
	if sub, ok := strings.CutPrefix(host, "*."); ok {
		return strings.HasSuffix(got, "."+sub)
	}
	return got == host
}

// A Verdict is what the rules say of a call.
type Verdict struct {
	// Kind is the list that decides: RuleDeny, RuleAsk or RuleAllow; ""
	// when no rule does (the autonomy policy decides alone).
	Kind RuleKind
	// Rule is the rule that decides.
	Rule Rule
	// Unchecked is set, with why, when the call was denied or asked about
	// because it could not be checked against Rule (a command line that
	// may run commands nobody can see).
	Unchecked string
}

// Decide matches the rules against a call, deny first, then ask, then
// allow; the first list with a match decides.
//   - A deny or ask rule matches when its tool part covers the call and
//     its specifier possibly matches any part of it: one simple command of
//     a line, one file, one form of a file's path. A line that may run
//     commands nobody can see matches every deny or ask rule of commands
//     (Unchecked says so).
//   - Allow needs every part of the call covered by some allow rule: each
//     simple command of a line (`Bash(git status:*)` does not pre-approve
//     `git status && rm x`), each file.
func Decide(rules []Rule, s Subject) Verdict {
	for _, kind := range []RuleKind{RuleDeny, RuleAsk} {
		for _, r := range rules {
			if r.Kind != kind || !r.names(s, true) {
				continue
			}
			if !r.hasSpec {
				return Verdict{Kind: kind, Rule: r}
			}
			if s.Shell != nil && s.Shell.Hidden != "" {
				return Verdict{Kind: kind, Rule: r, Unchecked: s.Shell.Hidden}
			}
			for _, a := range s.atoms() {
				if r.matches(a, true) {
					return Verdict{Kind: kind, Rule: r}
				}
			}
		}
	}
	if r, ok := cover(rules, s); ok {
		return Verdict{Kind: RuleAllow, Rule: r}
	}
	return Verdict{}
}

// cover reports whether allow rules cover every part of the call, and the
// first rule that covers one.
func cover(rules []Rule, s Subject) (Rule, bool) {
	if s.Shell != nil && (s.Shell.Hidden != "" || s.Shell.Unapprovable != "" || len(s.Shell.Commands) == 0) {
		// Only a rule of every command (`Bash`) covers what cannot be seen.
		i := slices.IndexFunc(rules, func(r Rule) bool { return r.Kind == RuleAllow && !r.hasSpec && r.names(s, false) })
		if i < 0 {
			return Rule{}, false
		}
		return rules[i], true
	}
	var first Rule
	found := false
	for _, a := range s.atoms() {
		i := slices.IndexFunc(rules, func(r Rule) bool {
			return r.Kind == RuleAllow && r.names(s, false) && r.matches(a, false)
		})
		if i < 0 {
			return Rule{}, false
		}
		if !found {
			first, found = rules[i], true
		}
	}
	return first, found
}

// CoverAll reports whether the allow rules cover every part of the call
// (see [Decide]): how a skill's allowed-tools pre-approve a call.
func CoverAll(rules []Rule, s Subject) bool {
	_, ok := cover(rules, s)
	return ok
}

// Hides reports whether a deny or ask rule of files read covers the file
// p (absolute, in its forms): a search does not show it ([WithReadFilter]).
func Hides(rules []Rule, tool string, forms ...string) bool {
	for _, r := range rules {
		if r.Kind == RuleAllow || !r.hasSpec || r.pathErr != nil {
			continue
		}
		if r.fam != famRead && !(r.fam == famName && (r.name == tool || MatchGlob(r.name, tool))) {
			continue
		}
		for _, p := range forms {
			if r.path.matchPath(p) {
				return true
			}
		}
	}
	return false
}
