package config

import (
	"slices"
	"strings"

	"github.com/BurntSushi/toml"
)

// An untrusted workspace (§9.1) is a repository the user has not trusted:
// its project file (<workspace>/.clawseed/config.toml) is input from whoever
// wrote the repository, so it may lower privileges but never raise them.
// The user file, --config and the environment are the user's own and apply
// in full. The rule of every key is in projectRules; untrusted_apply.go
// applies them.

// ruleKind says what an untrusted project file may do with a key.
type ruleKind int

const (
	// applies: harmless tuning, applied as in a trusted workspace.
	applies ruleKind = iota
	// lowerLevel: autonomy may go down (read_only < supervised < full),
	// never up.
	lowerLevel
	// lowerCap: a limit where 0 means none; the project may only make it
	// smaller.
	lowerCap
	// raiseOnly: a spacing where a larger value costs less (how much the
	// conversation grows between two background requests): the project
	// may set it to at least the user's value.
	raiseOnly
	// lowerOnly: a resource limit (bytes, seconds, a count of iterations,
	// retries, parallel calls or active skills, a share of the context)
	// where a smaller value is the safer one: the project may set it to at
	// most the user's value. Every number of the schema is lowerOnly,
	// lowerCap, or applies with a why saying why raising it is harmless
	// (TestProjectRulesNumbers).
	lowerOnly
	// narrowCommands: an allow-list of command names (compared by base
	// name, as the shell allowlist does) where empty means every command:
	// the project keeps only entries of the user's list, or sets a list
	// when the user has none; a result that would be empty (allow
	// everything) keeps the user's list.
	narrowCommands
	// narrowDomains: a host-pattern allow-list; the project keeps only
	// entries whose hosts the user's patterns already allow. For
	// http_request an empty list is unusable (enabled needs one), so a
	// result that would be empty keeps the user's list; for web_fetch
	// empty allows no host, a valid narrowing.
	narrowDomains
	// union: a pure restriction list; the project's entries are added to
	// the user's, never replace them (`forbidden_paths = []` erases
	// nothing).
	union
	// offOnly: a boolean that enables a capability; the project may turn
	// it off, not on.
	offOnly
	// onOnly: a boolean that enables a protection (the sandbox, refusing
	// unsandboxed commands); the project may turn it on, not off.
	onOnly
	// tighten: a setting with a few values, ordered from the tightest in
	// keyRule.order; the project may set one at least as tight as the
	// user's ([sandbox].network may become "off", never "on").
	tighten
	// ignored: the project's value is dropped and reported.
	ignored
	// userModels: names of models (providers.default, fallbacks,
	// summary_model); the project may name only models the user
	// configured (see untrusted_models.go).
	userModels
	// userOnly: a project file can never set it, trusted or not (an error
	// at decode).
	userOnly
)

// keyRule is the rule of one key; why completes "untrusted workspace: "
// for ignored keys, and says why a number that applies is harmless when
// raised.
type keyRule struct {
	kind ruleKind
	why  string
	// order lists a tighten key's values, the tightest first.
	order []string
}

const (
	whyEndpoint  = "a project key, endpoint or header would send the conversation elsewhere"
	whyOutside   = "would make clawseed read or write outside the workspace"
	whySearch    = "would send searches, or the user's search key, elsewhere"
	whyTools     = "may not change which tools the user allows"
	whyApprove   = "may not approve tools in advance"
	whyRoots     = "may not add skill roots"
	whyDynamic   = "may not let skills run commands at activation"
	whyEnvSecret = "may not pass secret variables to commands"
	// whyHooks: [[hooks.EVENT]] tables are not schema keys, so they have
	// no projectRules entry: an untrusted project file's hooks subtree is
	// taken out before anything is applied (takeHooks, hooks.go) and each
	// table is reported with this reason.
	whyHooks    = "may not add hooks (they run commands)"
	whyWritable = "may not let commands write outside the workspace"
	// The sessions are the user's: a project's database would receive
	// every conversation.
	whyStorage = "may not choose where sessions are kept"
	// The memory folder is the user's, shared by every workspace: how the
	// model writes it (topic files or the daily logs that `memory
	// distill` turns into topic files) is the user's choice.
	whyMemoryMode = "may not change how the user's memory is written"
	// "model" recall sends each message and the memories' descriptions to
	// a model, a request per message: only the user turns it on.
	whyRecall = "may only choose \"fts\" recall: \"model\" sends memories to a model and costs a request per message"
	// The entries an untrusted project keeps are the user's or tune a
	// preset the user selected (untrusted_models.go): their key and
	// endpoint belong to that provider.
	whyProvider = "may not change a model entry's provider: the user's configuration picks the endpoint"

	// Why raising these numbers is harmless: the model itself bounds them.
	harmlessMaxTokens = "an output cap below the model's own, which bounds it"
	harmlessWindow    = "sizes the history sent; a request over the model's window compacts"
)

