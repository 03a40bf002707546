// Package clawseed holds files embedded from the repository root.
package clawseed

import _ "embed"

// ConfigExample is config.toml.example: every configuration key with its
// default and a comment. `clawseed config init` writes it.
//
//go:embed config.toml.example
var ConfigExample []byte
