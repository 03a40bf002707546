package mdterm

import (
	"strings"
	"unicode/utf8"
)

// A syntax says how to colour one language: a small generic tokenizer
// (comments, strings, numbers, keywords, keys) instead of a lexer per
// language. Syntaxes are built by a switch when a code block is rendered,
// never at package initialisation.
type syntax struct {
	lineComment  [2]string // line comment starts, such as // or #
	blockComment bool      // /* ... */
	quotes       string    // string delimiters
	multiline    string    // delimiters whose strings may span lines
	triple       bool      // Python's """ and ''' strings
	charQuote    bool      // ' starts a string only when it closes soon (Rust lifetimes)
	keyword      func(string) bool
	foldCase     bool // keywords in any case (SQL)
	keys         byte // ':' for YAML keys, '=' for TOML keys, 'j' for JSON keys
	diff         bool // whole lines coloured by their first character
}

// syntaxFor returns the syntax of a fenced block's info string, or false
// for a language it does not know (the code is then shown uncoloured).
func syntaxFor(info string) (syntax, bool) {
	lang := info
	if i := strings.IndexAny(lang, " {,"); i >= 0 {
		lang = lang[:i]
	}
	lang = strings.ToLower(strings.TrimPrefix(lang, "."))
	cLike := syntax{lineComment: [2]string{"//"}, blockComment: true, quotes: `"'`}
	switch lang {
	case "go", "golang":
		s := cLike
		s.quotes, s.multiline, s.keyword = "\"'`", "`", goKeyword
		return s, true
	case "python", "py", "python3", "py3":
		return syntax{lineComment: [2]string{"#"}, quotes: `"'`, triple: true, keyword: pythonKeyword}, true
	case "javascript", "js", "jsx", "mjs", "cjs", "typescript", "ts", "tsx", "node":
		s := cLike
		s.quotes, s.multiline, s.keyword = "\"'`", "`", jsKeyword
		return s, true
	case "rust", "rs":
		s := cLike
		s.charQuote, s.keyword = true, rustKeyword
		return s, true
	case "c", "h", "cpp", "c++", "cc", "cxx", "hpp", "java", "cs", "csharp", "c#", "kotlin", "kt", "swift", "scala", "dart", "objc", "zig":
		s := cLike
		s.keyword = cKeyword
		return s, true
	case "sh", "bash", "shell", "zsh", "console", "shellsession", "fish", "ksh", "dockerfile", "makefile", "make":
		return syntax{lineComment: [2]string{"#"}, quotes: `"'`, multiline: `"'`, keyword: shKeyword}, true
	case "sql", "postgres", "postgresql", "mysql", "sqlite", "plsql", "psql":
		return syntax{lineComment: [2]string{"--"}, blockComment: true, quotes: `"'`, keyword: sqlKeyword, foldCase: true}, true
	case "lua":
		return syntax{lineComment: [2]string{"--"}, quotes: `"'`, keyword: luaKeyword}, true
	case "yaml", "yml":
		return syntax{lineComment: [2]string{"#"}, quotes: `"'`, keyword: yamlKeyword, keys: ':'}, true
	case "toml", "ini":
		return syntax{lineComment: [2]string{"#", ";"}, quotes: `"'`, keyword: jsonKeyword, keys: '='}, true
	case "json", "jsonc", "json5", "jsonl", "ndjson":
		return syntax{lineComment: [2]string{"//"}, blockComment: true, quotes: `"`, keyword: jsonKeyword, keys: 'j'}, true
	case "diff", "patch", "udiff":
		return syntax{diff: true}, true
	}
	return syntax{}, false
}

