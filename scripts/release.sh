#!/bin/sh
# Release builds of clawseed without goreleaser (the build machine is offline).
#
#   scripts/release.sh          static binaries for the six release targets in dist/,
#                               one archive each, and dist/checksums.txt
#   scripts/release.sh build    the same binary for this machine, in bin/clawseed
#
# VERSION (default: git describe, else "dev") can be set in the environment.
# `go install ./cmd/clawseed` stays the way to install from source; this script only
# makes the smaller, reproducible binaries that are published.
set -eu

cd "$(dirname "$0")/.."

TARGETS="linux/amd64 linux/arm64 darwin/amd64 darwin/arm64 windows/amd64 windows/arm64"
DIST=dist

VERSION=${VERSION:-$(git describe --tags --always --dirty 2>/dev/null || true)}
VERSION=${VERSION:-dev}

# -trimpath drops this machine's paths from the binary (reproducible builds, no leaked
# home directory); -s -w drop the symbol table and DWARF (about a third of the size;
# panics still print file:line, which come from the pclntab that -s keeps).
# CGO_ENABLED=0: the sqlite driver is pure Go, so no C toolchain and no libc to match.
LDFLAGS="-s -w -X main.version=$VERSION"

# build GOOS GOARCH OUT: one release binary.
build() {
	echo "build $1/$2 -> $3"
	CGO_ENABLED=0 GOOS=$1 GOARCH=$2 go build -trimpath -ldflags="$LDFLAGS" -o "$3" ./cmd/clawseed
}

# Archive timestamps come from the commit, so the same commit gives the same checksums.
EPOCH=${SOURCE_DATE_EPOCH:-$(git log -1 --format=%ct 2>/dev/null || echo 0)}
STAMP=$(date -u -d "@$EPOCH" +%Y%m%d%H%M.%S 2>/dev/null || date -u -r "$EPOCH" +%Y%m%d%H%M.%S)

# archive DIR: DIR.zip for Windows when zip exists, else DIR.tar.gz.
archive() {
	dir=$1
	TZ=UTC0 touch -t "$STAMP" "$DIST/$dir" "$DIST/$dir"/*
	case $dir in
	*_windows_*)
		if command -v zip >/dev/null 2>&1; then
			(cd "$DIST" && rm -f "$dir.zip" && TZ=UTC0 zip -q -X -r "$dir.zip" "$dir")
			echo "$dir.zip"
			return
		fi
		;;
	esac
	# GNU tar can also drop the builder's user and fix the order; bsdtar cannot, and
	# there the archive still has the commit's timestamps.
	opts=
	if tar --version 2>/dev/null | grep -q 'GNU tar'; then
		opts="--sort=name --owner=0 --group=0 --numeric-owner"
	fi
	# shellcheck disable=SC2086 # opts is a word list
	(cd "$DIST" && tar $opts -cf - "$dir" | gzip -n -9 >"$dir.tar.gz")
	echo "$dir.tar.gz"
}

sha256() {
	if command -v sha256sum >/dev/null 2>&1; then
		sha256sum "$@"
	else
		shasum -a 256 "$@"
	fi
}

release() {
	rm -rf "$DIST"
	mkdir -p "$DIST"
	archives=
	for t in $TARGETS; do
		goos=${t%/*}
		goarch=${t#*/}
		dir=clawseed_${VERSION}_${goos}_${goarch}
		exe=clawseed
		[ "$goos" = windows ] && exe=clawseed.exe
		build "$goos" "$goarch" "$DIST/$dir/$exe"
		archives="$archives $(archive "$dir")"
	done
	# shellcheck disable=SC2086 # archives is a word list of plain file names
	(cd "$DIST" && sha256 $archives >checksums.txt)
	echo "wrote $DIST/checksums.txt"
}

case ${1:-release} in
release) release ;;
build) build "$(go env GOOS)" "$(go env GOARCH)" bin/clawseed ;;
*)
	echo "usage: $0 [release|build]" >&2
	exit 2
	;;
esac
