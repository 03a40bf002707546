package tools

import (
	"path"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestIsSecretEnvName(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		want bool
	}{
		// credentials by their usual fragments, in any case
		{"GITHUB_TOKEN", true}, {"openai_api_key", true}, {"Client_Secret", true}, {"PGPASSWORD", true},
		{"MYSQL_PASSWD", true}, {"AZURE_CREDENTIALS", true}, {"GOOGLE_APPLICATION_CREDENTIALS", true},
		{"AWS_SECRET_ACCESS_KEY", true}, {"APIKEY", true}, {"KEY", true},
		// personal access tokens, DSNs, auth material
		{"GITHUB_PAT", true}, {"gitlab_pat", true}, {"SENTRY_DSN", true}, {"db_dsn", true},
		{"HTTP_AUTH", true}, {"BASIC_AUTH_HEADER", true}, {"NPM_AUTH_TOKEN", true}, {"SSH_AUTH_SOCK", true},
		{"MY_CREDENTIAL_FILE", true}, {"CREDENTIALS", true}, {"AUTH", true}, {"AUTH_HEADER", true},
		{"HTTP_AUTHORIZATION", true}, {"DOCKER_AUTH_CONFIG", true},
		// connection strings
		{"DATABASE_URL", true}, {"database_url", true}, {"TEST_DATABASE_URL", true},
		{"SQL_CONNECTION_STRING", true}, {"AzureWebJobsStorage_CONNECTION_STRING", true},
		// passwords by other names, webhooks, tokens by other names (issue 20)
		{"MYSQL_PWD", true}, {"DBPWD", true}, {"SSHPASS", true}, {"SMTP_PASS", true}, {"PASS", true},
		{"GPG_PASSPHRASE", true}, {"SLACK_WEBHOOK_URL", true}, {"DISCORD_WEBHOOK", true},
		{"MY_JWT", true}, {"JWT_SIGNING", true}, {"SESSION_COOKIE", true}, {"cookie_jar", true},
		// odd names: "/" does not stop a pattern, "=" never reaches here
		{"A/B_TOKEN", true}, {"X/DATABASE_URL", true},
		// ordinary variables
		{"PATH", false}, {"HOME", false}, {"LANG", false}, {"TERM", false}, {"PWD", false}, {"OLDPWD", false},
		{"SHELL", false}, {"PATTERN", false}, {"PAT", false}, {"XAUTHORITY", false}, {"AUTHOR", false},
		{"GIT_AUTHOR_NAME", false}, {"GIT_AUTHOR_EMAIL", false}, {"GIT_AUTHOR_DATE", false},
		{"DSN_HOST", false}, {"DATABASE_HOST", false}, {"CONNECTION_STRING_FORMAT", false}, {"", false},
		{"XDG_SESSION_ID", false}, {"DBUS_SESSION_BUS_ADDRESS", false}, {"PASSENGER_ENV", false},
	}
	for _, tt := range tests {
		if got := IsSecretEnvName(tt.name); got != tt.want {
			t.Errorf("IsSecretEnvName(%q) = %v, want %v", tt.name, got, tt.want)
		}
	}
}

// A value can be a secret whatever its variable is called: a URL with
// user:password@, a connection string with a password.
func TestIsSecretEnvValue(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, value string
		want        bool
	}{
		{"REDIS_URL", "redis://u:p@h:6379/0", true},
		{"MONGODB_URI", "mongodb+srv://admin:hunter2@cluster0.example.net/db", true},
		{"HTTPS_PROXY", "http://alice:s3cret@proxy:3128", true},
		{"ALL_PROXY", "socks5h://:tok@proxy", true},
		{"SERVICES", "a=https://x.example b=ftp://u:p@files", true},
		{"SQLSERVER", "Server=x;Database=y;Password=p", true},
		{"CALLBACK", "https://h/cb?user=a&pwd=b", true},
		{"HTTPS_PROXY", "http://proxy:3128", false},
		{"GIT_REMOTE", "ssh://git@github.com/o/r.git", false},
		{"REDIS_URL", "redis://h:6379/0", false},
		{"NOTE", "time: 10:30@home", false},
		{"EMPTY", "password=", false},
	}
	for _, tt := range tests {
		if got := IsSecretEnv(tt.name, tt.value); got != tt.want {
			t.Errorf("IsSecretEnv(%q, %q) = %v, want %v", tt.name, tt.value, got, tt.want)
		}
	}
}

