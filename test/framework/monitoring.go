package framework

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
)

// monitoringModule ships the monitoring.coreos.com CRDs as prometheus-operator
// generates them; test/tools/monitoring pins its version.
const monitoringModule = "github.com/prometheus-operator/prometheus-operator"

// MonitoringCRDs are the ServiceMonitor and PrometheusRule CRDs the payload's
// monitoring manifests need (on a real cluster the cluster monitoring
// operator installs them), from the module's example/prometheus-operator-crd,
// downloaded through the module proxy on first use.
func MonitoringCRDs(root string) ([]string, error) {
	cmd := exec.Command("go", "mod", "download", "-json", monitoringModule)
	cmd.Dir = filepath.Join(root, "test", "tools", "monitoring")
	// The caller may build with -mod=vendor; this module is not vendored.
	cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod", "GOWORK=off")
	out, err := cmd.Output()
	var mod struct{ Dir, Error string }
	if jsonErr := json.Unmarshal(out, &mod); jsonErr != nil || mod.Error != "" || mod.Dir == "" {
		return nil, fmt.Errorf("downloading %s (test/tools/monitoring): %v %s %v", monitoringModule, err, mod.Error, jsonErr)
	}
	dir := filepath.Join(mod.Dir, "example", "prometheus-operator-crd")
	return []string{
		filepath.Join(dir, "monitoring.coreos.com_servicemonitors.yaml"),
		filepath.Join(dir, "monitoring.coreos.com_prometheusrules.yaml"),
	}, nil
}
