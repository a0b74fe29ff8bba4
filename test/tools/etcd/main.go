// Command etcd is the etcd server, built from the module proxy at the version
// the test control plane's kube-apiserver was released against.
package main

import (
	"os"

	"go.etcd.io/etcd/server/v3/etcdmain"
)

func main() { etcdmain.Main(os.Args) }