// The children's environment is an allowlist: harmless names, plus
// env_passthrough; a secret-looking variable only when passthrough names it
// exactly; clawseed's own variables and the shell's start-up variables
// never.
func TestScrubbedEnv(t *testing.T) {
	t.Parallel()
	environ := []string{
		"PATH=/bin", "HOME=/h", "LANG=C.UTF-8", "LC_ALL=C", "TERM=xterm", "TZ=UTC", "PWD=/elsewhere",
		"HTTPS_PROXY=http://proxy:3128", "https_proxy=http://u:pw@proxy:3128", "GIT_AUTHOR_NAME=A",
		"FOO_BAR=f", "GITHUB_TOKEN=g", "SSH_AUTH_SOCK=/s", "NPM_TOKEN=n", "NPM_CONFIG_CACHE=/c",
		"MYSQL_PWD=m", "REDIS_URL=redis://u:p@h", "SLACK_WEBHOOK_URL=https://hooks/x",
		"CLAWSEED_TRUST_WORKSPACE=1", "CLAWSEED_API_KEY=k", "BASH_ENV=/x", "ENV=/x", "BASH_FUNC_ls%%=() { id; }",
		"SHELLOPTS=xtrace", "PS4=$(id)", "IFS=/", "LC_X_TOKEN=t", "noequals", "=empty",
	}
	base := []string{"PATH=/bin", "HOME=/h", "LANG=C.UTF-8", "LC_ALL=C", "TERM=xterm", "TZ=UTC",
		"HTTPS_PROXY=http://proxy:3128", "GIT_AUTHOR_NAME=A"}
	tests := []struct {
		name        string
		passthrough []string
		add         []string // beyond base
	}{
		{"allowlist only", nil, nil},
		{"a plain name", []string{"FOO_BAR"}, []string{"FOO_BAR=f"}},
		{"a glob passes plain names, not secret ones", []string{"NPM_*"}, []string{"NPM_CONFIG_CACHE=/c"}},
		{"secret names named exactly, in any case", []string{"ssh_auth_sock", "GITHUB_TOKEN", "MYSQL_PWD"},
			[]string{"GITHUB_TOKEN=g", "SSH_AUTH_SOCK=/s", "MYSQL_PWD=m"}},
		{"a secret value named exactly", []string{"REDIS_URL", "https_proxy"},
			[]string{"https_proxy=http://u:pw@proxy:3128", "REDIS_URL=redis://u:p@h"}},
		{"a glob does not pass a secret value", []string{"REDIS_*", "*_PROXY"}, nil},
		{"everything", []string{"*"}, []string{"FOO_BAR=f", "NPM_CONFIG_CACHE=/c", "PWD=/elsewhere"}},
		{"never clawseed's or the shell's start-up variables", []string{"CLAWSEED_TRUST_WORKSPACE", "CLAWSEED_*",
			"BASH_ENV", "ENV", "BASH_FUNC_ls%%", "SHELLOPTS", "PS4", "IFS"}, nil},
		{"a bad pattern matches nothing", []string{"[", ""}, nil},
	}
	for _, tt := range tests {
		got := ScrubbedEnv(environ, tt.passthrough)
		var want []string
		for _, kv := range environ { // in environ's order
			if slices.Contains(base, kv) || slices.Contains(tt.add, kv) {
				want = append(want, kv)
			}
		}
		want = append(want, "GIT_TERMINAL_PROMPT=0")
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%s: passthrough %q (-want +got):\n%s", tt.name, tt.passthrough, diff)
		}
	}
}

