#!/usr/bin/env bash
# Builds the test control plane (etcd, kube-apiserver, kube-controller-manager,
# kube-scheduler, kwok) from the Go module proxy into a cache directory keyed
# by version, once. Prints the directory. Reruns with all binaries present are
# instant; a cold build takes ~5-14 minutes on 2 cores.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
tools=$root/test/tools

modver() { # module dir, module path
	awk -v m="$2" '{ if ($1 == "require") $0 = substr($0, 9) } $1 == m && $2 ~ /^v/ { print $2; exit }' "$1/go.mod"
}
kube_version=$(modver "$tools/kube" k8s.io/kubernetes)
etcd_version=$(modver "$tools/etcd" go.etcd.io/etcd/server/v3)
kwok_version=$(modver "$tools/kwok" sigs.k8s.io/kwok)
key="kube-${kube_version}_etcd-${etcd_version}_kwok-${kwok_version}"
bin=${CONTROLPLANE_BIN_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/cluster-workload-access-operator/controlplane/$key}
mkdir -p "$bin"

export CGO_ENABLED=0 GOFLAGS=-mod=mod
minor=$(echo "$kube_version" | cut -d. -f2)
ldflags="-s -w -X k8s.io/component-base/version.gitVersion=$kube_version \
 -X k8s.io/component-base/version.gitMajor=1 -X k8s.io/component-base/version.gitMinor=$minor \
 -X k8s.io/component-base/version.gitTreeState=clean -X k8s.io/component-base/version.buildDate=1970-01-01T00:00:00Z"

build() { # output name, module dir, package
	if [ -x "$bin/$1" ]; then return; fi
		echo "building $1 ($3) into $bin" >&2
	local start=$SECONDS
	(cd "$2" && go build -trimpath -ldflags="$ldflags" -o "$bin/$1.tmp" "$3")
	mv "$bin/$1.tmp" "$bin/$1"
	echo "built $1 in $((SECONDS - start))s" >&2
}

# A binary from an interrupted or mis-stamped build is rebuilt.
for b in kube-apiserver kube-controller-manager kube-scheduler; do
	if [ -x "$bin/$b" ] && ! "$bin/$b" --version 2>/dev/null | grep -qx "Kubernetes $kube_version"; then
		rm -f "$bin/$b"
	fi
done

build kube-apiserver "$tools/kube" k8s.io/kubernetes/cmd/kube-apiserver
build kube-controller-manager "$tools/kube" k8s.io/kubernetes/cmd/kube-controller-manager
build kube-scheduler "$tools/kube" k8s.io/kubernetes/cmd/kube-scheduler
build etcd "$tools/etcd" .
build kwok "$tools/kwok" sigs.k8s.io/kwok/cmd/kwok

# kwok needs its stage definitions (fake node and pod lifecycles); they ship
# in the module, not in the binary.
if [ ! -d "$bin/kwok-stages" ]; then
	kwok_dir=$(cd "$tools/kwok" && go mod download -json sigs.k8s.io/kwok | awk -F'"' '$2 == "Dir" { print $4 }')
	mkdir -p "$bin/kwok-stages.tmp"
	for stage in node/fast node/heartbeat pod/fast; do
		for f in "$kwok_dir/kustomize/stage/$stage/"*.yaml; do
			case $(basename "$f") in kustomization.yaml) continue ;; esac
			cp "$f" "$bin/kwok-stages.tmp/"
		done
	done
	chmod -R u+w "$bin/kwok-stages.tmp"
	mv "$bin/kwok-stages.tmp" "$bin/kwok-stages"
fi
echo "$bin"