// highlight colours code (lines joined by newlines) and returns its spans;
// a span never holds a newline except the one-character newline spans that
// end lines.
func highlight(code string, sy syntax) []seg {
	if sy.diff {
		return highlightDiff(code)
	}
	var out []seg
	emit := func(text string, st style) {
		// Split at newlines so every line stands alone.
		for {
			k := strings.IndexByte(text, '\n')
			if k < 0 {
				break
			}
			if k > 0 {
				out = append(out, seg{text[:k], st})
			}
			out = append(out, seg{"\n", 0})
			text = text[k+1:]
		}
		if text != "" {
			out = append(out, seg{text, st})
		}
	}
	lineStart := true
	plain := 0 // start of uncoloured text not yet emitted
	flushPlain := func(i int) {
		if i > plain {
			emit(code[plain:i], 0)
		}
	}
	for i := 0; i < len(code); {
		c := code[i]
		if c == '\n' {
			lineStart = true
			i++
			continue
		}
		if lineStart && sy.keys != 0 && sy.keys != 'j' {
			if k := keyEnd(code[i:], sy.keys); k > 0 {
				flushPlain(i)
				emit(code[i:i+k], stKey)
				i += k
				plain = i
				lineStart = false
				continue
			}
		}
		if c != ' ' {
			lineStart = false
		}
		if n := commentAt(code, i, sy); n > 0 {
			flushPlain(i)
			emit(code[i:i+n], stComment)
			i += n
			plain = i
			continue
		}
		if n := stringAt(code, i, sy); n > 0 {
			flushPlain(i)
			st := stString
			if sy.keys == 'j' && strings.HasPrefix(strings.TrimLeft(code[i+n:], " "), ":") {
				st = stKey
			}
			emit(code[i:i+n], st)
			i += n
			plain = i
			continue
		}
		if isIdentStart(c) && (i == 0 || !isIdent(code[i-1])) {
			j := i + 1
			for j < len(code) && isIdent(code[j]) {
				j++
			}
			w := code[i:j]
			if sy.foldCase {
				w = strings.ToLower(w)
			}
			if sy.keyword != nil && sy.keyword(w) {
				flushPlain(i)
				emit(code[i:j], stKeyword)
				plain = j
			}
			i = j
			continue
		}
		if isDigit(c) && (i == 0 || !isIdent(code[i-1])) {
			j := i + 1
			for j < len(code) && (isIdent(code[j]) || code[j] == '.' && j+1 < len(code) && isDigit(code[j+1])) {
				j++
			}
			flushPlain(i)
			emit(code[i:j], stNumber)
			i = j
			plain = i
			continue
		}
		i++
	}
	flushPlain(len(code))
	return out
}

func isIdentStart(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_' || c == '$'
}

func isIdent(c byte) bool { return isIdentStart(c) || isDigit(c) }

// keyEnd returns the length of a YAML key ("  - name:") or TOML key
// ("name =") at the start of s, sep included, or 0.
func keyEnd(s string, sep byte) int {
	i := 0
	for i < len(s) && s[i] == ' ' {
		i++
	}
	if sep == ':' && strings.HasPrefix(s[i:], "- ") {
		i += 2
	}
	j := i
	for j < len(s) && (isIdent(s[j]) || s[j] == '-' || s[j] == '.' || s[j] == '/' ||
		sep == '=' && (s[j] == '[' || s[j] == ']')) {
		j++
	}
	if j == i {
		return 0
	}
	k := j
	for k < len(s) && s[k] == ' ' {
		k++
	}
	if k >= len(s) || s[k] != sep {
		// A TOML table header [name] is a key line too.
		if sep == '=' && s[i] == '[' && s[j-1] == ']' {
			return j
		}
		return 0
	}
	if sep == ':' && k+1 < len(s) && s[k+1] != ' ' && s[k+1] != '\n' {
		return 0 // a: b is a key, a:b (a URL, a time) is not
	}
	return k + 1
}

// commentAt returns the length of a comment starting at i, or 0.
func commentAt(code string, i int, sy syntax) int {
	rest := code[i:]
	for _, lc := range sy.lineComment {
		if lc == "" || !strings.HasPrefix(rest, lc) {
			continue
		}
		// # starts a comment only at a word start: not in ${#x} or a#b.
		if lc == "#" && i > 0 && code[i-1] != ' ' && code[i-1] != '\n' {
			continue
		}
		if k := strings.IndexByte(rest, '\n'); k >= 0 {
			return k
		}
		return len(rest)
	}
	if sy.blockComment && strings.HasPrefix(rest, "/*") {
		if k := strings.Index(rest[2:], "*/"); k >= 0 {
			return k + 4
		}
		return len(rest)
	}
	return 0
}

