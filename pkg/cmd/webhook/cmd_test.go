package webhook

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/spf13/pflag"

	"github.com/openshift/cluster-workload-access-operator/pkg/webhook"
)

const kubeconfig = `apiVersion: v1
kind: Config
clusters:
- name: c
  cluster: {server: "https://api.example:6443"}
users:
- name: u
  user: {token: t}
contexts:
- name: c
  context: {cluster: c, user: u}
current-context: c
`

// The webhook's client is not left at client-go's default of 5 requests/s,
// which would queue SubjectAccessReviews, and so pod creations, under churn.
func TestClientLimits(t *testing.T) {
	path := filepath.Join(t.TempDir(), "kubeconfig")
	if err := os.WriteFile(path, []byte(kubeconfig), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name      string
		args      []string
		wantQPS   float32
		wantBurst int
	}{
		{"defaults", nil, 50, 100},
		{"flags", []string{"--kube-api-qps=20", "--kube-api-burst=40"}, 20, 40},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := NewOptions()
			fs := pflag.NewFlagSet("webhook", pflag.ContinueOnError)
			o.AddFlags(fs)
			if err := fs.Parse(append([]string{"--kubeconfig=" + path}, tc.args...)); err != nil {
				t.Fatal(err)
			}
			config, err := o.restConfig()
			if err != nil {
				t.Fatal(err)
			}
			if config.QPS != tc.wantQPS || config.Burst != tc.wantBurst || config.UserAgent != "workload-access-webhook" {
				t.Errorf("QPS %v, burst %d, user agent %q", config.QPS, config.Burst, config.UserAgent)
			}
		})
	}
}

func TestMaxInFlightFlag(t *testing.T) {
	o := NewOptions()
	if o.MaxInFlight != webhook.DefaultMaxInFlight {
		t.Errorf("default %d", o.MaxInFlight)
	}
	fs := pflag.NewFlagSet("webhook", pflag.ContinueOnError)
	o.AddFlags(fs)
	if err := fs.Parse([]string{"--max-in-flight-admissions=16"}); err != nil || o.MaxInFlight != 16 {
		t.Errorf("--max-in-flight-admissions=16: %d %v", o.MaxInFlight, err)
	}
}
