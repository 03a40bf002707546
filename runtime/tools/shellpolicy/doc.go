// Package shellpolicy decides whether a command line may run under
// [autonomy].allowed_commands, and which shell runs it.
//
// With an allowlist set, a line the check passes may run without asking
// the user, so the check must see everything the line can run or change:
// the name of every command in it (pipelines, lists, subshells, functions,
// command and process substitutions, arithmetic), and through the commands
// that run others (env, command, exec, xargs, find -exec, timeout, nice,
// eval, trap, sh -c) the command or string they run; no assignment to a
// variable that changes which programs run or what code they load (PATH,
// IFS, LD_*, BASH_ENV, ...); redirections only to literal paths the
// workspace's rules allow ([Files]). Whatever it cannot see through
// ($CMD, unquoted patterns, a string that does not parse) is refused: a
// refusal is a sentence for the model that starts with "Command refused: ".
//
// Parsers and shells disagree. The check parses with mvdan.cc/sh, and a
// line is accepted only in the grammar of the shell that will run it
// ([Shell]): as bash where bash runs it, and where sh does (dash on Debian,
// busybox ash on Alpine) as both bash and POSIX sh, which must then build
// the same tree; bash itself runs with no start-up files and in privileged
// mode, so the checked line is all it runs. A differential test runs what
// the check accepts under the real shells. Still, the check is a parser's
// reading of a language defined by its implementations, and it cannot
// constrain what an allowed program does with its arguments or its own
// configuration (git, make, an interpreter): the OS sandbox that confines
// the commands clawseed starts (internal/sandbox) is the backstop.
package shellpolicy
