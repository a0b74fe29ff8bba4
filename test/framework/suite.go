package framework

import (
	"context"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/openshift/cluster-workload-access-operator/test/controlplane"
	"github.com/openshift/cluster-workload-access-operator/test/framework/netns"
	"github.com/openshift/cluster-workload-access-operator/test/s3server"
)

// Binaries are the programs a test package runs.
type Binaries struct {
	Operator, S3Server, ControlPlaneDir string
}

// env passes them to the package's tests re-run in a network namespace.
func (b Binaries) env() []string {
	return []string{OperatorBinaryEnv + "=" + b.Operator, s3server.BinaryEnv + "=" + b.S3Server, "CONTROLPLANE_BIN_DIR=" + b.ControlPlaneDir}
}

// ResolveBinaries finds the binaries, or builds what is neither given nor
// cached (pkg names the operator's build directory: OperatorBinary).
func ResolveBinaries(pkg string) (b Binaries, err error) {
	if b.Operator, err = OperatorBinary(pkg); err != nil {
		return b, err
	}
	if b.S3Server, err = s3server.ResolveBinary(); err != nil {
		return b, err
	}
	b.ControlPlaneDir, err = controlplane.ResolveBinDir()
	return b, err
}

// Suite is the TestMain of a package that shares one control plane between
// its tests.
type Suite struct {
	// Name is the package's, in messages and in _output/<Name>/.
	Name string
	// Isolated, when set, says why the tests run in a network namespace of
	// their own (netns.Rerun); the binaries are found outside and passed in.
	Isolated string
	// Prepare, when set, builds what else the tests need, before the
	// set-up's deadline: a cold build takes minutes.
	Prepare func(Binaries) error
	// SetUp starts the package's control plane and processes, within 5
	// minutes; TearDown stops them, saying more when the tests failed.
	SetUp    func(context.Context, Binaries) error
	TearDown func(failed bool)
}

// Run runs the package's tests between SetUp and TearDown and returns the
// exit code.
func (s Suite) Run(m *testing.M) int {
	binaries, err := ResolveBinaries(s.Name)
	if err == nil && s.Prepare != nil {
		err = s.Prepare(binaries)
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "%s setup failed: %v\n", s.Name, err)
		return 1
	}
	if s.Isolated != "" {
		if !netns.Inside() {
			code, err := netns.Rerun(s.Isolated, binaries.env())
			if err != nil {
				fmt.Fprintf(os.Stderr, "FAIL: %s: %v\n", s.Name, err)
				return 1
			}
			return code
		}
		if err := netns.SetUpLoopback(); err != nil {
			fmt.Fprintf(os.Stderr, "FAIL: %s: %v\n", s.Name, err)
			return 1
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	started := time.Now()
	if err := s.SetUp(ctx, binaries); err != nil {
		fmt.Fprintf(os.Stderr, "%s setup failed: %v\n", s.Name, err)
		s.TearDown(true)
		return 1
	}
	fmt.Printf("%s: set up in %s\n", s.Name, time.Since(started).Round(100*time.Millisecond))
	code := m.Run()
	s.TearDown(code != 0)
	return code
}