// projectRules classifies every key of the schema for an untrusted project
// file, by dotted key with "*" for a model entry's or MCP server's name.
// TestProjectRules fails when a key of Config has no entry here, so a new
// key forces a decision; when unsure, choose ignored. Output never ranges
// over this map: keys come from the file, in its order.
var projectRules = map[string]keyRule{
	"workspace_dir": {kind: userOnly},

	"providers.default":                   {kind: userModels},
	"providers.fallbacks":                 {kind: userModels},
	"providers.max_retries":               {kind: lowerOnly},
	"providers.max_retry_wait_secs":       {kind: lowerOnly},
	"providers.models.*.provider":         {kind: ignored, why: whyProvider},
	"providers.models.*.model":            {kind: applies},
	"providers.models.*.api_key":          {kind: ignored, why: whyEndpoint},
	"providers.models.*.base_url":         {kind: ignored, why: whyEndpoint},
	"providers.models.*.max_tokens":       {kind: applies, why: harmlessMaxTokens},
	"providers.models.*.temperature":      {kind: applies, why: "sampling only, 0 to 2"},
	"providers.models.*.context_window":   {kind: applies, why: harmlessWindow},
	"providers.models.*.timeout_secs":     {kind: lowerOnly},
	"providers.models.*.extra_headers":    {kind: ignored, why: whyEndpoint},
	"providers.models.*.native_tools":     {kind: applies},
	"providers.models.*.reasoning_effort": {kind: applies},
	"providers.models.*.wire":             {kind: applies, why: "the same endpoint and key, another of its APIs"},
	"providers.models.*.vision":           {kind: applies, why: "whether images are sent: they go where the conversation goes"},
	"providers.models.*.price":            {kind: applies, why: "prices change only the cost clawseed reports"},
	"agent.system_prompt":                 {kind: applies},
	"agent.max_tool_iterations":           {kind: lowerOnly},
	"agent.parallel_tools":                {kind: lowerOnly},
	"agent.tool_timeout_secs":             {kind: lowerOnly},
	"agent.max_tool_output_chars":         {kind: lowerOnly},
	"agent.allowed_tools":                 {kind: ignored, why: whyTools},
	"agent.denied_tools":                  {kind: union},
	"agent.deferred_tools":                {kind: applies, why: "only which schemas are sent up front: every tool stays callable and findable"},
	"agent.max_parallel_subagents":        {kind: lowerOnly},
	"skills.enabled":                      {kind: offOnly},
	"skills.max_active":                   {kind: lowerOnly},
	"skills.excluded":                     {kind: union},
	"skills.extra_roots":                  {kind: ignored, why: whyRoots},
	"workspace.add_dirs":                  {kind: ignored, why: whyOutside},
	"skills.index_budget_percent":         {kind: lowerOnly},
	"skills.max_skill_file_bytes":         {kind: lowerOnly},
	"skills.dynamic_context":              {kind: ignored, why: whyDynamic},
	"skills.watch":                        {kind: applies},
	"skills.fork_max_iterations":          {kind: lowerOnly},
	"skills.claude_plugins":               {kind: offOnly},
	"skills.require_lock":                 {kind: onOnly},
	"skills.builtins":                     {kind: offOnly},
	"autonomy.level":                      {kind: lowerLevel},
	"autonomy.auto_approve":               {kind: ignored, why: whyApprove},
	"autonomy.always_ask":                 {kind: union},
	"autonomy.allowed_commands":           {kind: narrowCommands},
	"autonomy.forbidden_paths":            {kind: union},
	"autonomy.max_actions_per_hour":       {kind: lowerCap},
	"autonomy.env_passthrough":            {kind: ignored, why: whyEnvSecret},
	"autonomy.auto_approve_sandboxed":     {kind: offOnly},
	"permissions.allow":                   {kind: ignored, why: whyApprove},
	"permissions.deny":                    {kind: union},
	"permissions.ask":                     {kind: union},
	"sandbox.enabled":                     {kind: onOnly},
	"sandbox.required":                    {kind: onOnly},
	"sandbox.network":                     {kind: tighten, order: []string{"off", "on"}, why: "may only turn the network off"},
	"sandbox.writable":                    {kind: ignored, why: whyWritable},
	"context.compact_at_percent":          {kind: applies, why: "at most 100; a request over the model's window compacts"},
	"context.keep_recent_tokens":          {kind: applies, why: harmlessWindow},
	"context.summary_model":               {kind: userModels},
	"sessions.enabled":                    {kind: offOnly},
	"sessions.dir":                        {kind: ignored, why: whyOutside},
	"storage.backend":                     {kind: ignored, why: whyStorage},
	"storage.postgres_url":                {kind: ignored, why: whyStorage},
	"storage.pool_size":                   {kind: ignored, why: whyStorage},
	"memory.enabled":                      {kind: offOnly},
	"memory.dir":                          {kind: ignored, why: whyOutside},
	"memory.auto_recall":                  {kind: offOnly},
	"memory.mode":                         {kind: ignored, why: whyMemoryMode},
	"memory.session.enabled":              {kind: offOnly},
	"memory.session.update_every_tokens":  {kind: raiseOnly},
	"memory.recall":                       {kind: tighten, order: []string{"fts", "model"}, why: whyRecall},
	"memory.extract":                      {kind: tighten, order: []string{"off", "auto"}, why: "may only turn memory extraction off"},
	"instructions.enabled":                {kind: offOnly},
	"instructions.max_file_bytes":         {kind: lowerOnly},
	"instructions.max_total_bytes":        {kind: lowerOnly},
	"web_fetch.enabled":                   {kind: offOnly},
	"web_fetch.allowed_domains":           {kind: narrowDomains},
	"web_fetch.blocked_domains":           {kind: union},
	"web_fetch.max_bytes":                 {kind: lowerOnly},
	"web_fetch.timeout_secs":              {kind: lowerOnly},
	"web_search.enabled":                  {kind: offOnly},
	"web_search.provider":                 {kind: ignored, why: whySearch},
	"web_search.api_key":                  {kind: ignored, why: whySearch},
	"web_search.base_url":                 {kind: ignored, why: whySearch},
	"web_search.timeout_secs":             {kind: lowerOnly},
	"http_request.enabled":                {kind: offOnly},
	"http_request.allowed_domains":        {kind: narrowDomains},
	"http_request.max_bytes":              {kind: lowerOnly},
	"http_request.timeout_secs":           {kind: lowerOnly},
	"backup.enabled":                      {kind: offOnly},
	"backup.paths":                        {kind: applies}, // the backup tool refuses paths outside the workspace
	"backup.dir":                          {kind: ignored, why: whyOutside},
	"cron.enabled":                        {kind: offOnly},
	"cron.dir":                            {kind: ignored, why: whyOutside},
	"mcp.enabled":                         {kind: offOnly},
	"mcp.startup_timeout_secs":            {kind: lowerOnly},
	"mcp.max_schema_bytes":                {kind: lowerOnly},
	// An untrusted project file's mcp.servers subtree is removed before it
	// is applied (dropServers), so these rules are never reached; they
	// record the decision.
	"mcp.servers.*.command":           {kind: ignored, why: whyMCP},
	"mcp.servers.*.args":              {kind: ignored, why: whyMCP},
	"mcp.servers.*.env":               {kind: ignored, why: whyMCP},
	"mcp.servers.*.cwd":               {kind: ignored, why: whyMCP},
	"mcp.servers.*.url":               {kind: ignored, why: whyMCP},
	"mcp.servers.*.transport":         {kind: ignored, why: whyMCP},
	"mcp.servers.*.headers":           {kind: ignored, why: whyMCP},
	"mcp.servers.*.enabled":           {kind: ignored, why: whyMCP},
	"mcp.servers.*.tool_timeout_secs": {kind: ignored, why: whyMCP},
	"mcp.servers.*.allowed_tools":     {kind: ignored, why: whyMCP},
	"mcp.servers.*.writable":          {kind: ignored, why: whyMCP},
	// [serve] is the operator's (serve.go): who may call the server and
	// with what.
	"serve.listen":                {kind: userOnly},
	"serve.approval_timeout_secs": {kind: userOnly},
	"serve.idle_timeout_secs":     {kind: userOnly},
	"serve.header_timeout_secs":   {kind: userOnly},
	"serve.max_body_bytes":        {kind: userOnly},
	"serve.rate_limit":            {kind: userOnly},
	"serve.trusted_proxies":       {kind: userOnly},
	"serve.tokens.*.sha256":       {kind: userOnly},
	"serve.tokens.*.workspaces":   {kind: userOnly},
	"serve.tokens.*.max_autonomy": {kind: userOnly},
}

