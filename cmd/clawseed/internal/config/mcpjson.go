package config

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path/filepath"

	"github.com/BurntSushi/toml"

	"github.com/clawseed/clawseed/internal/confine"
	"github.com/clawseed/clawseed/internal/nesting"
)

// MCPJSONName is Claude Code's file of project MCP servers, read from the
// workspace root:
//
//	{"mcpServers": {"NAME": {"type": "stdio"|"http"|"sse", "command": "...",
//	  "args": [...], "env": {...}, "url": "...", "headers": {...}}}}
//
// Strings may use ${VAR} and ${VAR:-default} as in config.toml; an unset
// variable without default is an error (the servers start with every
// session). Keys other than mcpServers at the top level are ignored; inside
// an entry they are errors.
const MCPJSONName = ".mcp.json"

// jsonServer is one entry of .mcp.json.
type jsonServer struct {
	name string
	at   origin // where the entry's name is
	// lines maps an entry key (JSON spelling, "env" or `env.NAME` in
	// toml.Key form) to its line.
	lines map[string]int
	// raw is the entry as written; server is raw with ${VAR} expanded
	// (trusted workspace only).
	raw, server MCPServer
}

// jsonFields are the keys an entry takes; the config key of "type" is
// transport.
var jsonFields = []string{"type", "command", "args", "env", "url", "headers"}

// readMCPJSON reads <workspace>/.mcp.json after the config files, unless
// [mcp] is disabled. Its presence counts as project input for the trust
// decision. Servers a config layer defines are skipped (the table wins); in
// an untrusted workspace the others are kept unexpanded, for listing, and
// reported in Ignored; in a trusted one they are expanded and validated.
func (c *Config) readMCPJSON() error {
	if !c.MCP.Enabled {
		return nil
	}
	path := filepath.Join(c.Workspace, MCPJSONName)
	data, err := c.readProjectFile(path, confine.MaxMCPJSON)
	if errors.Is(err, fs.ErrNotExist) || errors.Is(err, errSkipped) {
		return nil
	}
	if err != nil {
		return &Error{File: path, Msg: "cannot read " + MCPJSONName + ": " + errText(err)}
	}
	servers, err := parseMCPJSON(path, data)
	if err != nil {
		return err
	}
	c.mcp.jsonFile = path
	c.decideTrust()
	for _, j := range servers {
		if c.definesServer(j.name) {
			continue
		}
		if !c.Trusted {
			c.Ignored = append(c.Ignored, Ignored{
				File: path, Line: j.at.line, Key: toml.Key{"mcpServers", j.name}.String(),
				Value: serverSummary(j.raw.Command, j.raw.Args, j.raw.URL), Why: "untrusted workspace: " + whyMCP,
			})
			j.raw = MCPServer{} // never expanded, never started
			c.mcp.json = append(c.mcp.json, j)
			continue
		}
		if j.server, err = c.expandJSONServer(j); err != nil {
			return err
		}
		place := j.place
		if msg := serverNameProblem(j.name); msg != "" {
			return place("", msg)
		}
		if err := checkServer(j.server, place); err != nil {
			return err
		}
		c.mcp.json = append(c.mcp.json, j)
	}
	return nil
}

// place locates an error about one config key of the server (see
// serverPlace) at its line in the file.
func (j jsonServer) place(field, msg string) *Error {
	key, line := toml.Key{"mcpServers", j.name}, j.at.line
	if field == "transport" {
		field = "type"
	}
	if l, ok := j.lines[field]; ok && field != "" {
		key, line = appendKey(key, field), l
	}
	return &Error{File: j.at.file, Line: line, Key: key.String(), Msg: key.String() + ": " + msg}
}

// expandJSONServer expands ${VAR} in command, args, env values, url and
// header values; an unset variable without default is an error naming it
// and the key.
func (c *Config) expandJSONServer(j jsonServer) (MCPServer, error) {
	s := j.raw.clone()
	var err error
	one := func(v string, sub ...string) string {
		if err != nil {
			return ""
		}
		out, missing, e := expand(v, c.lookup)
		switch {
		case e != nil:
			err = j.valueError(sub, e.Error())
		case missing != "":
			err = j.valueError(sub, "environment variable "+missing+" is not set")
		}
		return out
	}
	s.Command = one(s.Command, "command")
	for i := range s.Args {
		s.Args[i] = one(s.Args[i], "args")
	}
	for _, name := range sortedKeys(s.Env) {
		s.Env[name] = one(s.Env[name], "env", name)
	}
	s.URL = one(s.URL, "url")
	for _, name := range sortedKeys(s.Headers) {
		s.Headers[name] = one(s.Headers[name], "headers", name)
	}
	return s, err
}

// valueError is an error about the value at sub (a key of the entry, and a
// name under env or headers).
func (j jsonServer) valueError(sub []string, msg string) *Error {
	key := append(toml.Key{"mcpServers", j.name}, sub...)
	line, ok := j.lines[toml.Key(sub).String()]
	if !ok {
		line = j.at.line
	}
	return &Error{File: j.at.file, Line: line, Key: key.String(), Msg: key.String() + ": " + msg}
}