// Through the shell tool: `env` shows the allowlist and passthrough, never a
// secret.
func TestShellEnvironment(t *testing.T) {
	t.Parallel()
	environ := []string{"PATH=/usr/bin:/bin", "GITHUB_TOKEN=g", "SSH_AUTH_SOCK=/s", "MYSQL_PWD=m", "PLAIN=p", "CLAWSEED_HOME=/c"}
	e := newTestEnv(t)
	tl := e.tool(t, "shell", CoreOptions{Environ: environ, EnvPassthrough: []string{"ssh_auth_sock", "PLAIN"}})
	got := call(t, tl, map[string]any{"command": "env | sort"}).Content
	for _, want := range []string{"PATH=/usr/bin:/bin\n", "SSH_AUTH_SOCK=/s\n", "PLAIN=p\n", "GIT_TERMINAL_PROMPT=0\n"} {
		if !strings.Contains(got, want) {
			t.Errorf("env lacks %q:\n%s", want, got)
		}
	}
	for _, absent := range []string{"GITHUB_TOKEN", "MYSQL_PWD", "CLAWSEED_"} {
		if strings.Contains(got, absent) {
			t.Errorf("env shows %s:\n%s", absent, got)
		}
	}
}

// git and ripgrep get their environment from the same function: no secret,
// no unlisted variable, no CLAWSEED_* variable.
func TestChildEnvOfGitAndRipgrep(t *testing.T) {
	t.Parallel()
	environ := []string{"PATH=/bin", "HOME=/h", "LANG=C", "MYSQL_PWD=m", "REDIS_URL=redis://u:p@h", "FOO_BAR=f",
		"CLAWSEED_TRUST_WORKSPACE=1", "GIT_AUTHOR_NAME=A", "GIT_DIR=/elsewhere", "HTTPS_PROXY=http://u:p@proxy"}
	for name, env := range map[string][]string{"git": gitEnv(environ, nil), "ripgrep": searchEnv(environ)} {
		got := strings.Join(env, "\n")
		for _, absent := range []string{"MYSQL_PWD", "REDIS_URL", "FOO_BAR", "CLAWSEED_", "GIT_DIR", "HTTPS_PROXY"} {
			if strings.Contains(got, absent) {
				t.Errorf("%s's environment has %s:\n%s", name, absent, got)
			}
		}
		if !slices.Contains(env, "PATH=/bin") || !slices.Contains(env, "LANG=C") {
			t.Errorf("%s's environment lacks PATH or LANG:\n%s", name, got)
		}
	}
	if env := gitEnv(environ, nil); !slices.Contains(env, "GIT_AUTHOR_NAME=A") {
		t.Errorf("git's environment lacks the commit identity: %q", env)
	}
}

// globMatchNames and globMatchPatterns are the table globMatch is checked
// on against path.Match: the secret patterns, the shapes env_passthrough
// may take, and names around each.
var (
	globMatchNames = []string{
		"", "KEY", "MY_KEY", "KEYS", "APIKEY_X", "PASS", "SSHPASS", "PASSX", "AUTH", "AUTH_", "_AUTH",
		"X_AUTH_Y", "XAUTHORITY", "GIT_AUTHOR_NAME", "DATABASE_URL", "TEST_DATABASE_URL", "A_PAT", "PAT",
		"*", "**", "A*B", "A?B", "[", "\\", "K\xffEY", "\xff", "ÄKEY", "ǅ", "LC_ALL", "LC_", "LANG",
	}
	globMatchPatterns = append(slices.Clone(secretEnvPatterns[:]),
		"", "*", "**", "***", "KEY", "KEY*", "*KEY", "*KEY*", "**KEY", "KEY**", "LC_*", "*_", "_*",
		"A*B", "?KEY", "K?Y", "[A-Z]*", "[", "*[", "\\*", "*\\", "\\", "A\\*B*", "*\xff*", "*Ä*", "*\xff",
	)
)

// globMatch gives path.Match's answers.
func TestGlobMatchIsPathMatch(t *testing.T) {
	t.Parallel()
	for _, p := range globMatchPatterns {
		for _, name := range append(slices.Clone(globMatchNames), globMatchPatterns...) {
			if strings.Contains(name, "/") {
				continue
			}
			want, _ := path.Match(p, name)
			if got := globMatch(p, name); got != want {
				t.Errorf("globMatch(%q, %q) = %v, path.Match says %v", p, name, got, want)
			}
		}
	}
}

func FuzzGlobMatch(f *testing.F) {
	for _, p := range globMatchPatterns {
		for _, n := range globMatchNames {
			f.Add(p, n)
		}
	}
	f.Fuzz(func(t *testing.T, p, name string) {
		name = strings.ReplaceAll(name, "/", "_") // as envNameMatches gives it
		want, _ := path.Match(p, name)
		if got := globMatch(p, name); got != want {
			t.Errorf("globMatch(%q, %q) = %v, path.Match says %v", p, name, got, want)
		}
	})
}

