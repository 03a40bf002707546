package scan

import (
	"bytes"
	"path"
	"slices"
	"strings"

	"github.com/clawseed/clawseed/internal/tomltext"
	"github.com/clawseed/clawseed/permissions"
	"github.com/clawseed/clawseed/skills"
)

// What a skill asks for, as the runtime reads it.
type definition struct {
	allowedTools []string
	permissions  []string
	shell        string // the command and its arguments, "" for none
	// hooks are the commands and URLs of the skill's hooks, which run by
	// themselves like its shell: command.
	hooks []string
}

// checkSkill runs the rules that read the skill as a whole: its dynamic
// context, its shell: command and hooks, and what its frontmatter and
// manifest grant.
func (s *scanner) checkSkill() {
	if s.skillMD == nil && s.manifest == nil {
		return
	}
	if s.skillMD != nil {
		s.checkDynamic()
	}
	def := s.definition()
	if def.shell != "" {
		file, line := s.keyLoc("shell")
		s.runOn(applyShell, file, def.shell, line)
	}
	if len(def.hooks) > 0 {
		file, line := s.keyLoc("hooks")
		for _, h := range def.hooks {
			s.runOn(applyShell, file, h, line)
		}
	}
	if len(def.allowedTools) > 0 {
		// One finding per rule on the key's line, naming every entry.
		byCheck := map[string][]string{}
		for _, e := range def.allowedTools {
			if !permissions.NamesTool([]string{e}, "shell", permissions.ClassExec) {
				continue
			}
			check := "allowed-tools-exec-scoped"
			if r := ruleByCheck(s.rules, "allowed-tools-exec"); r != nil && unscopedExec(e, r.Commands) {
				check = "allowed-tools-exec"
			}
			byCheck[check] = append(byCheck[check], e)
		}
		file, line := s.keyLoc("allowed-tools")
		for _, check := range []string{"allowed-tools-exec", "allowed-tools-exec-scoped"} {
			if es := byCheck[check]; len(es) > 0 {
				s.addCheck(check, file, line, strings.Join(es, ", "))
			}
		}
	}
	var perms []string
	for _, p := range def.permissions {
		if slices.Contains(permissions.Tools(p), "shell") {
			perms = append(perms, p)
		}
	}
	if len(perms) > 0 {
		file, line := s.keyLoc("permissions")
		s.addCheck("permission-exec", file, line, strings.Join(perms, ", "))
	}
}

// definition reads what the skill asks for the way discovery does
// (manifest.toml over SKILL.md, field by field); a skill the runtime
// would refuse is still read from SKILL.md's frontmatter alone, since
// another agent may load it.
func (s *scanner) definition() definition {
	var def definition
	if sk, _ := skills.LoadDir(s.root, skills.Options{}); sk != nil {
		def.allowedTools, def.permissions = sk.AllowedTools, sk.Permissions
		if sk.Shell != nil {
			def.shell = strings.TrimSpace(sk.Shell.Command + " " + strings.Join(sk.Shell.Args, " "))
		}
		for _, ev := range sk.Hooks {
			for _, g := range ev.Groups {
				for _, h := range g.Hooks {
					for _, c := range []string{h.Command, h.URL} {
						if c != "" {
							def.hooks = append(def.hooks, c)
						}
					}
				}
			}
		}
		return def
	}
	if s.skillMD == nil {
		return def
	}
	fm, _, _, bad := skills.ParseMarkdown("SKILL.md", s.skillMD)
	if bad != "" {
		return def
	}
	for _, e := range fm.Entries() {
		switch canonicalKey(e.Key) {
		case "allowed-tools":
			def.allowedTools, _ = e.List()
		case "permissions":
			def.permissions, _ = e.List()
		case "shell":
			def.shell, _ = e.String()
		}
	}
	return def
}

func canonicalKey(k string) string { return strings.ReplaceAll(strings.ToLower(k), "_", "-") }