// parseMCPJSON parses .mcp.json strictly: invalid JSON, a top level that
// is not an object, unknown keys inside an entry, wrong types, duplicate
// names and nesting deeper than [nesting.Limit] are *Error with the line.
// It reads tokens, never building a tree, so depth is refused as it is
// reached and the work is linear in the input.
func parseMCPJSON(path string, data []byte) ([]jsonServer, error) {
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf")) // editors on Windows add a BOM
	p := &jsonParser{path: path, data: data, dec: json.NewDecoder(bytes.NewReader(data))}
	p.dec.UseNumber() // a number is a wrong type or skipped; never converted
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, &Error{File: path, Line: 1, Msg: `empty file: expected a JSON object such as {"mcpServers": {}}`}
	}
	tok, err := p.next()
	if err != nil {
		return nil, err
	}
	if tok != json.Delim('{') {
		return nil, p.errAt(p.lineAt(p.dec.InputOffset()), nil, `expected a JSON object ({"mcpServers": {...}}), got `+kindOf(tok))
	}
	var servers []jsonServer
	seen := false
	for p.dec.More() {
		key, line, err := p.key()
		if err != nil {
			return nil, err
		}
		if key != "mcpServers" {
			if err := p.skip(); err != nil {
				return nil, err
			}
			continue
		}
		if seen {
			return nil, p.errAt(line, toml.Key{key}, "duplicate key")
		}
		seen = true
		if servers, err = p.servers(line); err != nil {
			return nil, err
		}
	}
	if err := p.end(); err != nil {
		return nil, err
	}
	switch tok, err := p.dec.Token(); {
	case errors.Is(err, io.EOF):
		return servers, nil
	case err != nil:
		return nil, p.syntaxError(err)
	default:
		return nil, p.errAt(p.lineAt(p.dec.InputOffset()), nil, "unexpected "+kindOf(tok)+" after the top-level object")
	}
}

type jsonParser struct {
	path  string
	data  []byte
	dec   *json.Decoder
	depth int
}

func (p *jsonParser) lineAt(off int64) int {
	off = min(max(off, 0), int64(len(p.data)))
	return 1 + bytes.Count(p.data[:off], []byte("\n"))
}

// errAt is an error at line about key (nil: the file as a whole).
func (p *jsonParser) errAt(line int, key toml.Key, msg string) *Error {
	e := &Error{File: p.path, Line: line, Msg: msg}
	if len(key) > 0 {
		e.Key = key.String()
		e.Msg = e.Key + ": " + msg
	}
	return e
}

// syntaxError locates a syntax error of the token reader. Its offsets are
// relative to the value it was reading when that is a scalar, so the file
// is scanned once more as a whole (linear, no tree: the scan stops at the
// same first error) for an absolute offset.
func (p *jsonParser) syntaxError(err error) *Error {
	var se *json.SyntaxError
	if !errors.As(err, &se) && !errors.Is(err, io.EOF) && !errors.Is(err, io.ErrUnexpectedEOF) {
		return p.errAt(p.lineAt(p.dec.InputOffset()), nil, "invalid JSON: "+err.Error())
	}
	if errors.As(json.Unmarshal(p.data, new(json.RawMessage)), &se) {
		return p.errAt(p.lineAt(se.Offset-1), nil, "invalid JSON: "+se.Error()) // Offset counts the bad byte
	}
	return p.errAt(p.lineAt(p.dec.InputOffset()), nil, "invalid JSON: "+err.Error())
}

// next returns the next token, refusing nesting deeper than nesting.Limit
// as soon as it is reached.
func (p *jsonParser) next() (json.Token, error) {
	tok, err := p.dec.Token()
	if err != nil {
		return nil, p.syntaxError(err)
	}
	switch tok {
	case json.Delim('{'), json.Delim('['):
		if p.depth++; p.depth > nesting.Limit {
			return nil, p.errAt(p.lineAt(p.dec.InputOffset()), nil,
				fmt.Sprintf("nesting deeper than %d levels (objects or arrays inside each other)", nesting.Limit))
		}
	case json.Delim('}'), json.Delim(']'):
		p.depth--
	}
	return tok, nil
}

// key reads an object key and returns it with its line (a key is one
// string token, which holds no raw newline).
func (p *jsonParser) key() (string, int, error) {
	tok, err := p.next()
	if err != nil {
		return "", 0, err
	}
	s, ok := tok.(string)
	if !ok { // the decoder's syntax check makes this unreachable
		return "", 0, p.errAt(p.lineAt(p.dec.InputOffset()), nil, "invalid JSON: expected an object key, got "+kindOf(tok))
	}
	return s, p.lineAt(p.dec.InputOffset()), nil
}

// end reads the closing delimiter of the current object or array.
func (p *jsonParser) end() error {
	_, err := p.next()
	return err
}

