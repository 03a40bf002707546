package config

import (
	"fmt"
	"strings"
)

// expand replaces ${VAR} and ${VAR:-default} in s.
//
// Rules (documented in config.toml.example):
//   - ${VAR} is VAR's value; set-but-empty is "" and fine. An unset VAR makes
//     the whole value unusable: expand returns missing = "VAR" and the caller
//     stores "" and reports the variable only if the value is used.
//   - ${VAR:-default} is VAR's value, or default when VAR is unset or empty
//     (as in the shell). default is literal text up to the first "}".
//   - $${ is a literal "${". Any other "$" is literal, so "pa$word" and "$HOME"
//     stay as written (only the braced form expands).
//   - A "${" without a closing "}" or with an invalid name (letters, digits,
//     "_", not starting with a digit) is an error at load.
func expand(s string, lookup func(string) (string, bool)) (out, missing string, err error) {
	if !strings.Contains(s, "${") {
		return s, "", nil
	}
	var b strings.Builder
	for {
		i := strings.IndexByte(s, '$')
		if i < 0 {
			b.WriteString(s)
			break
		}
		b.WriteString(s[:i])
		s = s[i:]
		switch {
		case strings.HasPrefix(s, "$${"):
			b.WriteString("${")
			s = s[3:]
			continue
		case !strings.HasPrefix(s, "${"):
			b.WriteByte('$')
			s = s[1:]
			continue
		}
		end := strings.IndexByte(s, '}')
		if end < 0 {
			return "", "", fmt.Errorf("unterminated %q (write $${ for a literal ${)", firstN(s, 20))
		}
		body := s[2:end]
		s = s[end+1:]
		name, def, hasDef := strings.Cut(body, ":-")
		if !validVarName(name) {
			return "", "", fmt.Errorf("invalid variable name in ${%s}", body)
		}
		v, ok := lookup(name)
		switch {
		case hasDef && v == "":
			v = def
		case !ok && missing == "":
			missing = name
		}
		b.WriteString(v)
	}
	if missing != "" {
		return "", missing, nil
	}
	return b.String(), "", nil
}

func validVarName(s string) bool {
	if s == "" {
		return false
	}
	for i, r := range s {
		switch {
		case r == '_', r >= 'A' && r <= 'Z', r >= 'a' && r <= 'z':
		case r >= '0' && r <= '9' && i > 0:
		default:
			return false
		}
	}
	return true
}

// escapeDollar is the inverse of expand for literal text: Show uses it so its
// output decodes back to the same values.
func escapeDollar(s string) string {
	return strings.ReplaceAll(s, "${", "$${")
}

func firstN(s string, n int) string {
	r := []rune(s)
	if len(r) > n {
		return string(r[:n]) + "…"
	}
	return s
}
