// Package rules checks the alerting rules the operator ships
// (manifests/0000_90_workload-access_02_prometheusrule.yaml) with promtool:
// `check rules`, then `test rules` on the cases in *_test.yaml. It also fails
// when an alert has no runbook, no severity OpenShift knows, or no case in
// which it fires and one in which it stays quiet. promtool is $PROMTOOL, or
// built into the tool cache by hack/build-promtool.sh (`make test-rules`).
package rules

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"

	"github.com/openshift/cluster-workload-access-operator/test/controlplane"
)

const (
	manifest   = "manifests/0000_90_workload-access_02_prometheusrule.yaml"
	rulesFile  = "workload-access.rules.yaml"
	runbookURL = "https://github.com/openshift/cluster-workload-access-operator/blob/main/docs/runbooks/"
)

type prometheusRule struct {
	Kind string `json:"kind"`
	Spec struct {
		Groups []struct {
			Name  string `json:"name"`
			Rules []rule `json:"rules"`
		} `json:"groups"`
	} `json:"spec"`
}

type rule struct {
	Alert       string            `json:"alert"`
	Labels      map[string]string `json:"labels"`
	Annotations map[string]string `json:"annotations"`
}

type unitTests struct {
	RuleFiles []string `json:"rule_files"`
	Tests     []struct {
		Name          string `json:"name"`
		AlertRuleTest []struct {
			AlertName string `json:"alertname"`
			ExpAlerts []any  `json:"exp_alerts"`
		} `json:"alert_rule_test"`
	} `json:"tests"`
}

func TestAlertingRules(t *testing.T) {
	root, err := controlplane.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	promtool := promtoolBinary(t, root)
	data, err := os.ReadFile(filepath.Join(root, manifest))
	if err != nil {
		t.Fatal(err)
	}
	var pr prometheusRule
	if err := yaml.Unmarshal(data, &pr); err != nil || pr.Kind != "PrometheusRule" {
		t.Fatalf("%s is not a PrometheusRule: %v", manifest, err)
	}

	// promtool reads Prometheus rule files: the PrometheusRule's spec.
	dir := t.TempDir()
	var spec map[string]any
	if err := yaml.Unmarshal(data, &spec); err != nil {
		t.Fatal(err)
	}
	out, err := yaml.Marshal(spec["spec"])
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, rulesFile), out, 0o600); err != nil {
		t.Fatal(err)
	}
	cases, err := filepath.Glob(filepath.Join(root, "test", "rules", "*_test.yaml"))
	if err != nil || len(cases) == 0 {
		t.Fatalf("no promtool test files: %v", err)
	}
	var copied []string
	fires, quiet := map[string]bool{}, map[string]bool{}
	for _, file := range cases {
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		var ut unitTests
		if err := yaml.Unmarshal(data, &ut); err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		for _, tc := range ut.Tests {
			for _, a := range tc.AlertRuleTest {
				if len(a.ExpAlerts) > 0 {
					fires[a.AlertName] = true
				} else {
					quiet[a.AlertName] = true
				}
			}
		}
		dst := filepath.Join(dir, filepath.Base(file))
		if err := os.WriteFile(dst, data, 0o600); err != nil {
			t.Fatal(err)
		}
		copied = append(copied, dst)
	}

	alerts := 0
	for _, group := range pr.Spec.Groups {
		for _, r := range group.Rules {
			if r.Alert == "" {
				continue
			}
			alerts++
			checkAlert(t, root, r)
			if !fires[r.Alert] {
				t.Errorf("alert %s has no test case in which it fires", r.Alert)
			}
			if !quiet[r.Alert] {
				t.Errorf("alert %s has no test case in which it stays quiet", r.Alert)
			}
		}
	}
	if alerts == 0 {
		t.Fatalf("%s has no alerts", manifest)
	}

	run(t, promtool, "check", "rules", filepath.Join(dir, rulesFile))
	run(t, promtool, append([]string{"test", "rules"}, copied...)...)
}

// checkAlert holds an alert to OpenShift's conventions: a known severity, a
// summary and a description, and a runbook that exists in docs/runbooks.
func checkAlert(t *testing.T, root string, r rule) {
	t.Helper()
	switch r.Labels["severity"] {
	case "critical", "warning", "info":
	default:
		t.Errorf("alert %s: severity %q, want critical, warning or info", r.Alert, r.Labels["severity"])
	}
	for _, key := range []string{"summary", "description"} {
		if strings.TrimSpace(r.Annotations[key]) == "" {
			t.Errorf("alert %s has no %s", r.Alert, key)
		}
	}
	url := r.Annotations["runbook_url"]
	page, ok := strings.CutPrefix(url, runbookURL)
	if !ok {
		t.Errorf("alert %s: runbook_url %q is not under %s", r.Alert, url, runbookURL)
		return
	}
	runbook, err := os.ReadFile(filepath.Join(root, "docs", "runbooks", page))
	if err != nil {
		t.Errorf("alert %s: runbook: %v", r.Alert, err)
		return
	}
	for _, section := range []string{"## Summary", "## Impact", "## Diagnosis", "## Mitigation"} {
		if !strings.Contains(string(runbook), section) {
			t.Errorf("alert %s: runbook %s has no %q section", r.Alert, page, section)
		}
	}
	if !strings.Contains(string(runbook), r.Alert) {
		t.Errorf("alert %s: runbook %s does not name it", r.Alert, page)
	}
}

func run(t *testing.T, binary string, args ...string) {
	t.Helper()
	out, err := exec.Command(binary, args...).CombinedOutput()
	t.Logf("promtool %s:\n%s", strings.Join(args, " "), out)
	if err != nil {
		t.Fatalf("promtool %s: %v", strings.Join(args, " "), err)
	}
}

func promtoolBinary(t *testing.T, root string) string {
	if p := os.Getenv("PROMTOOL"); p != "" {
		return p
	}
	out, err := exec.Command("bash", filepath.Join(root, "hack", "build-promtool.sh")).Output()
	if err != nil {
		t.Fatalf("promtool is not built and hack/build-promtool.sh failed (%v); run `make promtool` to see the whole build", err)
	}
	return strings.TrimSpace(string(out))
}