// stringAt returns the length of a string literal starting at i, or 0.
func stringAt(code string, i int, sy syntax) int {
	q := code[i]
	if strings.IndexByte(sy.quotes, q) < 0 {
		return 0
	}
	rest := code[i:]
	if sy.triple && (strings.HasPrefix(rest, `"""`) || strings.HasPrefix(rest, "'''")) {
		if k := strings.Index(rest[3:], rest[:3]); k >= 0 {
			return k + 6
		}
		return len(rest)
	}
	if q == '\'' && sy.charQuote {
		return charLiteral(rest)
	}
	if q == '\'' && i > 0 && isIdent(code[i-1]) && !stringPrefix(code[:i]) {
		return 0 // an apostrophe (don't), not a string
	}
	multi := strings.IndexByte(sy.multiline, q) >= 0
	raw := q == '`' // raw strings (Go) and templates take no escapes here
	for j := 1; j < len(rest); j++ {
		switch rest[j] {
		case '\\':
			if !raw {
				j++
			}
		case '\n':
			if !multi {
				return 0 // unclosed on its line: not a string
			}
		case q:
			return j + 1
		}
	}
	if multi {
		return len(rest)
	}
	return 0
}

// charLiteral returns the length of a character literal ('x', '\n',
// '\u{1F600}') at the start of s, or 0: a quote that starts no literal is
// a Rust lifetime ('a).
func charLiteral(s string) int {
	if len(s) >= 3 && s[1] == '\\' {
		if k := strings.IndexByte(s[3:min(len(s), 14)], '\''); k >= 0 {
			return k + 4
		}
		return 0
	}
	_, size := utf8.DecodeRuneInString(s[1:])
	if len(s) > 1+size && s[1+size] == '\'' {
		return size + 2
	}
	return 0
}

// stringPrefix says whether before ends with a string prefix letter on its
// own (Python's f'x', r'x', b'x'), not with the end of a word.
func stringPrefix(before string) bool {
	n := len(before)
	for k := 1; k <= 2 && k <= n; k++ {
		if strings.IndexByte("fFrRbBuU", before[n-k]) < 0 {
			return false
		}
		if n == k || !isIdent(before[n-k-1]) {
			return true
		}
	}
	return false
}

func highlightDiff(code string) []seg {
	var out []seg
	for k, l := range strings.Split(code, "\n") {
		if k > 0 {
			out = append(out, seg{"\n", 0})
		}
		var st style
		switch {
		case strings.HasPrefix(l, "+++"), strings.HasPrefix(l, "---"), strings.HasPrefix(l, "diff "):
			st = stFileLine
		case strings.HasPrefix(l, "@@"):
			st = stHunk
		case strings.HasPrefix(l, "+"):
			st = stAdded
		case strings.HasPrefix(l, "-"):
			st = stRemoved
		}
		if l != "" {
			out = append(out, seg{l, st})
		}
	}
	return out
}

// The keyword sets are switches, not maps: the compiler builds them, so
// they cost nothing at start-up.

func goKeyword(w string) bool {
	switch w {
	case "break", "case", "chan", "const", "continue", "default", "defer", "else", "fallthrough",
		"for", "func", "go", "goto", "if", "import", "interface", "map", "package", "range",
		"return", "select", "struct", "switch", "type", "var", "true", "false", "nil", "iota":
		return true
	}
	return false
}

func pythonKeyword(w string) bool {
	switch w {
	case "False", "None", "True", "and", "as", "assert", "async", "await", "break", "class",
		"continue", "def", "del", "elif", "else", "except", "finally", "for", "from", "global",
		"if", "import", "in", "is", "lambda", "nonlocal", "not", "or", "pass", "raise", "return",
		"try", "while", "with", "yield", "match", "case", "self":
		return true
	}
	return false
}