// rulePattern is the projectRules key of a schema key: the name of a model
// entry or an MCP server becomes "*".
func rulePattern(k toml.Key) string {
	parts := []string(k)
	if len(parts) >= 3 && (parts[0] == "providers" && parts[1] == "models" || parts[0] == "mcp" && parts[1] == "servers" ||
		parts[0] == "serve" && parts[1] == "tokens") {
		parts = append([]string{parts[0], parts[1], "*"}, parts[3:]...)
	}
	return strings.Join(parts, ".")
}

// ruleOf returns the rule of a schema key; a key missing from the table
// (which TestProjectRules prevents) is ignored, the safe choice.
func ruleOf(k toml.Key) keyRule {
	if r, ok := projectRules[rulePattern(k)]; ok {
		return r
	}
	return keyRule{kind: ignored, why: "project files may not set it"}
}

// Ignored is a value an untrusted project file (config file or .mcp.json)
// set and did not get.
type Ignored struct {
	// File and Line locate the key in the project file.
	File string
	Line int
	// Key is dotted ("autonomy.level", `providers.models."gpt-4.1".base_url`,
	// "mcp.servers.NAME", and "mcpServers.NAME" for a .mcp.json server).
	Key string
	// Value is what the file wrote (before ${VAR} expansion), shortened,
	// secrets masked as `config show` masks them; for a list narrowed in
	// part, only the entries dropped; for an MCP server, its command and
	// arguments or its URL.
	Value string
	// Why starts with "untrusted workspace: ".
	Why string
}

// HasProjectFile reports whether a project file (<workspace>/.clawseed/
// config.toml or clawseed.toml) was read.
func (c *Config) HasProjectFile() bool { return c.projectFile != "" }

// ProjectFile is the project file read, "" when none.
func (c *Config) ProjectFile() string { return c.projectFile }

// IgnoredSummary is one line for stderr naming the keys an untrusted
// project file set in vain, "" when there are none.
func (c *Config) IgnoredSummary() string {
	if len(c.Ignored) == 0 {
		return ""
	}
	var keys, files []string
	seen := map[string]bool{}
	for _, ig := range c.Ignored {
		if !seen[ig.Key] {
			seen[ig.Key] = true
			keys = append(keys, ig.Key)
		}
		if !slices.Contains(files, ig.File) {
			files = append(files, ig.File)
		}
	}
	return "untrusted workspace: ignored " + strings.Join(keys, ", ") + " from " + strings.Join(files, " and ") +
		" (clawseed trust to apply them)"
}

// ignoredFor returns what was ignored of key, nil when nothing.
func (c *Config) ignoredFor(key string) *Ignored {
	for i := range c.Ignored {
		if c.Ignored[i].Key == key {
			return &c.Ignored[i]
		}
	}
	return nil
}
