package app

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/clawseed/clawseed/cmd/clawseed/internal/config"
	"github.com/clawseed/clawseed/internal/atomicfile"
	"github.com/clawseed/clawseed/internal/confine"
)

// The skill cache file is named for the discovery's options
// (skills.CacheFileName), which come from the configuration; but reading
// the configuration takes half a millisecond, and with a thousand skills
// loading and checking the file takes longer than the rest of a start. So
// the commands that start a session call [Process.PrefetchSkills] before
// they read the configuration: it loads and checks, on other cores, the
// file that the last session started in the same folder used, which a
// hint file in the cache folder names; Build takes that work over when its
// own file is the same one, and otherwise loads its own and rewrites the
// hint. The hint only chooses which of CLAWSEED_HOME's own cache files to
// load early: a file is used only when it is the one Build would load.

// An earlySkillCache is the work [Process.PrefetchSkills] started.
type earlySkillCache struct {
	// hint is the hint file, path the cache file it named ("" when it
	// named none), and load the load and check of path started on
	// another goroutine (nil when none was).
	hint, path string
	load       func() loadedSkillCache
	mu         sync.Mutex
	taken      bool // by the first session or discovery that looked
}

// PrefetchSkills starts loading and checking the skill cache file that
// the last session started in cwd used (see above). A process calls it
// once, before it reads the configuration of the session it builds.
func (p *Process) PrefetchSkills(cwd string) {
	if p == nil {
		return
	}
	userHome, _ := os.UserHomeDir()
	home, err := config.HomeDir(os.Getenv("CLAWSEED_HOME"), userHome, cwd)
	if err != nil {
		return
	}
	e := &earlySkillCache{hint: startHintPath(home, cwd)}
	if name := readStartHint(e.hint); name != "" {
		e.path = filepath.Join(home, "cache", name)
		e.load = soon(func() loadedSkillCache { return loadChecked(e.path, p) })
	}
	p.early.Store(e)
}

// startHintPath is the hint file of the sessions started in cwd.
func startHintPath(home, cwd string) string {
	sum := sha256.Sum256([]byte(cwd))
	return filepath.Join(home, "cache", "start-"+hex.EncodeToString(sum[:8]))
}

// readStartHint returns the cache file name the hint file holds, "" when
// there is none or it is not the name of a skill cache file. It is read as
// any file: a regular file only (a FIFO is never opened) of 64 bytes at
// most.
func readStartHint(hint string) string {
	data, err := confine.Read(hint, confine.Options{Unconfined: true, Max: 64})
	if err != nil {
		return ""
	}
	name := string(data)
	if !strings.HasPrefix(name, "skills-") || !strings.HasSuffix(name, ".bin") || strings.ContainsAny(name, `/\`) || name != filepath.Base(name) {
		return ""
	}
	return name
}

// takeEarlySkillCache returns the load [Process.PrefetchSkills] started
// when it was of path, once; nil otherwise. When the hint did not name
// path, it is rewritten in the background to name it.
func (p *Process) takeEarlySkillCache(path string) func() loadedSkillCache {
	if p == nil {
		return nil
	}
	e := p.early.Load()
	if e == nil || path == "" {
		return nil
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.taken {
		return nil
	}
	e.taken = true
	if e.path == path {
		return e.load
	}
	e.load = nil // what it loads is garbage once its goroutine ends
	if filepath.Dir(e.hint) == filepath.Dir(path) {
		p.goBackground(func() {
			os.MkdirAll(filepath.Dir(path), 0o700)
			atomicfile.WriteCache(e.hint, []byte(filepath.Base(path)), 0o600)
		})
	}
	return nil
}