// secretValue is the expression secretValueIn is written from.
var secretValue = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)[a-z][a-z0-9+.-]*://[^/?#@\s]*:[^/?#@\s]*@|\b(?:password|passwd|pwd)=[^;&\s]`)
})

// secretValueValues are values around secretValue's two forms, and a
// usual environment's.
var secretValueValues = []string{
	"", "redis://u:p@h:6379/0", "http://proxy:3128", "x://a:b@", "X://A:B@", "://a:b@", "a:/b:c@",
	"password=x", "PASSWORD=x", "PassWd=x", "pwd=x", "PWD=x", "paſſword=x", "pwd=", "pwd= ", "apwd=x",
	"a;pwd=x", "d=x", "D=x", "wd=x", "RD=x", "pWd=x", "PASSWoRD=x", "pw\x00d=x", "w\xc4=x", "Server=x;Database=y;Password=p", "rs=0:di=01;34:ln=01;36:*.md=00;32",
	"/usr/local/bin:/usr/bin:/bin", "en_US.UTF-8", "xterm-256color", "/home/u", "1", "true",
	"\u212aey://a:b@", "\u017f://a:b@", "1\u017f://a:b@", "1+://a:b@", "+a://a:b@", "a+://a:b@", "é://a:b@",
	"a://a:b/@", "a://a@b:c@", "a://:@", "a:// :b@", "a://a:\x00b@", "a://a:\xffb@", "a://a:b\v@",
	"xa://y://a:b@", "a://a://b:c@", "\xffa://a:b@", "a\xc5\xbf://a:b@", "\xc5a://a:b@",
	"_pwd=x", "é_pwd=x", "épwd=x", "1pwd=x", "-pwd=x", "pwd=\xff", "pwd=é", "pwd=\v", "PA\u017f\u017fWD=x", "pa\u017fword=x",
	"pwdpwd=x", "p", "pw", "pwd", "passwor=x", "password=;", "password==", "a://a:b@ pwd=",
}

// secretValueIn gives the expression's answers.
func TestSecretValueInIsRegexp(t *testing.T) {
	t.Parallel()
	for _, v := range secretValueValues {
		if got, want := secretValueIn(v), secretValue().MatchString(v); got != want {
			t.Errorf("secretValueIn(%q) = %v, the expression says %v", v, got, want)
		}
	}
}

func FuzzSecretValueIn(f *testing.F) {
	for _, v := range secretValueValues {
		f.Add(v)
	}
	f.Fuzz(func(t *testing.T, v string) {
		if got, want := secretValueIn(v), secretValue().MatchString(v); got != want {
			t.Errorf("secretValueIn(%q) = %v, the expression says %v", v, got, want)
		}
	})
}

// BenchmarkIsSecretEnv is what procenv.Harden does at each start, over a
// usual environment.
func BenchmarkIsSecretEnv(b *testing.B) {
	env := []string{
		"PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin", "HOME=/home/user", "USER=user",
		"LOGNAME=user", "SHELL=/bin/bash", "TERM=xterm-256color", "LANG=en_US.UTF-8", "PWD=/home/user/src",
		"OLDPWD=/home/user", "EDITOR=vim", "XDG_RUNTIME_DIR=/run/user/1000", "XDG_SESSION_ID=3",
		"DBUS_SESSION_BUS_ADDRESS=unix:path=/run/user/1000/bus", "SSH_AUTH_SOCK=/tmp/ssh-x/agent.1",
		"LS_COLORS=rs=0:di=01;34:ln=01;36:mh=00:pi=40;33:so=01;35:do=01;35:bd=40;33;01:cd=40;33;01",
		"GOPATH=/home/user/go", "SHLVL=1", "_=/usr/bin/clawseed", "OPENAI_API_KEY=sk-x", "COLORTERM=truecolor",
	}
	for b.Loop() {
		for _, kv := range env {
			name, value, _ := strings.Cut(kv, "=")
			IsSecretEnv(name, value)
		}
	}
}
