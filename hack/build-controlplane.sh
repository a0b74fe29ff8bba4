#!/usr/bin/env bash
# Builds the test control plane (etcd, kube-apiserver, kube-controller-manager,
# kube-scheduler, kwok) from the Go module proxy into a cache directory keyed
# by version, once. Prints the directory. Reruns with all binaries present are
# instant; a cold build takes ~5-14 minutes on 2 cores.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
source "$root/hack/lib/gotool.sh"
tools=$root/test/tools

kube_version=$(gotool::version "$tools/kube" k8s.io/kubernetes)
etcd_version=$(gotool::version "$tools/etcd" go.etcd.io/etcd/server/v3)
kwok_version=$(gotool::version "$tools/kwok" sigs.k8s.io/kwok)
key="kube-${kube_version}_etcd-${etcd_version}_kwok-${kwok_version}"
bin=${CONTROLPLANE_BIN_DIR:-$(gotool::cache_dir controlplane)/$key}
mkdir -p "$bin"

minor=$(echo "$kube_version" | cut -d. -f2)
ldflags="-s -w -X k8s.io/component-base/version.gitVersion=$kube_version \
 -X k8s.io/component-base/version.gitMajor=1 -X k8s.io/component-base/version.gitMinor=$minor \
 -X k8s.io/component-base/version.gitTreeState=clean -X k8s.io/component-base/version.buildDate=1970-01-01T00:00:00Z"

build() { # output name, module dir, package
	gotool::build "$bin/$1" "$2" "$3" "$ldflags"
}

# A binary from an interrupted or mis-stamped build is rebuilt.
for b in kube-apiserver kube-controller-manager kube-scheduler; do
	gotool::drop_unless_stamped "$bin/$b" "^Kubernetes ${kube_version//./\\.}\$"
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