// skip reads one value of any type.
func (p *jsonParser) skip() error {
	start := p.depth
	for {
		if _, err := p.next(); err != nil {
			return err
		}
		if p.depth == start {
			return nil
		}
	}
}

func (p *jsonParser) servers(line int) ([]jsonServer, error) {
	tok, err := p.next()
	if err != nil {
		return nil, err
	}
	if tok != json.Delim('{') {
		return nil, p.errAt(line, toml.Key{"mcpServers"}, "expected an object of servers, got "+kindOf(tok))
	}
	var out []jsonServer
	names := map[string]bool{}
	for p.dec.More() {
		name, nline, err := p.key()
		if err != nil {
			return nil, err
		}
		if names[name] {
			return nil, p.errAt(nline, toml.Key{"mcpServers", name}, "duplicate server name")
		}
		names[name] = true
		j, err := p.entry(name, nline)
		if err != nil {
			return nil, err
		}
		out = append(out, j)
	}
	return out, p.end()
}

func (p *jsonParser) entry(name string, line int) (jsonServer, error) {
	j := jsonServer{name: name, at: origin{file: p.path, line: line}, lines: map[string]int{}, raw: DefaultMCPServer()}
	k := toml.Key{"mcpServers", name}
	tok, err := p.next()
	if err != nil {
		return j, err
	}
	if tok != json.Delim('{') {
		return j, p.errAt(line, k, "expected an object (command, args and env, or url and headers), got "+kindOf(tok))
	}
	for p.dec.More() {
		field, fline, err := p.key()
		if err != nil {
			return j, err
		}
		fk := appendKey(k, field)
		if _, dup := j.lines[field]; dup {
			return j, p.errAt(fline, fk, "duplicate key")
		}
		j.lines[field] = fline
		s := &j.raw
		switch field {
		case "type":
			s.Transport, err = p.str(fk, fline)
		case "command":
			s.Command, err = p.str(fk, fline)
		case "url":
			s.URL, err = p.str(fk, fline)
		case "args":
			s.Args, err = p.strs(fk, fline)
		case "env":
			s.Env, err = p.strMap(fk, fline, j.lines)
		case "headers":
			s.Headers, err = p.strMap(fk, fline, j.lines)
		default:
			err = p.errAt(fline, fk, unknownJSONField(field))
		}
		if err != nil {
			return j, err
		}
	}
	return j, p.end()
}

func unknownJSONField(field string) string {
	best, bestDist := "", 0
	for _, f := range jsonFields {
		if d := editDistance(field, f); d*3 <= max(len(field), len(f)) && (best == "" || d < bestDist) {
			best, bestDist = f, d
		}
	}
	if best != "" {
		return fmt.Sprintf("unknown key (did you mean %q?)", best)
	}
	return "unknown key (an entry takes type, command, args, env, url and headers)"
}

func (p *jsonParser) str(k toml.Key, line int) (string, error) {
	tok, err := p.next()
	if err != nil {
		return "", err
	}
	s, ok := tok.(string)
	if !ok {
		return "", p.errAt(line, k, "expected string, got "+kindOf(tok))
	}
	return s, nil
}

func (p *jsonParser) strs(k toml.Key, line int) ([]string, error) {
	tok, err := p.next()
	if err != nil {
		return nil, err
	}
	if tok != json.Delim('[') {
		return nil, p.errAt(line, k, "expected array of strings, got "+kindOf(tok))
	}
	list := []string{}
	for p.dec.More() {
		tok, err := p.next()
		if err != nil {
			return nil, err
		}
		s, ok := tok.(string)
		if !ok {
			return nil, p.errAt(p.lineAt(p.dec.InputOffset()), k, "expected array of strings, got array containing "+kindOf(tok))
		}
		list = append(list, s)
	}
	return list, p.end()
}

// strMap reads an object of strings (env, headers), recording each name's
// line in lines under its toml.Key{field, name} form.
func (p *jsonParser) strMap(k toml.Key, line int, lines map[string]int) (map[string]string, error) {
	tok, err := p.next()
	if err != nil {
		return nil, err
	}
	if tok != json.Delim('{') {
		return nil, p.errAt(line, k, "expected an object of strings, got "+kindOf(tok))
	}
	m := map[string]string{}
	for p.dec.More() {
		name, nline, err := p.key()
		if err != nil {
			return nil, err
		}
		nk := appendKey(k, name)
		if _, dup := m[name]; dup {
			return nil, p.errAt(nline, nk, "duplicate key")
		}
		lines[toml.Key{k[len(k)-1], name}.String()] = nline
		if m[name], err = p.str(nk, nline); err != nil {
			return nil, err
		}
	}
	return m, p.end()
}

// kindOf names a token's JSON type.
func kindOf(tok json.Token) string {
	switch t := tok.(type) {
	case json.Delim:
		if t == '[' {
			return "array"
		}
		return "object"
	case string:
		return "string"
	case json.Number, float64:
		return "number"
	case bool:
		return "boolean"
	case nil:
		return "null"
	}
	return fmt.Sprintf("%T", tok)
}
