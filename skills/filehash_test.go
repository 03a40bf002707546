package skills

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"testing"
)

// A skill carries the SHA-256 of each file it was built from, as read at
// discovery and again at every re-read: the agent compares them before a
// skill's allowed-tools count (issue 20, item 1).
func TestSkillFileHashes(t *testing.T) {
	t.Parallel()
	sum := func(s string) string {
		h := sha256.Sum256([]byte(s))
		return hex.EncodeToString(h[:])
	}
	dir := filepath.Join(t.TempDir(), "style")
	md := "---\nname: style\ndescription: Styles.\nallowed-tools: Bash\n---\nBody.\n"
	manifest := "[skill]\nname = \"style\"\n"
	writeTestFile(t, filepath.Join(dir, "SKILL.md"), md)
	s, diags := LoadDir(dir, Options{})
	if s == nil {
		t.Fatal(diags)
	}
	if s.SkillHash != sum(md) || s.ManifestHash != "" {
		t.Errorf("hashes = %q, %q; want %q and none", s.SkillHash, s.ManifestHash, sum(md))
	}
	writeTestFile(t, filepath.Join(dir, "manifest.toml"), manifest)
	md2 := md + "More.\n"
	writeTestFile(t, filepath.Join(dir, "SKILL.md"), md2)
	n, err := Reread(s, 0)
	if err != nil {
		t.Fatal(err)
	}
	if n.SkillHash != sum(md2) || n.ManifestHash != sum(manifest) {
		t.Errorf("re-read hashes = %q, %q; want %q, %q", n.SkillHash, n.ManifestHash, sum(md2), sum(manifest))
	}
	if FileHash(nil) != "" || FileHash([]byte{}) != sum("") {
		t.Error("FileHash must tell no file from an empty one")
	}
}

func writeTestFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}
