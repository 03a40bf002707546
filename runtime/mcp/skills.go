package mcp

// Skills served by MCP servers (SEP-2640; the wire is in skillwire.go).
//
// When a connected server declares the extension, its listing is read
// with the rest of its offer (at start, after a list_changed notification,
// after a restart: the same path as its tools), every entry is checked,
// and the SKILL.md of each is read with resources/read and verified: its
// size and SHA-256 against the entry's manifest, and its frontmatter
// against the entry's. A skill that fails any check is a [SkillProblem],
// never an error of the server: its other skills stay.
//
// Two choices depart from the letter of the specification, both so that
// clawseed's catalog holds only verified skills:
//   - SKILL.md is read when the listing is, not when the skill is loaded
//     ("hosts MUST NOT retrieve a skill's files ahead of need"): the
//     catalog and the <active_skill> block are built from the verified
//     bytes, so a tampered or stale SKILL.md is never offered to the
//     model, and activating a skill (also after compaction or on resume)
//     needs no network.
//   - The other files are read lazily, as the specification asks: the
//     activation lists their URIs, and mcp_resource_read verifies each
//     read of a file of a listed skill against the manifest (and refuses
//     a file under the skill that the manifest does not list).
//
// There is no skills list_changed notification in the specification; a
// server that changes its skills sends resources/list_changed (skill
// files are resources), which re-reads the listing like the tools.

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"sync"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"go.yaml.in/yaml/v3"
)

// A ServedSkill is a skill a server serves whose SKILL.md was verified.
type ServedSkill struct {
	// Server is the configured server name (the host's label, never the
	// name the server reports).
	Server string
	// URI is the skill's SKILL.md; Path its skill path (acme/billing/refunds)
	// and Name the last segment, the frontmatter's name.
	URI, Path, Name string
	// Content is SKILL.md, as verified.
	Content []byte
	// Files are the URIs of the skill's other files, sorted: what the
	// model may read with mcp_resource_read (verified then).
	Files []string
}

// A SkillProblem is a skill a server lists that is not offered, and why.
type SkillProblem struct {
	Server string
	// URI is the entry's uri; "" when the answer had none (or was not a
	// listing at all).
	URI     string
	Message string
}

// A SkillSet is the skills of the connected servers at one moment.
type SkillSet struct {
	// Version changes whenever a server's skills were listed again.
	Version  uint64
	Skills   []ServedSkill  // by server, then URI
	Problems []SkillProblem // by server, then URI
}

// Skills waits for the servers as [Manager.Tools] does, then returns the
// verified skills of the connected servers and the problems of the
// others. A server that is disabled, untrusted or failed offers none.
func (m *Manager) Skills(ctx context.Context) SkillSet {
	m.Wait(ctx)
	m.settle(ctx)
	return m.SkillsNow()
}

// SkillsNow is [Manager.Skills] without waiting: what the servers that
// are connected now offer.
func (m *Manager) SkillsNow() SkillSet {
	set := SkillSet{Version: m.skillsVersion.Load()}
	for _, s := range m.servers {
		s.mu.Lock()
		if s.state == StateConnected {
			set.Skills = append(set.Skills, s.skills...)
			set.Problems = append(set.Problems, s.skillProblems...)
		}
		s.mu.Unlock()
	}
	return set
}

