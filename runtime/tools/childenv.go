package tools

import (
	"path"
	"slices"
	"strings"
	"unicode/utf8"
)

// The environment of every process clawseed starts for the model — the
// shell tool, cron shell jobs, `shell:` skills, dynamic context, git,
// ripgrep, MCP stdio servers — is built by [ScrubbedEnv], from an allowlist:
// clawseed's own environment holds API keys, tokens and connection strings
// the model must not read, and no list of secret names is ever complete, so
// a variable reaches a child only when it is known to be harmless or the
// user names it in [autonomy].env_passthrough.

// childEnvNames are the variables every child gets (when clawseed has them):
// what programs need to find things, know who and where they are, speak the
// user's language and reach the network the way the user does. It is
// Codex's "core" set (PATH, HOME, USER, LOGNAME, USERNAME, SHELL, TMPDIR,
// TMP, TEMP) plus locale, terminal, XDG base directories, proxies and
// certificate bundles, the commit identity git uses, and where the common
// toolchains are installed. Secret-looking
// values are still dropped (see childEnvAllowed).
var childEnvNames = []string{
	"PATH", "HOME", "USER", "LOGNAME", "USERNAME", "SHELL",
	"TMPDIR", "TMP", "TEMP",
	"LANG", "LANGUAGE", "TZ", "TERM", "COLORTERM", "NO_COLOR",
	"XDG_CACHE_HOME", "XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME", "XDG_RUNTIME_DIR",
	"HTTP_PROXY", "HTTPS_PROXY", "NO_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "no_proxy", "all_proxy",
	"SSL_CERT_FILE", "SSL_CERT_DIR",
	"GIT_AUTHOR_NAME", "GIT_AUTHOR_EMAIL", "GIT_COMMITTER_NAME", "GIT_COMMITTER_EMAIL",
	// Where the user's toolchains live, so that `go build`, `cargo test` or
	// `mvn` in the shell find what they find in the user's terminal.
	"GOPATH", "GOROOT", "GOBIN", "GOCACHE", "GOMODCACHE", "GOFLAGS", "GOPROXY", "GOPRIVATE", "GOTOOLCHAIN", "GORACE",
	"JAVA_HOME", "CARGO_HOME", "RUSTUP_HOME", "NVM_DIR", "PNPM_HOME", "VIRTUAL_ENV", "CONDA_PREFIX",
	"PYENV_ROOT", "DOTNET_ROOT", "ANDROID_HOME",
	"DISPLAY", "WAYLAND_DISPLAY", "EDITOR", "VISUAL",
}

// childEnvPrefixes are prefixes of harmless names every child gets: the
// locale categories (LC_ALL, LC_CTYPE, ...).
var childEnvPrefixes = []string{"LC_"}

// neverChildEnv are names no child gets, even when env_passthrough names
// them: clawseed's own settings (CLAWSEED_API_KEY, CLAWSEED_TRUST_WORKSPACE,
// ...: trust and credentials belong to this process), and the variables
// that make a shell run code before the line it was given (BASH_ENV, ENV,
// exported functions), change how it reads that line (IFS, SHELLOPTS,
// BASHOPTS, GLOBIGNORE, EXECIGNORE, CDPATH) or run code when it traces
// (PS4) or prompts (PROMPT_COMMAND): the line checked against
// [autonomy].allowed_commands must be all the shell runs.
var (
	neverChildEnvNames    = []string{"BASHOPTS", "BASH_ENV", "CDPATH", "ENV", "EXECIGNORE", "GLOBIGNORE", "IFS", "PROMPT_COMMAND", "PS4", "SHELLOPTS"}
	neverChildEnvPrefixes = []string{"CLAWSEED_", "BASH_FUNC_"}
)