// keyLoc returns the file and line of a skill key: manifest.toml's
// [skill] key when it has one (it wins), else SKILL.md's frontmatter key,
// else SKILL.md (or manifest.toml) at line 0.
func (s *scanner) keyLoc(key string) (string, int) {
	if s.manifest != nil {
		lines := tomltext.KeyLines(string(s.manifest))
		for _, k := range []string{key, strings.ReplaceAll(key, "-", "_")} {
			if l, ok := lines["skill."+k]; ok {
				return "manifest.toml", l
			}
		}
	}
	if s.skillMD != nil {
		fm, _, _, _ := skills.ParseMarkdown("SKILL.md", s.skillMD)
		line := 0
		for _, e := range fm.Entries() {
			if canonicalKey(e.Key) == key {
				line = e.Line
			}
		}
		return "SKILL.md", line
	}
	return "manifest.toml", 0
}

// unscopedExec reports whether an allowed-tools entry that names the
// shell lets any command through: no pattern, a pattern of wildcards, a
// wildcard in the command's name, or a wildcard right after a command
// that runs other code (commands, from rules.toml: `Bash(python3:*)`, not
// the one fixed command `Bash(npm test)`).
func unscopedExec(entry string, commands []string) bool {
	entry = strings.TrimSpace(entry)
	open := strings.IndexByte(entry, '(')
	if open < 0 || !strings.HasSuffix(entry, ")") {
		return true
	}
	pattern := strings.TrimSpace(entry[open+1 : len(entry)-1])
	if strings.Trim(pattern, "*: ") == "" {
		return true
	}
	prefix, _, _ := strings.Cut(pattern, ":")
	words := strings.Fields(prefix)
	if len(words) == 0 {
		return true
	}
	cmd := strings.ToLower(path.Base(strings.ReplaceAll(words[0], `\`, "/")))
	cmd = strings.TrimSuffix(cmd, ".exe")
	if strings.ContainsAny(cmd, "*?[") {
		return true
	}
	runner := slices.Contains(commands, cmd) || slices.Contains(commands, strings.TrimRight(cmd, "0123456789."))
	if !runner || !strings.ContainsAny(pattern, "*?") {
		return false
	}
	// A runner with a wildcard is open unless a fixed word (a
	// subcommand, a script) follows it: `git status:*` and
	// `python3 scripts/*` stay scoped, `python3:*`, `npx *` and
	// `bash -c *` do not.
	if len(words) < 2 {
		return true
	}
	next := words[1]
	return strings.HasPrefix(next, "-") || strings.Trim(next, "*?") == ""
}

// checkDynamic runs the "dynamic" rules on each dynamic-context command of
// SKILL.md's body, at the command's own lines.
func (s *scanner) checkDynamic() {
	start := bodyStart(s.skillMD)
	body := string(s.skillMD[start:])
	pos := 0
	for _, seg := range skills.ParseDynamic(body) {
		if seg.Kind != skills.SegmentText {
			at := strings.Index(seg.Text, seg.Command)
			if at < 0 {
				at = 0
			}
			line := 1 + bytes.Count(s.skillMD[:start+pos+at], []byte("\n"))
			s.runOn(applyDynamic, "SKILL.md", seg.Command, line)
		}
		pos += len(seg.Text)
	}
}

// bodyStart returns the offset of SKILL.md's body: after the closing
// fence of a frontmatter that opens on the first line, else 0.
func bodyStart(data []byte) int {
	if !bytes.HasPrefix(data, []byte("---")) {
		return 0
	}
	first := bytes.IndexByte(data, '\n')
	if first < 0 || strings.TrimSpace(string(data[:first])) != "---" {
		return 0
	}
	for pos := first + 1; pos < len(data); {
		end := bytes.IndexByte(data[pos:], '\n')
		line := data[pos:]
		next := len(data)
		if end >= 0 {
			line, next = data[pos:pos+end], pos+end+1
		}
		if t := strings.TrimSpace(string(line)); t == "---" || t == "..." {
			return next
		}
		pos = next
	}
	return 0
}

// runOn runs the rules that apply to kind on one command, found at line of
// file.
func (s *scanner) runOn(kind, file, command string, line int) {
	t := newTextAt([]byte(command), line, s.rules)
	for _, r := range s.rules {
		if r.applies(kind) {
			for _, h := range t.matches(r) {
				s.add(r, file, h.line, "")
			}
		}
	}
}
