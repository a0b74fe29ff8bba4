package podidentity

import (
	"strings"
	"sync"
	"testing"

	"k8s.io/utils/ptr"

	podidentityv1alpha1 "github.com/openshift/cluster-workload-access-operator/pkg/apis/podidentity/v1alpha1"
	"github.com/openshift/cluster-workload-access-operator/pkg/webhook/mutation/mutationtest"
)

// admitted is what a pod of shop/frontend gets from m: its token volume
// and the environment of its first container.
func admitted(t *testing.T, m *Mutator, annotations map[string]string) (volumes, env string) {
	t.Helper()
	got, result := mutationtest.Admit(t, m, ns, pod(annotations))
	if result.Denied != nil {
		t.Fatal(result.Denied.Message)
	}
	return volumesOf(got), envOf(got.Spec.Containers[1].Env)
}

// The same mutator, never rebuilt, follows the cluster's defaults: set,
// changed, and cleared back to its flags. Annotations still win over them.
func TestClusterDefaultsAreFollowedWithoutARebuild(t *testing.T) {
	flags := Config{DefaultAudience: "flag.example", DefaultTokenExpiration: 7200}
	m := New(flags, serviceAccounts{
		ns + "/frontend": withRole(),
		ns + "/own":      withRole(podidentityv1alpha1.AudienceAnnotation, "own.example", podidentityv1alpha1.RegionalSTSAnnotation, "false", podidentityv1alpha1.TokenExpirationAnnotation, "1800"),
	})
	const regional = "AWS_STS_REGIONAL_ENDPOINTS=regional "

	for _, step := range []struct {
		name        string
		set         *ClusterDefaults
		wantVolumes string
		wantEnv     string
	}{
		{"the flags before any WorkloadAccess", nil,
			"aws-iam-token{aud=flag.example exp=7200 path=token}", identity},
		{"every default set", &ClusterDefaults{Audience: "cluster.example", TokenExpiration: 3600, RegionalSTS: ptr.To(true)},
			"aws-iam-token{aud=cluster.example exp=3600 path=token}", regional + identity},
		{"the audience changed, the rest left to the flags", &ClusterDefaults{Audience: "other.example"},
			"aws-iam-token{aud=other.example exp=7200 path=token}", identity},
		{"regional STS turned off explicitly", &ClusterDefaults{RegionalSTS: ptr.To(false)},
			"aws-iam-token{aud=flag.example exp=7200 path=token}", identity},
		{"cleared (WorkloadAccess deleted)", &ClusterDefaults{},
			"aws-iam-token{aud=flag.example exp=7200 path=token}", identity},
	} {
		if step.set != nil {
			if problems := m.SetClusterDefaults(*step.set); len(problems) != 0 {
				t.Fatalf("%s: problems %v", step.name, problems)
			}
		}
		volumes, env := admitted(t, m, nil)
		if want := step.wantVolumes + " " + kubeAPIAccess; volumes != want {
			t.Errorf("%s: volumes = %s, want %s", step.name, volumes, want)
		}
		if env != step.wantEnv {
			t.Errorf("%s: env = %s, want %s", step.name, env, step.wantEnv)
		}
	}

	// The ServiceAccount's annotations and the pod's expiration win.
	m.SetClusterDefaults(ClusterDefaults{Audience: "cluster.example", TokenExpiration: 3600, RegionalSTS: ptr.To(true)})
	p := pod(map[string]string{podidentityv1alpha1.TokenExpirationAnnotation: "900"})
	p.Spec.ServiceAccountName = "own"
	got, result := mutationtest.Admit(t, m, ns, p)
	if result.Denied != nil {
		t.Fatal(result.Denied.Message)
	}
	if v := volumesOf(got); v != "aws-iam-token{aud=own.example exp=900 path=token} "+kubeAPIAccess {
		t.Errorf("annotations over cluster defaults: volumes = %s", v)
	}
	if e := envOf(got.Spec.Containers[1].Env); strings.Contains(e, "AWS_STS_REGIONAL_ENDPOINTS") {
		t.Errorf("the ServiceAccount's sts-regional-endpoints=false lost to the cluster default: env = %s", e)
	}
}

// A value the CRD refuses never reaches a pod: its field keeps the flag's
// default and the problem is reported.
func TestClusterDefaultsRefusedByTheCRDAreIgnored(t *testing.T) {
	m := New(DefaultConfig(), serviceAccounts{ns + "/frontend": withRole()})
	problems := m.SetClusterDefaults(ClusterDefaults{Audience: " padded ", TokenExpiration: 599, RegionalSTS: ptr.To(true)})
	if len(problems) != 2 || !strings.Contains(problems[0], `default audience " padded " ignored`) || !strings.Contains(problems[1], "599 s ignored") {
		t.Errorf("problems = %q", problems)
	}
	volumes, env := admitted(t, m, nil)
	if want := "aws-iam-token{aud=sts.amazonaws.com exp=86400 path=token} " + kubeAPIAccess; volumes != want {
		t.Errorf("volumes = %s, want %s", volumes, want)
	}
	if !strings.HasPrefix(env, "AWS_STS_REGIONAL_ENDPOINTS=regional ") {
		t.Errorf("the valid field was dropped with the invalid ones: env = %s", env)
	}
	if problems := m.SetClusterDefaults(ClusterDefaults{TokenExpiration: MaxTokenExpiration + 1}); len(problems) != 1 {
		t.Errorf("an expiration over the maximum: problems %q", problems)
	}
}

// Admissions read the defaults while they change (go test -race): each pod
// gets one snapshot whole, never an audience of one and an expiration of
// another.
func TestClusterDefaultsChangeUnderLoad(t *testing.T) {
	m := New(DefaultConfig(), serviceAccounts{ns + "/frontend": withRole()})
	a := ClusterDefaults{Audience: "a.example", TokenExpiration: 1000}
	b := ClusterDefaults{Audience: "b.example", TokenExpiration: 2000}
	m.SetClusterDefaults(a)
	var wg sync.WaitGroup
	stop := make(chan struct{})
	wg.Add(1)
	go func() {
		defer wg.Done()
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			if i%2 == 0 {
				m.SetClusterDefaults(b)
			} else {
				m.SetClusterDefaults(a)
			}
		}
	}()
	for range 200 {
		volumes, _ := admitted(t, m, nil)
		volumes = strings.TrimSuffix(volumes, " "+kubeAPIAccess)
		if volumes != "aws-iam-token{aud=a.example exp=1000 path=token}" && volumes != "aws-iam-token{aud=b.example exp=2000 path=token}" {
			t.Fatalf("a torn snapshot: %s", volumes)
		}
	}
	close(stop)
	wg.Wait()
}