// listSkills reads and verifies the server's skills; nil when it does not
// declare the extension.
func (s *server) listSkills(ctx context.Context, cs *sdk.ClientSession, caps *sdk.ServerCapabilities) ([]ServedSkill, []SkillProblem, []skillEntry) {
	if _, ok := caps.Extensions[SkillsExtension]; !ok {
		return nil, nil, nil
	}
	problem := func(uri, format string, args ...any) SkillProblem {
		return SkillProblem{Server: s.cfg.Name, URI: uri, Message: fmt.Sprintf(format, args...)}
	}
	var raws []json.RawMessage
	var problems []SkillProblem
	params := &listSkillsParams{}
	for page := 0; ; page++ {
		if page == maxSkillPages {
			problems = append(problems, problem("", "skills/list: more than %d pages; the rest are ignored", maxSkillPages))
			break
		}
		res, err := sdk.CallCustomMethod[*listSkillsParams, *listSkillsResult](ctx, cs, methodSkillsList, params)
		if err != nil {
			problems = append(problems, problem("", "skills/list: %v", err))
			break
		}
		raws = append(raws, res.Skills...)
		if res.NextCursor == "" || res.NextCursor == params.Cursor {
			break
		}
		params = &listSkillsParams{Cursor: res.NextCursor}
	}
	if len(raws) > maxServerSkills {
		problems = append(problems, problem("", "skills/list: %d skills; only the first %d are read", len(raws), maxServerSkills))
		raws = raws[:maxServerSkills]
	}
	limit := s.m.opts.MaxSkillFileBytes
	if limit <= 0 {
		limit = DefaultMaxSkillFileBytes
	}
	// Each entry is checked, then the SKILL.md of the good ones read a few
	// at a time (the start-up deadline covers them), each result in its
	// entry's place so the outcome does not depend on timing.
	type result struct {
		e     skillEntry
		uri   string
		sk    ServedSkill
		err   error
		entry bool // e is a well-formed entry
	}
	results := make([]result, len(raws))
	seen := map[string]bool{}
	var wg sync.WaitGroup
	sem := make(chan struct{}, skillReads)
	for i, raw := range raws {
		r := &results[i]
		r.e, r.uri, r.err = parseSkillEntry(raw, limit)
		if r.err == nil && seen[r.e.URI] {
			r.err = fmt.Errorf("listed twice")
		}
		if r.err != nil {
			continue
		}
		seen[r.e.URI], r.entry = true, true
		wg.Go(func() {
			sem <- struct{}{}
			defer func() { <-sem }()
			r.sk, r.err = s.readSkill(ctx, cs, r.e)
		})
	}
	wg.Wait()
	var served []ServedSkill
	var held []skillEntry
	for _, r := range results {
		switch {
		case r.err == nil:
			served = append(served, r.sk)
			held = append(held, r.e)
			continue
		case r.entry:
			// Its other files are no more trustworthy than its SKILL.md.
			r.e.Failed = r.err.Error()
			held = append(held, r.e)
		}
		problems = append(problems, problem(r.uri, "%v", r.err))
	}
	slices.SortFunc(served, func(a, b ServedSkill) int { return strings.Compare(a.URI, b.URI) })
	slices.SortStableFunc(problems, func(a, b SkillProblem) int { return strings.Compare(a.URI, b.URI) })
	return served, problems, held
}

// readSkill reads the entry's SKILL.md and verifies it.
func (s *server) readSkill(ctx context.Context, cs *sdk.ClientSession, e skillEntry) (ServedSkill, error) {
	res, err := cs.ReadResource(ctx, &sdk.ReadResourceParams{URI: e.URI})
	if err != nil {
		return ServedSkill{}, fmt.Errorf("reading SKILL.md: %v", err)
	}
	data, err := contentBytes(e.URI, res)
	if err != nil {
		return ServedSkill{}, err
	}
	md, _ := e.file(e.URI)
	if err := verifyFile(md, data); err != nil {
		return ServedSkill{}, fmt.Errorf("SKILL.md %v", err)
	}
	if err := sameFrontmatter(data, e.Frontmatter); err != nil {
		return ServedSkill{}, err
	}
	sk := ServedSkill{Server: s.cfg.Name, URI: e.URI, Path: e.Path, Name: e.Name, Content: data}
	for _, f := range e.Files {
		if f.URI != e.URI {
			sk.Files = append(sk.Files, f.URI)
		}
	}
	slices.Sort(sk.Files)
	return sk, nil
}

// contentBytes returns the bytes a resources/read answer gives for uri:
// its one content of that URI, text or blob.
func contentBytes(uri string, res *sdk.ReadResourceResult) ([]byte, error) {
	var found *sdk.ResourceContents
	for _, c := range res.Contents {
		if c == nil || c.URI != uri {
			continue
		}
		if found != nil {
			return nil, fmt.Errorf("resources/read of %s answered with two contents for it", uri)
		}
		found = c
	}
	switch {
	case found == nil:
		return nil, fmt.Errorf("resources/read of %s answered without it", uri)
	case found.Blob != nil:
		return found.Blob, nil
	}
	return []byte(found.Text), nil
}

