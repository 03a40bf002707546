package memory

// Folders returns the absolute user and project folders; project is ""
// without a workspace. They need not exist yet: the first write makes
// them.
func (s *Store) Folders() (user, project string) {
	return s.folder(ScopeUser), s.folder(ScopeProject)
}