// secretEnvPatterns are the [path.Match] patterns, matched against
// upper-cased names, of environment variables that look like they hold
// credentials. Such a variable reaches a child only when env_passthrough
// names it exactly (a glob is not enough), and clawseed hides its value from
// its own /proc/PID/environ at start (internal/procenv).
//
//   - AUTH counts as a whole name component (NPM_AUTH_TOKEN, SSH_AUTH_SOCK,
//     HTTP_AUTH), so that GIT_AUTHOR_NAME, which commits need, stays.
//   - *PASS catches SSHPASS and SMTP_PASS (PASSWORD and PASSWD anywhere);
//     *PWD catches MYSQL_PWD, but PWD and OLDPWD, the working directories,
//     are not secrets (notSecretEnvNames).
//   - *SESSION* is not a pattern: it would catch XDG_SESSION_ID and
//     DBUS_SESSION_BUS_ADDRESS, and session secrets are named *TOKEN*,
//     *KEY*, *SECRET* or *COOKIE* in practice.
var secretEnvPatterns = [...]string{
	"*KEY*", "*TOKEN*", "*SECRET*", "*PASSWORD*", "*PASSWD*", "*PASSPHRASE*", "*PASS", "*PWD",
	"*CREDENTIAL*", "*_PAT", "*_DSN", "*DATABASE_URL", "*_CONNECTION_STRING",
	"*WEBHOOK*", "*JWT*", "*COOKIE*",
	"AUTH", "AUTH_*", "*_AUTH", "*_AUTH_*", "*AUTHORIZATION*",
}

var notSecretEnvNames = []string{"PWD", "OLDPWD"}

// secretValueIn reports whether a value carries a password whatever its
// variable is called: a URL with user:password@ (REDIS_URL, MONGODB_URI,
// HTTPS_PROXY) and password=... in connection strings and query strings.
// It is, exactly, whether this expression matches v:
//
//	(?i)[a-z][a-z0-9+.-]*://[^/?#@\s]*:[^/?#@\s]*@|\b(?:password|passwd|pwd)=[^;&\s]
//
// (the tests hold it, TestSecretValueInIsRegexp and FuzzSecretValueIn),
// written out by hand: IsSecretEnv runs it on every variable at every start
// (internal/procenv), where compiling and running the expression cost more
// than the rest of the start-up check.
func secretValueIn(v string) bool { return urlWithPassword(v) || passwordParam(v) }

// urlWithPassword is the expression's first form: a scheme (a letter, then
// letters, digits, +, . and -) before "://", then a ':' before an '@'
// with none of / ? # @ or ASCII white space in between.
func urlWithPassword(v string) bool {
	for from := 0; ; {
		i := strings.Index(v[from:], "://")
		if i < 0 {
			return false
		}
		i += from
		from = i + 1
		if !schemeBefore(v[:i]) {
			continue
		}
		colon := false
		for _, c := range []byte(v[i+3:]) {
			switch c {
			case ':':
				colon = true
				continue
			case '@':
				if colon {
					return true
				}
			case '/', '?', '#', ' ', '\t', '\n', '\f', '\r':
			default:
				continue
			}
			break
		}
	}
}

// schemeBefore reports whether s ends in a scheme: the run of scheme
// characters it ends with holds a letter (where the scheme can begin). The
// letters are ASCII's and, as (?i) folds them, ſ (s) and the Kelvin sign (k).
func schemeBefore(s string) bool {
	for len(s) > 0 {
		r, n := utf8.DecodeLastRuneInString(s)
		switch {
		case 'a' <= r|0x20 && r|0x20 <= 'z' && r < utf8.RuneSelf, r == '\u017f', r == '\u212a':
			return true
		case '0' <= r && r <= '9', r == '+', r == '.', r == '-':
			s = s[:len(s)-n]
		default:
			return false
		}
	}
	return false
}

// passwordParam is the expression's second form: password=, passwd= or
// pwd= in any case (ſ for s), not after an ASCII word character, followed
// by a character other than ; & or ASCII white space.
func passwordParam(v string) bool {
	for i := 0; i < len(v); i++ {
		if v[i]|0x20 != 'p' || i > 0 && isWordByte(v[i-1]) {
			continue
		}
		for _, key := range []string{"password", "passwd", "pwd"} {
			n := foldedPrefix(v[i:], key)
			if n < 0 || i+n+1 >= len(v) || v[i+n] != '=' {
				continue
			}
			switch v[i+n+1] {
			case ';', '&', ' ', '\t', '\n', '\f', '\r':
			default:
				return true
			}
		}
	}
	return false
}

// foldedPrefix returns the length of the prefix of s that is key (ASCII
// lower case letters) in any case, ſ standing for s; -1 when there is none.
func foldedPrefix(s, key string) int {
	n := 0
	for i := 0; i < len(key); i++ {
		switch {
		case n < len(s) && s[n]|0x20 == key[i]:
			n++
		case key[i] == 's' && strings.HasPrefix(s[n:], "\u017f"):
			n += len("\u017f")
		default:
			return -1
		}
	}
	return n
}

// isWordByte reports whether c is an ASCII word character (\b's).
func isWordByte(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c|0x20 && c|0x20 <= 'z' || c == '_'
}

