package framework

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"

	"github.com/openshift/cluster-workload-access-operator/test/controlplane"
)

// OperatorBinaryEnv names the operator binary a test package runs; the
// Makefile's test targets pass what `make build` produced.
const OperatorBinaryEnv = "OPERATOR_BINARY"

// OperatorBinary is $OPERATOR_BINARY as an absolute path, or, for a plain
// `go test` of one package, this tree's operator built into
// _output/<pkg>/ (pkg keeps packages run at once from writing one file).
func OperatorBinary(pkg string) (string, error) {
	if bin := os.Getenv(OperatorBinaryEnv); bin != "" {
		return filepath.Abs(bin)
	}
	root, err := controlplane.RepoRoot()
	if err != nil {
		return "", err
	}
	out := filepath.Join(root, "_output", pkg, "cluster-workload-access-operator")
	cmd := exec.Command("go", "build", "-o", out, "./cmd/cluster-workload-access-operator")
	cmd.Dir = root
	if output, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("building the operator: %v\n%s", err, output)
	}
	return out, nil
}
