// Package mdterm renders Markdown for the terminal: the model's replies in
// the chat, block by block as they stream ([Stream], [Render]).
//
// # Why not glamour
//
// glamour (with goldmark, chroma and bluemonday) renders Markdown well, but
// linking it costs every clawseed command, chat or not, about 12 ms of
// start-up in package initialisation alone, measured with
// GODEBUG=inittrace=1: chroma/v2/styles 4.5 ms and chroma/v2/lexers 4.3 ms
// (registries of every style and lexer, regular expressions compiled at
// init), goldmark and bluemonday the rest. The budget for the whole
// terminal UI is 2 ms. This package does what the chat needs with nothing
// to initialise: no package-level variables at all (only constants), no
// regular expressions, keyword sets as switch statements, language
// syntaxes built when a code block is rendered. Its dependency for display
// widths, github.com/charmbracelet/x/ansi, is linked by the terminal UI's
// Charm packages anyway.
//
// # What it renders
//
// CommonMark's blocks (ATX and setext headings, paragraphs, block quotes,
// bullet and ordered lists, fenced and indented code, thematic breaks) and
// inlines (emphasis, strong emphasis, code spans, inline links and images,
// autolinks, backslash escapes, hard breaks, common character
// references), with GitHub's tables, task list items, strikethrough (~~)
// and bare http(s) URLs. Left out: reference links and their definitions
// (a chunk rendered on its own would not see them: they show as written),
// HTML (shown as text, never interpreted), HTML blocks' own rules (an HTML
// block is a paragraph), numbering lists from their start (numbers are
// shown as written, so a list split into chunks reads the same). Tabs
// count as spaces to the next multiple of four columns. Quotes and lists
// nest 32 deep at most, and a link destination or title longer than 4,096
// bytes is text: both keep the work linear in the input.
//
// Text is wrapped to Options.Width by display width (wide characters count
// two columns, combining marks none), at spaces and between wide
// characters; a word is cut only when it alone is wider than the line.
// Lines never end with padding spaces. Code blocks are never wrapped, so
// they can be copied as they are: a line longer than the width stays long.
//
// With Options.Color, headings are bold (level 1 also underlined and
// magenta, level 2 underlined), emphasis italic, code spans cyan, links
// underlined blue with their URL dimmed in parentheses (unless it is the
// link text), bullets •, ◦, ▪ by depth, tasks ☐ and ☑, quotes behind a
// dim │ bar, rules and table borders dim box drawing, code blocks indented
// two columns and coloured by a small tokenizer (comments, strings,
// numbers, keywords; keys in YAML, TOML and JSON; diff lines) for Go,
// Python, JavaScript/TypeScript, Rust, C-like languages, shell, SQL, Lua,
// YAML, TOML, JSON and diffs.
//
// Without colour (NO_COLOR, TERM=dumb, not a terminal) the output is plain
// text with the same layout, and the marks that colour would have carried
// stay as Markdown writes them: headings keep their # prefix (a setext
// heading gets one), code spans their backticks, strikethrough its ~~,
// code blocks their ``` fences (and no indentation, for copying). Emphasis
// marks go.
//
// # Security
//
// The Markdown comes from a model and may hold terminal control
// characters. The source is escaped with termtext.Escape before it is
// parsed (the one rule of the repository for text shown on a terminal), and
// character references that would decode to a control character stay as
// written, so the only escape sequences in Render's output are the SGR
// styles of this package, each closed on its line. [Stream.Pending] is raw
// source: show it through [Wrap].
package mdterm
