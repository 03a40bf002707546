// Package filestamp says whether a file may have changed since it was last
// read, from its stat alone: the identity (device, inode) and change time
// that size and mtime miss. The skills' parse cache and the lock's tree
// hash cache use it.
package filestamp
