// Package tools owns clawseed's 27 built-in tools and the workspace sandbox
// that confines them.
//
// Every tool is one file plus an embedded Markdown description. Arguments are
// described by a Go struct from which the JSON Schema is generated once
// (github.com/google/jsonschema-go); each call is validated against that schema
// before it is decoded, so the schema the model sees and the parser cannot
// drift apart. A tool never returns a Go error and never panics: every failure
// is a [providers.ToolResult] with IsError set and a sentence the model can act
// on.
//
// The tools, by the constructor that makes them and the configuration that
// registers them (cmd/clawseed/internal/app decides; a tool that could only
// fail is not registered at all):
//
// The core tools, made by [Core] (always; shell not when [sandbox].required
// finds no sandbox):
//   - content_search: regular-expression search of file contents (ripgrep, or pure Go)
//   - file_edit: replace an exact string in a file
//   - file_read: read a text file with line numbers
//   - file_write: create or overwrite a file
//   - glob_search: find files by glob
//   - shell: run a command line (checked by [autonomy].allowed_commands when set)
//
// Local tools:
//   - calculator ([NewCalculator]): evaluate a math expression (always)
//   - git ([NewGit]): run git actions in the workspace repository (git on PATH and a work tree; read actions only at read_only autonomy)
//   - backup ([NewBackup]): back up and restore the workspace ([backup].enabled)
//   - skill_create ([NewSkillCreate]): write a skill into .clawseed/skills ([skills].enabled)
//   - llm_task ([NewLLMTask]): one tool-less request to a model (the session has a model)
//
// Documents and the network:
//   - pdf_read ([NewPDFRead]): the text of a PDF in the workspace (always)
//   - web_fetch ([NewWebFetch]): GET a public URL as text ([web_fetch].enabled with allowed_domains)
//   - web_search ([NewWebSearch]): search the web ([web_search].enabled; brave and tavily need a key, searxng a base_url)
//   - http_request ([NewHTTPRequest]): call an API on the allowed hosts ([http_request].enabled with allowed_domains)
//
// Scheduled jobs, made by [CronTools] ([cron].enabled; cron_run only when the
// binary can run a job):
//   - cron_add, cron_list, cron_remove, cron_run, cron_runs, cron_update
//
// Memory, made by [MemoryTools] and [NewKnowledge] ([memory].enabled):
//   - memory_store, memory_recall, memory_forget, memory_purge, memory_export
//     ([DailyLogMemoryTools] for [memory].mode = "daily_log": memory_store
//     appends a note to the day's log, [NewMemoryLog])
//   - knowledge: the local knowledge graph (read-only at read_only autonomy)
//
// The policy engines the tools use live in sub-packages that do not import
// this one: shellpolicy (which shell runs a line, and whether
// [autonomy].allowed_commands lets it: the shell tool, [RunCommand], cron
// shell jobs), netguard (the SSRF guard of web_fetch, web_search and
// http_request) and pdftext (PDF text extraction, for pdf_read and
// web_fetch, run in a child process by [ChildPDF]).
//
// The agent owns concurrency, per-call timeouts and the final output cap; the
// tools own argument validation, workspace confinement and their own, earlier
// output limits (so that their truncation notes, e.g. "use offset=N to read
// more", are accurate).
package tools
