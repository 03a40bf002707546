package config

import "strings"

// userOnlyTable reports whether the top-level table name may be set only in
// the user's file or --config, never in a project file: [serve] holds the
// operator's tokens, their workspaces and autonomy, so a repository may not
// let anyone in.
func userOnlyTable(name string) bool { return name == "serve" }

// ProjectStarter is the starter project file `clawseed config init
// --project` writes: example (config.toml.example) without the tables a
// project file may not set ([userOnlyTable]), and without the comment block
// just above each, so that the file it writes loads. A line says where they
// go instead.
func ProjectStarter(example []byte) []byte {
	lines := strings.SplitAfter(string(example), "\n")
	var out []string
	skipping := false
	for _, line := range lines {
		if name, ok := tableName(line); ok {
			if userOnlyTable(name) {
				if !skipping {
					out = dropCommentBlock(out)
					out = append(out, "# ["+name+"] is set in your own config file ($CLAWSEED_HOME/config.toml), never in a project file.\n")
				}
				skipping = true
				continue
			}
			skipping = false
		}
		if !skipping {
			out = append(out, line)
		}
	}
	return []byte(strings.Join(out, ""))
}

// tableName is the first key of a table header line ("[serve]",
// "[serve.tokens.ci]", "[[x]]"), false for any other line.
func tableName(line string) (string, bool) {
	s := strings.TrimSpace(line)
	if !strings.HasPrefix(s, "[") {
		return "", false
	}
	s = strings.TrimLeft(s, "[")
	end := strings.IndexAny(s, ".]")
	if end <= 0 {
		return "", false
	}
	return strings.Trim(strings.TrimSpace(s[:end]), `"'`), true
}

// dropCommentBlock removes the comment lines at the end of lines (the
// description of the table that follows them).
func dropCommentBlock(lines []string) []string {
	for len(lines) > 0 && strings.HasPrefix(strings.TrimSpace(lines[len(lines)-1]), "#") {
		lines = lines[:len(lines)-1]
	}
	return lines
}
