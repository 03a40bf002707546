//go:build freebsd || linux || netbsd || openbsd || solaris || dragonfly

package clipboard

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TestFind: the helper is chosen as the original's init chose it, from
// WAYLAND_DISPLAY and the programs on PATH, in the same order.
func TestFind(t *testing.T) {
	tests := []struct {
		wayland  string
		programs []string
		copy     []string
		dos, no  bool
	}{
		{"w", []string{wlcopy, wlpaste, xclip, xsel}, wlcopyArgs, false, false},
		{"w", []string{wlcopy, xclip, xsel}, xclipCopyArgs, false, false},
		{"", []string{wlcopy, wlpaste, xclip, xsel}, xclipCopyArgs, false, false},
		{"", []string{xsel}, xselCopyArgs, false, false},
		{"", []string{termuxClipboardSet, termuxClipboardGet}, termuxCopyArgs, false, false},
		{"", []string{termuxClipboardSet, clipExe, powershellExe}, clipExeCopyArgs, true, false},
		{"", []string{clipExe}, clipExeCopyArgs, true, true},
		{"", nil, clipExeCopyArgs, true, true},
	}
	for _, tt := range tests {
		dir := t.TempDir()
		for _, p := range tt.programs {
			if err := os.WriteFile(filepath.Join(dir, p), []byte("#!/bin/sh\n"), 0o755); err != nil {
				t.Fatal(err)
			}
		}
		t.Setenv("PATH", dir)
		t.Setenv("WAYLAND_DISPLAY", tt.wayland)
		Unsupported, trimDos, copyCmdArgs, pasteCmdArgs = false, false, nil, nil
		find()
		if !slices.Equal(copyCmdArgs, tt.copy) || trimDos != tt.dos || Unsupported != tt.no {
			t.Errorf("WAYLAND_DISPLAY=%q, PATH with %v: copy %v, trimDos %v, Unsupported %v; want %v, %v, %v",
				tt.wayland, tt.programs, copyCmdArgs, trimDos, Unsupported, tt.copy, tt.dos, tt.no)
		}
	}
}
