package config

import (
	"net/url"
	"strings"
)

// Storage is the [storage] table: what keeps the sessions and the
// memories (and the server's event log, the scheduled jobs). "files" is the JSONL files of [sessions].dir, the
// default; "postgres" is a PostgreSQL database that several `clawseed
// serve` replicas share.
type Storage struct {
	Backend string `toml:"backend"`
	// PostgresURL is the database of the postgres backend: a URL
	// (postgres://user:pass@host:5432/db?sslmode=require) or a libpq
	// key=value string. It holds a password: `config show` masks it.
	PostgresURL string `toml:"postgres_url"`
	// PoolSize is the most connections a process keeps for short queries;
	// each session with a turn running holds one more of its own (its
	// lock).
	PoolSize int `toml:"pool_size"`
}

// The values of [storage].backend.
const (
	StorageFiles    = "files"
	StoragePostgres = "postgres"
)

// checkStorage validates [storage] at load. The URL is checked only for
// the postgres backend (`postgres_url = "${DATABASE_URL}"` with the files
// backend is no error), and an unset ${VAR} in it only when the store is
// opened ([Config.PostgresURL]), as every ${VAR} is: `config show` works
// without it.
func (c *Config) checkStorage() error {
	if err := c.oneOf("storage.backend", c.Storage.Backend, StorageFiles, StoragePostgres); err != nil {
		return err
	}
	if err := c.checkInt(between("storage.pool_size", c.Storage.PoolSize, 1, 1000)); err != nil {
		return err
	}
	if c.Storage.Backend == StoragePostgres && c.Memory.Enabled && c.Memory.Mode == MemoryModeDailyLog {
		// The logs are files of one machine, distilled there: replicas
		// sharing the memory in the database would each keep their own.
		return c.invalid("memory.mode", `daily_log keeps the daily logs in files of one machine, which the postgres backend's replicas do not share: with [storage].backend = "postgres" use mode = "topics" (memory_store saves to the database)`)
	}
	if _, unset := c.unresolved["storage.postgres_url"]; c.Storage.Backend == StoragePostgres && !unset {
		_, err := c.PostgresURL()
		return err
	}
	return nil
}

// PostgresURL returns [storage].postgres_url for the postgres backend: an
// unset ${VAR} in it, an empty value and a URL that is not a postgres://
// one are *[Error]s at the key.
func (c *Config) PostgresURL() (string, error) {
	const key = "storage.postgres_url"
	if err := c.usedAtLoad(key); err != nil {
		return "", err
	}
	s := strings.TrimSpace(c.Storage.PostgresURL)
	if s == "" {
		if _, set := c.sources[key]; !set {
			// Nothing to point at but the choice of backend.
			return "", c.invalid("storage.backend", `the postgres backend needs storage.postgres_url = "postgres://user:password@host:5432/clawseed" (or "${DATABASE_URL}")`)
		}
		return "", c.invalid(key, `the postgres backend needs a database: postgres_url = "postgres://user:password@host:5432/clawseed" (or "${DATABASE_URL}")`)
	}
	if strings.Contains(s, "://") {
		u, err := url.Parse(s)
		if err != nil {
			// url's message quotes the URL, password and all.
			return "", c.invalid(key, "not a valid URL")
		}
		if u.Scheme != "postgres" && u.Scheme != "postgresql" {
			return "", c.invalid(key, "the URL's scheme must be postgres:// or postgresql://, not "+u.Scheme+"://")
		}
	} else if !strings.Contains(s, "=") {
		return "", c.invalid(key, `want a postgres:// URL or libpq key=value settings ("host=... dbname=...")`)
	}
	return s, nil
}
