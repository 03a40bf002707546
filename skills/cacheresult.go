package skills

import (
	"cmp"
	"unsafe"
)

// The cached result of parsing one skill directory: its skill (or none)
// and its diagnostics, as one string ([cacheEntry.raw]). Paths that are
// the directory's own, or its SKILL.md's or manifest.toml's, are written
// as a marker and rebuilt from the directory on decoding: they are most
// of an entry's bytes, and the directory is the entry's key already.

// Path markers: a NUL never occurs in a path.
const (
	markDir      = "\x00D"
	markSkill    = "\x00S"
	markManifest = "\x00M"
)

// resultPaths are the paths of dir that markers stand for.
type resultPaths struct{ dir, skill, manifest string }

func pathsOf(dir string) resultPaths {
	// joinPath, not filepath.Join: decoding rebuilds the paths the same
	// way without cleaning (it runs once per skill at every start), and a
	// path that Join would have cleaned differently is not marked.
	return resultPaths{dir: dir, skill: joinPath(dir, skillFileName), manifest: joinPath(dir, manifestFileName)}
}

func (p resultPaths) mark(path string) string {
	switch path {
	case "":
		return ""
	case p.dir:
		return markDir
	case p.skill:
		return markSkill
	case p.manifest:
		return markManifest
	}
	return path
}

// unmark rebuilds a marked path; the rebuilt SKILL.md path is made once
// per result and shared.
func (p *resultPaths) unmark(path string) string {
	switch path {
	case markDir:
		return p.dir
	case markSkill:
		return p.skill
	case markManifest:
		return p.manifest
	}
	return path
}

// encodeResult encodes one parse of the skill directory dir: the skill
// (nil for none) and its diagnostics.
func encodeResult(dir string, s *Skill, diags []Diagnostic) (string, error) {
	p := pathsOf(dir)
	w := &cacheWriter{b: make([]byte, 0, 512)}
	w.bool(s != nil)
	if s != nil {
		cp := *s
		cp.Dir, cp.SkillPath, cp.ManifestPath = p.mark(s.Dir), p.mark(s.SkillPath), p.mark(s.ManifestPath)
		if err := w.skill(&cp); err != nil {
			return "", err
		}
	}
	if diags != nil {
		marked := make([]Diagnostic, len(diags))
		for i, d := range diags {
			d.Path = p.mark(d.Path)
			marked[i] = d
		}
		diags = marked
	}
	w.diags(diags)
	return string(w.b), nil
}

// decodeResult decodes [encodeResult]'s string for dir, into the zero
// Skill into when it is not nil; ok is false when it is damaged. The
// strings of the result share raw's memory.
func decodeResult(dir, raw string, into *Skill) (s *Skill, diags []Diagnostic, ok bool) {
	r := &cacheReader{s: raw}
	if r.bool() {
		s = into
		if s == nil {
			s = &Skill{}
		}
		r.skillInto(s)
	}
	diags = r.diags()
	if r.err != nil || r.pos != len(r.s) {
		return nil, nil, false
	}
	p := resultPaths{dir: dir}
	lazy := func(path string) string {
		switch path {
		case markSkill:
			if p.skill == "" {
				p.skill = joinPath(dir, skillFileName)
			}
		case markManifest:
			if p.manifest == "" {
				p.manifest = joinPath(dir, manifestFileName)
			}
		}
		return p.unmark(path)
	}
	if s != nil {
		s.Dir, s.SkillPath, s.ManifestPath = lazy(s.Dir), lazy(s.SkillPath), lazy(s.ManifestPath)
	}
	for i := range diags {
		diags[i].Path = lazy(diags[i].Path)
	}
	return s, diags, true
}

// skillSlab is how many skills a [slabDecoder] allocates at once: as many
// as fit the allocator's largest size class (32 KB), which wastes less
// than a large object would (rounded up to whole pages: 5% for 64
// skills).
const skillSlab = 32 << 10 / int(unsafe.Sizeof(Skill{}))

// A slabDecoder decodes cached results into skills it allocates a slab at
// a time, for one worker of a check that decodes thousands
// ([walkSnapshot.verify], [cacheRun.prestat]).
type slabDecoder struct {
	free []Skill
	size int // slab length; 0 means skillSlab
}

// decode is [decodeResult] into the next free slot. A slot is used up
// only by a skill decoded; one a damaged result was partly decoded into
// is zeroed for the next.
func (d *slabDecoder) decode(dir, raw string) (*Skill, []Diagnostic, bool) {
	if len(d.free) == 0 {
		d.free = make([]Skill, cmp.Or(min(d.size, skillSlab), skillSlab))
	}
	s, diags, ok := decodeResult(dir, raw, &d.free[0])
	switch {
	case !ok:
		d.free[0] = Skill{}
	case s != nil:
		d.free = d.free[1:]
	}
	return s, diags, ok
}