// ScrubbedEnv returns the environment of a process clawseed starts for the
// model, from environ (clawseed's own) and passthrough
// ([autonomy].env_passthrough: names or globs, compared case-insensitively):
// the variables named in childEnvNames or matched by passthrough, except
// those that look like secrets (by name or value) unless passthrough names
// them exactly, and never clawseed's own or the shell's start-up variables
// (neverChildEnv). GIT_TERMINAL_PROMPT=0 is added so that git never waits
// for a password.
func ScrubbedEnv(environ, passthrough []string) []string {
	env := make([]string, 0, len(childEnvNames)+len(passthrough)+1)
	for _, kv := range environ {
		name, value, ok := strings.Cut(kv, "=")
		if ok && name != "" && childEnvAllowed(name, value, passthrough) {
			env = append(env, kv)
		}
	}
	return append(env, "GIT_TERMINAL_PROMPT=0")
}

// childEnvAllowed reports whether the variable may reach a child.
func childEnvAllowed(name, value string, passthrough []string) bool {
	if slices.Contains(neverChildEnvNames, name) || hasAnyPrefix(strings.ToUpper(name), neverChildEnvPrefixes) {
		return false
	}
	if namedExactly(passthrough, name) {
		return true // the user wants this one, secret or not
	}
	listed := slices.Contains(childEnvNames, name) || hasAnyPrefix(name, childEnvPrefixes) || envNameMatches(passthrough, name)
	return listed && !IsSecretEnv(name, value)
}

// namedExactly reports whether one of the passthrough entries is the name
// itself (in any case), not a glob that happens to match it.
func namedExactly(passthrough []string, name string) bool {
	for _, p := range passthrough {
		if !strings.ContainsAny(p, `*?[\`) && strings.EqualFold(p, name) {
			return true
		}
	}
	return false
}

func hasAnyPrefix(s string, prefixes []string) bool {
	for _, p := range prefixes {
		if strings.HasPrefix(s, p) {
			return true
		}
	}
	return false
}

// IsSecretEnv reports whether an environment variable looks like it holds a
// credential: by its name (secretEnvPatterns) or by its value
// (secretValueIn).
// It is the one rule behind both the children's environment
// ([ScrubbedEnv]) and the hiding of values from /proc/PID/environ
// (internal/procenv).
func IsSecretEnv(name, value string) bool {
	return IsSecretEnvName(name) || secretValueIn(value)
}

// IsSecretEnvName reports whether an environment variable's name looks like
// it holds a credential (see secretEnvPatterns).
func IsSecretEnvName(name string) bool {
	return !slices.Contains(notSecretEnvNames, strings.ToUpper(name)) && envNameMatches(secretEnvPatterns[:], name)
}

// envNameMatches reports whether name matches one of the [path.Match]
// patterns, case-insensitively. A "/" in a name is compared as "_" so that
// "*" spans it (names may contain any byte but "=" and NUL); a malformed
// pattern matches nothing.
func envNameMatches(patterns []string, name string) bool {
	name = strings.ToUpper(strings.ReplaceAll(name, "/", "_"))
	for _, p := range patterns {
		if globMatch(strings.ToUpper(p), name) {
			return true
		}
	}
	return false
}

// globMatch is path.Match(pattern, name) for a name without "/". The
// patterns of secretEnvPatterns, and most of env_passthrough's, are a
// literal with a "*" at one end or both (or none): those are compared with
// strings.Contains, HasPrefix, HasSuffix or ==, which give path.Match's
// answer (its "*" spans any bytes but "/", its literals compare bytes)
// without its backtracking, since IsSecretEnvName runs every pattern on
// every variable at each start. Other patterns go to path.Match; a
// malformed one matches nothing.
func globMatch(pattern, name string) bool {
	lit, lead := strings.CutPrefix(pattern, "*")
	lit, trail := strings.CutSuffix(lit, "*")
	if hasGlobMeta(lit) {
		ok, _ := path.Match(pattern, name)
		return ok
	}
	switch {
	case lead && trail:
		return strings.Contains(name, lit)
	case lead:
		return strings.HasSuffix(name, lit)
	case trail:
		return strings.HasPrefix(name, lit)
	}
	return name == lit
}

// hasGlobMeta reports whether s holds one of path.Match's special bytes
// (a loop: strings.ContainsAny costs more for these short strings).
func hasGlobMeta(s string) bool {
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '*', '?', '[', '\\':
			return true
		}
	}
	return false
}
