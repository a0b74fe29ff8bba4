#!/usr/bin/env bash
# Fails if `make update` would change anything: generated code and CRDs, gofmt,
# go.mod/go.sum, vendor/. It runs `make update` in a scratch copy of the work
# tree (every file git tracks or would track, as it is on disk, uncommitted
# edits and new files included) and diffs, so the work tree is never touched.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
unset GIT_DIR GIT_WORK_TREE GIT_INDEX_FILE

scratch=$(mktemp -d "${TMPDIR:-/tmp}/verify-update.XXXXXX")
files=$scratch.files
trap 'rm -rf "$scratch" "$files"' EXIT

# Tracked files that were deleted on disk stay deleted in the copy.
git ls-files -z --cached --others --exclude-standard |
	while IFS= read -r -d '' f; do
		if [[ -e $f || -L $f ]]; then printf '%s\0' "$f"; fi
	done > "$files"
tar --null -T "$files" -cf - | tar -C "$scratch" -xf -

# Snapshot the copy in its own throwaway repository to diff against afterwards.
# The copy holds exactly the listed files, so -f keeps tracked-but-ignored ones.
# Borrowing the real repository's objects (read-only) saves writing vendor/ again.
sgit() { git -C "$scratch" -c core.excludesFile=/dev/null "$@"; }
sgit init -q
objects=$(cd "$(git rev-parse --git-common-dir)" && pwd)/objects
echo "$objects" > "$scratch/.git/objects/info/alternates"
sgit add -A -f
before=$(sgit write-tree)

# The generators are built from the copy's hack/tools (the same files) into the
# real _output/tools, so warm runs relink nothing.
CODEGEN_TOOLS_DIR=$root/_output/tools make -C "$scratch" --no-print-directory update

sgit add -A
if ! sgit diff --cached --quiet "$before"; then
	echo "'make update' changes these files; run it and commit the result:" >&2
	sgit diff --cached --stat=200 "$before" >&2
	sgit diff --cached "$before" | head -n 200 >&2 || true
	exit 1
fi
echo "verify-update: 'make update' changes nothing"
