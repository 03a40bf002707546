# Release builds are made by scripts/release.sh (no goreleaser: the build machine is
# offline). `go install ./cmd/clawseed` remains the way to install from source.
.POSIX:
.PHONY: build release test clean

# bin/clawseed for this machine, with the release flags.
build:
	scripts/release.sh build

# dist/: static binaries for linux, darwin and windows on amd64 and arm64, one
# archive each, and dist/checksums.txt.
release:
	scripts/release.sh release

test:
	go test -race ./...

clean:
	rm -rf dist bin/clawseed
