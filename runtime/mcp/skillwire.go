package mcp

// This file is the wire side of MCP's skills extension (SEP-2640, Final
// 2026-09-13, io.modelcontextprotocol/skills; the stable text is
// modelcontextprotocol/ext-skills specification/stable/skills.mdx): the
// shapes of skills/list, and the checks of one listing entry. What the
// manager does with a checked entry is in skills.go.
//
// The shapes, as the stable specification gives them:
//
//	skills/list  params {cursor?}  result {skills: Skill[], nextCursor?, ttlMs, cacheScope}
//	skills/get   params {uri}      result {skill: Skill, ttlMs, cacheScope}
//	Skill         {uri, frontmatter: {name, description, ...}, resources: SkillResource[] | "dynamic"}
//	SkillResource {uri, digest: "sha256:<64 lowercase hex>", size}
//
// An entry is decoded field by field from its raw JSON, so that one
// malformed entry is one problem and the server's other skills stay.

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"sync"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// SkillsExtension is the capability a server declares, under
// capabilities.extensions, to serve skills.
const SkillsExtension = "io.modelcontextprotocol/skills"

// The method the client sends (the extension reserves the skills/ prefix).
// skills/get is not sent: the specification says a listing entry is
// complete ("a host does not need to call skills/get to complete a listed
// entry"), and clawseed loads only listed skills (it has no way for a
// skill URI to reach it from elsewhere).
const methodSkillsList = "skills/list"

// The limits the specification fixes per skill (every host must accept
// skills up to them, and may refuse larger ones), and clawseed's own caps
// on a server's listing.
const (
	maxSkillResources = 512
	maxSkillTotal     = 16 << 20
	// maxServerSkills bounds the skills taken from one server, and
	// maxSkillPages the pages of its listing: a server that pages for ever
	// must not hold the session's start.
	maxServerSkills = 256
	maxSkillPages   = 64
	// skillReads is how many SKILL.md reads of one server are in flight
	// at once.
	skillReads = 8
	// DefaultMaxSkillFileBytes caps a SKILL.md when Options does not (the
	// skills package's default for files, [skills].max_skill_file_bytes).
	DefaultMaxSkillFileBytes = 256 * 1024
)

type listSkillsParams struct {
	sdk.ParamsBase
	Cursor string `json:"cursor,omitempty"`
}

type listSkillsResult struct {
	sdk.ResultBase
	// Skills stay raw: each entry is checked alone.
	Skills     []json.RawMessage `json:"skills"`
	NextCursor string            `json:"nextCursor,omitempty"`
}

// A skillFile is one file of a skill's manifest.
type skillFile struct {
	URI    string
	Digest string // sha256:<hex>
	Size   int64
}

// A skillEntry is a listing entry that passed [parseSkillEntry].
type skillEntry struct {
	URI string
	// Root is URI without /SKILL.md: the skill's directory.
	Root string
	// Path is the skill path (skill://<path>/SKILL.md without scheme and
	// file), Name its last segment, the frontmatter's name.
	Path, Name string
	// Frontmatter is the entry's frontmatter, as sent.
	Frontmatter map[string]any
	// Files is the manifest in the order sent; SKILL.md is among them.
	Files []skillFile
	// Failed, when set, says why the skill is not offered although its
	// entry was well formed: its files are then not read at all.
	Failed string
}

// skillFile returns the manifest entry of uri.
func (e *skillEntry) file(uri string) (skillFile, bool) {
	for _, f := range e.Files {
		if f.URI == uri {
			return f, true
		}
	}
	return skillFile{}, false
}

var digestRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^sha256:[0-9a-f]{64}$`) })

// parseSkillEntry checks one raw listing entry against the specification.
// The error says what is wrong with it; uri is the entry's uri when it
// could be read ("" otherwise), for the diagnostic.
func parseSkillEntry(raw json.RawMessage, maxFileBytes int64) (e skillEntry, uri string, err error) {
	var w struct {
		URI         *string         `json:"uri"`
		Frontmatter json.RawMessage `json:"frontmatter"`
		Resources   json.RawMessage `json:"resources"`
	}
	if err := json.Unmarshal(raw, &w); err != nil {
		return e, "", fmt.Errorf("malformed skills/list entry: %v", err)
	}
	if w.URI == nil || *w.URI == "" {
		return e, "", fmt.Errorf("malformed skills/list entry: no uri")
	}
	e.URI = *w.URI
	root, ok := strings.CutSuffix(e.URI, "/SKILL.md")
	scheme, path, hasScheme := strings.Cut(root, "://")
	if !ok || !hasScheme || scheme == "" || path == "" {
		return e, e.URI, fmt.Errorf("uri is not <scheme>://<skill-path>/SKILL.md")
	}
	segs := strings.Split(path, "/")
	for _, s := range segs {
		if s == "" || s == "." || s == ".." {
			return e, e.URI, fmt.Errorf("uri has an empty, . or .. path segment")
		}
	}
	e.Root, e.Path, e.Name = root, path, segs[len(segs)-1]

	if err := json.Unmarshal(w.Frontmatter, &e.Frontmatter); err != nil || e.Frontmatter == nil {
		return e, e.URI, fmt.Errorf("frontmatter is not a JSON object")
	}
	name, _ := e.Frontmatter["name"].(string)
	desc, _ := e.Frontmatter["description"].(string)
	switch {
	case name == "":
		return e, e.URI, fmt.Errorf("frontmatter has no name")
	case strings.TrimSpace(desc) == "":
		return e, e.URI, fmt.Errorf("frontmatter has no description")
	case name != e.Name:
		return e, e.URI, fmt.Errorf("frontmatter name %q is not the last segment of the uri (%q)", name, e.Name)
	}

	var dynamic string
	if json.Unmarshal(w.Resources, &dynamic) == nil {
		if dynamic == "dynamic" {
			// The specification lets a host decline them: nothing could
			// be checked, and the skill would be whatever the server
			// sends at each read.
			return e, e.URI, fmt.Errorf(`declined: its files are "dynamic" (no digests), so they cannot be verified`)
		}
		return e, e.URI, fmt.Errorf(`resources is neither a list nor "dynamic"`)
	}
	var files []struct {
		URI    *string `json:"uri"`
		Digest *string `json:"digest"`
		Size   *int64  `json:"size"`
	}
	if len(w.Resources) == 0 || json.Unmarshal(w.Resources, &files) != nil {
		return e, e.URI, fmt.Errorf(`resources is missing or neither a list nor "dynamic"`)
	}
	if len(files) > maxSkillResources {
		return e, e.URI, fmt.Errorf("%d files (the limit is %d)", len(files), maxSkillResources)
	}
	var total int64
	seen := map[string]bool{}
	for i, f := range files {
		switch {
		case f.URI == nil || f.Digest == nil || f.Size == nil:
			return e, e.URI, fmt.Errorf("resources[%d] lacks uri, digest or size", i)
		case !digestRE().MatchString(*f.Digest):
			return e, e.URI, fmt.Errorf("resources[%d] (%s): digest is not sha256:<64 lowercase hex digits>", i, *f.URI)
		case *f.Size < 0:
			return e, e.URI, fmt.Errorf("resources[%d] (%s): negative size", i, *f.URI)
		case *f.URI != e.URI && !strings.HasPrefix(*f.URI, root+"/"):
			return e, e.URI, fmt.Errorf("resources[%d] (%s) is not inside the skill", i, *f.URI)
		case strings.Contains("/"+strings.TrimPrefix(*f.URI, root)+"/", "/../") || strings.Contains("/"+strings.TrimPrefix(*f.URI, root)+"/", "/./"):
			return e, e.URI, fmt.Errorf("resources[%d] (%s) has a . or .. segment", i, *f.URI)
		case seen[*f.URI]:
			return e, e.URI, fmt.Errorf("resources lists %s twice", *f.URI)
		}
		seen[*f.URI] = true
		total += *f.Size
		e.Files = append(e.Files, skillFile{URI: *f.URI, Digest: *f.Digest, Size: *f.Size})
	}
	if total > maxSkillTotal {
		return e, e.URI, fmt.Errorf("its files total %d bytes (the limit is %d)", total, maxSkillTotal)
	}
	md, ok := e.file(e.URI)
	if !ok {
		return e, e.URI, fmt.Errorf("resources does not list the SKILL.md itself")
	}
	if md.Size > maxFileBytes {
		return e, e.URI, fmt.Errorf("SKILL.md is %d bytes (the limit is %d, [skills].max_skill_file_bytes)", md.Size, maxFileBytes)
	}
	return e, e.URI, nil
}
