package skills

// Runs reports whether s runs instead of activating: a `context: fork`
// sub-agent or a `shell:` command (§4.10, §4.11). A nil skill does not.
func (s *Skill) Runs() bool {
	return s != nil && (s.Context == "fork" || s.Shell != nil)
}

// Block returns the skill's <active_skill> block as [ActiveSet.Render]
// would render it. A fork's sub-agent carries its skill this way (§4.10):
// the same bytes an activation would append.
func (a Active) Block() string { return renderBlock(a) }