// verifyFile checks data against its manifest entry: size, then digest.
func verifyFile(f skillFile, data []byte) error {
	if int64(len(data)) != f.Size {
		return fmt.Errorf("is %d bytes, but the listing says %d", len(data), f.Size)
	}
	sum := sha256.Sum256(data)
	if got := "sha256:" + hex.EncodeToString(sum[:]); got != f.Digest {
		return fmt.Errorf("digest mismatch: the listing says %s, the content is %s", f.Digest, got)
	}
	return nil
}

// sameFrontmatter compares the frontmatter of SKILL.md with the entry's,
// field by field, as the specification asks: what the model receives is
// what the listing described. Both sides are compared as JSON values.
func sameFrontmatter(data []byte, entry map[string]any) error {
	text, ok := frontmatterText(data)
	if !ok {
		return fmt.Errorf("SKILL.md has no YAML frontmatter")
	}
	var fm map[string]any
	if err := yaml.Unmarshal([]byte(text), &fm); err != nil {
		return fmt.Errorf("SKILL.md frontmatter: %v", err)
	}
	a, errA := asJSON(fm)
	b, errB := asJSON(entry)
	if errA != nil || errB != nil {
		return fmt.Errorf("SKILL.md frontmatter cannot be compared with the listing's")
	}
	am, _ := a.(map[string]any)
	bm, _ := b.(map[string]any)
	keys := map[string]bool{}
	for k := range am {
		keys[k] = true
	}
	for k := range bm {
		keys[k] = true
	}
	var differ []string
	for k := range keys {
		if !reflect.DeepEqual(am[k], bm[k]) {
			differ = append(differ, k)
		}
	}
	if len(differ) > 0 {
		slices.Sort(differ)
		return fmt.Errorf("SKILL.md frontmatter differs from the listing's in %s", strings.Join(differ, ", "))
	}
	return nil
}

// frontmatterText returns the YAML between the opening and closing ---
// lines of a Markdown file.
func frontmatterText(data []byte) (string, bool) {
	text := strings.ReplaceAll(string(bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))), "\r\n", "\n")
	rest, ok := strings.CutPrefix(text, "---\n")
	if !ok {
		return "", false
	}
	if strings.HasPrefix(rest, "---\n") || rest == "---" {
		return "", true
	}
	end := strings.Index(rest, "\n---\n")
	if end < 0 {
		if !strings.HasSuffix(rest, "\n---") {
			return "", false
		}
		end = len(rest) - len("\n---")
	}
	return rest[:end], true
}

// asJSON is v as a JSON value (maps, slices, strings, float64, bools).
func asJSON(v any) (any, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	var out any
	err = json.Unmarshal(b, &out)
	return out, err
}

// A skillRead is a mcp_resource_read of a URI under a skill the server
// serves: the manifest entry to verify it against, or why it is refused.
type skillRead struct {
	file    skillFile
	refused string
}

// skillReadOf checks a mcp_resource_read of uri against the skills the
// server offers, before it is sent: a file a skill lists is verified after
// the read ([skillRead.check]); a file under a skill that the skill does
// not list is refused unread (the specification's "a read of an unlisted
// file is a verification failure"). ok is false for other URIs, which are
// ordinary resources.
func (s *server) skillReadOf(uri string) (r skillRead, ok bool) {
	s.mu.Lock()
	held := s.held
	s.mu.Unlock()
	for _, h := range held {
		if uri != h.URI && !strings.HasPrefix(uri, h.Root+"/") {
			continue
		}
		if h.Failed != "" {
			return skillRead{refused: fmt.Sprintf("%s belongs to skill %s:%s, which is not offered (%s), so it is not read.", uri, s.cfg.Name, h.Name, h.Failed)}, true
		}
		f, listed := h.file(uri)
		if !listed {
			return skillRead{refused: fmt.Sprintf("%s is not a file of skill %s:%s as the server listed it, so it is not read (a file a skill does not list is not its file, even if the server serves it).", uri, s.cfg.Name, h.Name)}, true
		}
		return skillRead{file: f}, true
	}
	return skillRead{}, false
}

// check verifies the answer of the read; "" when it may be shown.
func (r skillRead) check(res *sdk.ReadResourceResult) string {
	data, err := contentBytes(r.file.URI, res)
	if err == nil {
		err = verifyFile(r.file, data)
	}
	if err != nil {
		return fmt.Sprintf("%s failed verification against the skill listing (%v); its content is not shown.", r.file.URI, err)
	}
	return ""
}
