package server

import (
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"

	"github.com/clawseed/clawseed/cmd/clawseed/internal/app"
	"github.com/clawseed/clawseed/cmd/clawseed/internal/config"
)

// The server's rule for a workspace, in one place (every request that
// names one, and every saved session a request reaches, goes through
// [Server.workspace]):
//
//  1. the path is absolute, without ".." or NUL (config.WorkspacePathProblem): 400;
//  2. it resolves (symlinks followed) to a directory: 400 — unless the
//     caller's token may not use the path, which is 403 whatever exists
//     there, so a token learns nothing of paths it may not use;
//  3. the caller's token lists it (its real path; the token's workspaces
//     were resolved at start): 403;
//  4. the trust store of the server's CLAWSEED_HOME trusts it: 403.

// workspace resolves the workspace raw that p asks for, and checks it.
func (s *Server) workspace(p *principal, raw string) (string, *apiError) {
	if msg := config.WorkspacePathProblem(raw); msg != "" {
		return "", errorf(http.StatusBadRequest, "bad_workspace", "workspace %q: %s", raw, msg)
	}
	clean := filepath.Clean(raw)
	real, err := filepath.EvalSymlinks(clean)
	if err != nil {
		if !p.allows(clean) {
			return "", forbiddenWorkspace(clean)
		}
		return "", errorf(http.StatusBadRequest, "bad_workspace", "workspace %q: no such directory on the server", raw)
	}
	if !p.allows(real) {
		return "", forbiddenWorkspace(clean)
	}
	fi, err := os.Stat(real)
	if err != nil || !fi.IsDir() {
		return "", errorf(http.StatusBadRequest, "bad_workspace", "workspace %q is not a directory", raw)
	}
	return real, s.trusted(real)
}

// trusted checks step 4 of the rule for a resolved workspace.
func (s *Server) trusted(real string) *apiError {
	ok, why, err := app.StoreTrusts(s.cfg, real)
	if err != nil {
		s.log.Error("Trust store unreadable", "error", err)
		return errorf(http.StatusInternalServerError, "trust_store", "the server's trust store cannot be read")
	}
	switch {
	case !ok && why != "":
		// Trusted once, but a project file changed since: whoever can
		// write the workspace must not be able to grant themselves what
		// trust gives, so the user looks at the change and trusts again.
		return errorf(http.StatusForbidden, "workspace_untrusted",
			"workspace %s is not trusted on the server: %s (check the change, then run `clawseed trust %s` there)", real, why, real)
	case !ok:
		return errorf(http.StatusForbidden, "workspace_untrusted",
			"workspace %s is not trusted on the server (run `clawseed trust %s` there)", real, real)
	}
	return nil
}

func forbiddenWorkspace(path string) *apiError {
	return errorf(http.StatusForbidden, "workspace_forbidden", "this token may not use the workspace %s", path)
}

// errBadID is the error of a session id that cannot be one.
var errBadID = errors.New("invalid session id")

// checkSessionID accepts the ids sessions have (session.NewID:
// 20261122-031937-a1b2c3) and any other plain file name of letters,
// digits, ".", "_" and "-" up to 128 bytes that does not start with "."
// or hold "..": an id names a file in the stores.
func checkSessionID(id string) error {
	if id == "" || len(id) > 128 || id[0] == '.' || containsDotDot(id) {
		return fmt.Errorf("%w %q", errBadID, id)
	}
	for _, c := range []byte(id) {
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9', c == '.', c == '_', c == '-':
		default:
			return fmt.Errorf("%w %q", errBadID, id)
		}
	}
	return nil
}

func containsDotDot(s string) bool {
	for i := 0; i+1 < len(s); i++ {
		if s[i] == '.' && s[i+1] == '.' {
			return true
		}
	}
	return false
}
