// Package version is the build's identity, set at link time by the Makefile.
package version

import (
	"fmt"
	"runtime"

	"k8s.io/apimachinery/pkg/version"
)

var (
	// Set with -ldflags "-X .../pkg/version.versionFromGit=..." (build-machinery-go does).
	versionFromGit = "v0.0.0-unknown"
	commitFromGit  = ""
	buildDate      = "1970-01-01T00:00:00Z"
	gitTreeState   = ""
)

// Get returns the build information.
func Get() version.Info {
	return version.Info{
		GitVersion:   versionFromGit,
		GitCommit:    commitFromGit,
		GitTreeState: gitTreeState,
		BuildDate:    buildDate,
		GoVersion:    runtime.Version(),
		Compiler:     runtime.Compiler,
		Platform:     fmt.Sprintf("%s/%s", runtime.GOOS, runtime.GOARCH),
	}
}