func jsKeyword(w string) bool {
	switch w {
	case "break", "case", "catch", "class", "const", "continue", "debugger", "default", "delete",
		"do", "else", "export", "extends", "finally", "for", "function", "if", "import", "in",
		"instanceof", "let", "new", "return", "super", "switch", "this", "throw", "try", "typeof",
		"var", "void", "while", "with", "yield", "async", "await", "of", "static", "true", "false",
		"null", "undefined", "from", "as",
		// TypeScript
		"interface", "type", "enum", "implements", "private", "public", "protected", "readonly",
		"declare", "namespace", "abstract", "keyof", "any", "string", "number", "boolean", "never",
		"unknown":
		return true
	}
	return false
}

func rustKeyword(w string) bool {
	switch w {
	case "as", "async", "await", "break", "const", "continue", "crate", "dyn", "else", "enum",
		"extern", "false", "fn", "for", "if", "impl", "in", "let", "loop", "match", "mod", "move",
		"mut", "pub", "ref", "return", "self", "Self", "static", "struct", "super", "trait", "true",
		"type", "unsafe", "use", "where", "while", "Some", "None", "Ok", "Err":
		return true
	}
	return false
}

func cKeyword(w string) bool {
	switch w {
	case "auto", "break", "case", "char", "const", "continue", "default", "do", "double", "else",
		"enum", "extern", "float", "for", "goto", "if", "inline", "int", "long", "register",
		"return", "short", "signed", "sizeof", "static", "struct", "switch", "typedef", "union",
		"unsigned", "void", "volatile", "while", "bool", "true", "false", "NULL",
		// C++
		"class", "namespace", "template", "typename", "public", "private", "protected", "virtual",
		"override", "new", "delete", "this", "nullptr", "using", "try", "catch", "throw",
		"constexpr", "noexcept", "operator", "friend", "explicit", "mutable",
		// Java, C#, Kotlin, Swift
		"final", "abstract", "extends", "implements", "import", "package", "interface", "boolean",
		"byte", "super", "synchronized", "throws", "instanceof", "null", "var", "val", "fun",
		"let", "func", "string", "object", "when", "is", "in", "out", "internal", "readonly",
		"async", "await", "self", "guard":
		return true
	}
	return false
}

func shKeyword(w string) bool {
	switch w {
	case "if", "then", "else", "elif", "fi", "for", "while", "until", "do", "done", "case",
		"esac", "function", "in", "return", "local", "export", "readonly", "declare", "set",
		"unset", "shift", "exit", "break", "continue", "source", "alias", "select", "time",
		"FROM", "RUN", "COPY", "ADD", "ENV", "ARG", "WORKDIR", "CMD", "ENTRYPOINT", "EXPOSE", "USER",
		"LABEL", "VOLUME":
		return true
	}
	return false
}

func sqlKeyword(w string) bool {
	switch w {
	case "select", "from", "where", "and", "or", "not", "insert", "into", "values", "update",
		"set", "delete", "create", "table", "drop", "alter", "add", "column", "index", "view",
		"join", "left", "right", "inner", "outer", "full", "cross", "on", "as", "group", "by",
		"order", "having", "limit", "offset", "union", "all", "distinct", "null", "is", "in",
		"like", "between", "exists", "case", "when", "then", "else", "end", "primary", "key",
		"foreign", "references", "default", "unique", "check", "constraint", "begin", "commit",
		"rollback", "transaction", "with", "returning", "asc", "desc", "true", "false", "if",
		"integer", "int", "text", "varchar", "boolean", "real", "blob", "timestamp", "date":
		return true
	}
	return false
}

func luaKeyword(w string) bool {
	switch w {
	case "and", "break", "do", "else", "elseif", "end", "false", "for", "function", "goto", "if",
		"in", "local", "nil", "not", "or", "repeat", "return", "then", "true", "until", "while":
		return true
	}
	return false
}

func yamlKeyword(w string) bool {
	switch w {
	case "true", "false", "null", "yes", "no", "on", "off", "True", "False", "Null":
		return true
	}
	return false
}

func jsonKeyword(w string) bool {
	switch w {
	case "true", "false", "null":
		return true
	}
	return false
}
