package config

import (
	"strings"
	"testing"
)

// TestStorage: [storage] decodes strictly, files is the default, and every
// bad value is an *Error at the file, line and key that set it; the
// postgres URL's unset ${VAR} is reported when the store is opened, not at
// load.
func TestStorage(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		file string
		env  env
		// loadErr is the message of Load's error ("" loads), at line
		// errLine and key errKey.
		loadErr string
		errLine int
		errKey  string
		// urlErr is PostgresURL's error ("" returns wantURL).
		urlErr  string
		wantURL string
		backend string
	}{
		{name: "default", file: "", backend: "files", urlErr: "needs storage.postgres_url"},
		{name: "files with unset url", file: "[storage]\npostgres_url = \"${DATABASE_URL}\"\n", backend: "files",
			urlErr: "environment variable DATABASE_URL is not set"},
		{name: "postgres url", file: "[storage]\nbackend = \"postgres\"\npostgres_url = \"postgres://u:p@db:5432/cs\"\npool_size = 3\n",
			backend: "postgres", wantURL: "postgres://u:p@db:5432/cs"},
		{name: "postgres from env", file: "[storage]\nbackend = \"postgres\"\npostgres_url = \"${DATABASE_URL}\"\n",
			env: env{"DATABASE_URL": "postgresql://db/cs"}, backend: "postgres", wantURL: "postgresql://db/cs"},
		{name: "postgres key=value", file: "[storage]\nbackend = \"postgres\"\npostgres_url = \"host=/run/pg dbname=cs\"\n",
			backend: "postgres", wantURL: "host=/run/pg dbname=cs"},
		{name: "postgres env unset", file: "[storage]\nbackend = \"postgres\"\npostgres_url = \"${DATABASE_URL}\"\n",
			backend: "postgres", urlErr: ":3: storage.postgres_url: environment variable DATABASE_URL is not set"},
		{name: "unknown backend", file: "[storage]\nbackend = \"sqlite\"\n", loadErr: `invalid value "sqlite" (want files, postgres)`, errLine: 2, errKey: "storage.backend"},
		{name: "postgres without url", file: "[storage]\nbackend = \"postgres\"\n", loadErr: "needs storage.postgres_url", errLine: 2, errKey: "storage.backend"},
		{name: "postgres empty url", file: "[storage]\nbackend = \"postgres\"\npostgres_url = \"\"\n", loadErr: "needs a database", errLine: 3, errKey: "storage.postgres_url"},
		{name: "other scheme", file: "[storage]\nbackend = \"postgres\"\npostgres_url = \"mysql://u:secret@db/cs\"\n", loadErr: "must be postgres:// or postgresql://", errLine: 3, errKey: "storage.postgres_url"},
		{name: "bad url", file: "[storage]\nbackend = \"postgres\"\npostgres_url = \"postgres://u:secret@%zz/\"\n", loadErr: "not a valid URL", errLine: 3, errKey: "storage.postgres_url"},
		{name: "neither url nor settings", file: "[storage]\nbackend = \"postgres\"\npostgres_url = \"db.example\"\n", loadErr: "want a postgres:// URL", errLine: 3, errKey: "storage.postgres_url"},
		{name: "pool size", file: "[storage]\npool_size = 0\n", loadErr: "must be between 1 and 1000", errLine: 2, errKey: "storage.pool_size"},
		{name: "unknown key", file: "[storage]\nurl = \"x\"\n", loadErr: "unknown", errLine: 2, errKey: "storage.url"},
		{name: "wrong type", file: "[storage]\npool_size = \"10\"\n", loadErr: "", errLine: 2, errKey: "storage.pool_size"},
		{name: "postgres with daily_log", file: "[storage]\nbackend = \"postgres\"\npostgres_url = \"postgres://db/cs\"\n[memory]\nmode = \"daily_log\"\n",
			loadErr: "daily_log keeps the daily logs in files of one machine", errLine: 5, errKey: "memory.mode"},
		{name: "postgres with daily_log, memory off", file: "[storage]\nbackend = \"postgres\"\npostgres_url = \"postgres://db/cs\"\n[memory]\nenabled = false\nmode = \"daily_log\"\n",
			backend: "postgres", wantURL: "postgres://db/cs"},
		{name: "files with daily_log", file: "[memory]\nmode = \"daily_log\"\n", backend: "files", urlErr: "needs storage.postgres_url"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := newSandbox(t)
			path := writeFile(t, s.userFile(), tt.file)
			c, err := Load(s.opts(tt.env))
			if tt.errKey != "" {
				if err == nil {
					t.Fatal("loads")
				}
				ce := asConfigError(t, err)
				if ce.File != path || ce.Line != tt.errLine || ce.Key != tt.errKey || !strings.Contains(ce.Msg, tt.loadErr) {
					t.Errorf("error %+v, want %s:%d key %s with %q", ce, path, tt.errLine, tt.errKey, tt.loadErr)
				}
				if strings.Contains(err.Error(), "secret") {
					t.Errorf("the error repeats the password: %v", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if c.Storage.Backend != tt.backend {
				t.Errorf("backend %q, want %q", c.Storage.Backend, tt.backend)
			}
			if c.Storage.Backend == StoragePostgres {
				// config check fails where the session would.
				err := c.CheckSession(nil)
				if (err != nil && strings.Contains(err.Error(), "DATABASE_URL")) != (tt.urlErr != "") {
					t.Errorf("CheckSession: %v", err)
				}
			}
			url, err := c.PostgresURL()
			switch {
			case tt.urlErr != "":
				if err == nil || !strings.Contains(err.Error(), tt.urlErr) {
					t.Errorf("PostgresURL: %v, want an error with %q", err, tt.urlErr)
				}
				asConfigError(t, err)
			case err != nil:
				t.Errorf("PostgresURL: %v", err)
			case url != tt.wantURL:
				t.Errorf("PostgresURL = %q, want %q", url, tt.wantURL)
			}
		})
	}
}

// TestStorageProjectFile: a project file, trusted or not, cannot send the
// sessions elsewhere when untrusted; `config show` masks the URL's password.
func TestStorageProjectFile(t *testing.T) {
	t.Parallel()
	s := newSandbox(t)
	writeFile(t, s.userFile(), "[storage]\nbackend = \"postgres\"\npostgres_url = \"postgres://me:hunter2-long-password@db/cs\"\n")
	writeFile(t, s.projectFile(), "[storage]\nbackend = \"files\"\npostgres_url = \"postgres://them:x@evil.example/loot\"\npool_size = 2\n")
	opts := s.opts(nil)
	opts.Trusted = func(string) (bool, string) { return false, "" }
	c := mustLoad(t, opts)
	if c.Storage.Backend != "postgres" || !strings.Contains(c.Storage.PostgresURL, "@db/cs") || c.Storage.PoolSize != 10 {
		t.Errorf("untrusted project changed [storage]: %+v", c.Storage)
	}
	var ignored []string
	for _, ig := range c.Ignored {
		ignored = append(ignored, ig.Key)
	}
	if strings.Join(ignored, " ") != "storage.backend storage.postgres_url storage.pool_size" {
		t.Errorf("ignored %v", ignored)
	}
	var out strings.Builder
	if err := c.Show(&out); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(out.String(), "hunter2") {
		t.Errorf("config show prints the database password:\n%s", out.String())
	}
}
