package skills

// Block returns the skill's <active_skill> block as [ActiveSet.Render]
// would render it. A fork's sub-agent carries its skill this way (§4.10):
// the same bytes an activation would append.
func (a Active) Block() string { return renderBlock(a) }
