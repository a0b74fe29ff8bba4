# Sourced by hack/build-*.sh: each builds a Go tool pinned in a module under
# test/tools from the Go module proxy into a cache directory keyed by its
# version, once, and prints where it is.

# gotool::version DIR MODULE prints the version of MODULE that DIR/go.mod
# requires, or fails saying it has none.
gotool::version() {
	local v
	v=$(awk -v m="$2" '{ if ($1 == "require") $0 = substr($0, 9) } $1 == m && $2 ~ /^v/ { print $2; exit }' "$1/go.mod")
	if [ -z "$v" ]; then
		echo "no $2 version in $1/go.mod" >&2
		return 1
	fi
	echo "$v"
}

# gotool::cache_dir NAME prints this project's cache directory for NAME.
gotool::cache_dir() {
	echo "${XDG_CACHE_HOME:-$HOME/.cache}/cluster-workload-access-operator/$1"
}

# gotool::drop_unless_stamped BIN PATTERN removes BIN when its --version
# output has no line matching the extended regular expression PATTERN: a
# binary from an interrupted or mis-stamped build is rebuilt. (The output
# is read whole: grep -q closing the pipe early would fail it.)
gotool::drop_unless_stamped() {
	if [ -x "$1" ] && ! grep -qE "$2" <<<"$("$1" --version 2>/dev/null || true)"; then
		rm -f "$1"
	fi
}

# gotool::build BIN DIR PACKAGE LDFLAGS builds PACKAGE in module DIR into
# BIN unless it is there: through a temporary file, so that an interrupted
# build leaves nothing that looks done.
gotool::build() {
	local bin=$1 dir=$2 pkg=$3 ldflags=$4
	if [ -x "$bin" ]; then return; fi
	mkdir -p "$(dirname "$bin")"
	echo "building $(basename "$bin") ($pkg) into $(dirname "$bin")" >&2
	local start=$SECONDS tmp=$bin.tmp.$$
	if ! (cd "$dir" && CGO_ENABLED=0 GOFLAGS=-mod=mod go build -trimpath -ldflags="$ldflags" -o "$tmp" "$pkg"); then
		rm -f "$tmp"
		return 1
	fi
	mv "$tmp" "$bin"
	echo "built $(basename "$bin") in $((SECONDS - start))s" >&2
}
