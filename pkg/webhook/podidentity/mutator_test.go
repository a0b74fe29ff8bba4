package podidentity

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	admissionv1 "k8s.io/api/admission/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	podidentityv1alpha1 "github.com/openshift/cluster-workload-access-operator/pkg/apis/podidentity/v1alpha1"
	"github.com/openshift/cluster-workload-access-operator/pkg/webhook/mutation"
	"github.com/openshift/cluster-workload-access-operator/pkg/webhook/mutation/mutationtest"
)

const (
	ns        = "shop"
	role      = "arn:aws:iam::111122223333:role/s3-reader"
	mountPath = "/var/run/secrets/eks.amazonaws.com/serviceaccount"
	tokenPath = mountPath + "/token"
	identity  = "AWS_ROLE_ARN=" + role + " AWS_WEB_IDENTITY_TOKEN_FILE=" + tokenPath
	tokenAt   = "aws-iam-token@" + mountPath + ":ro"
)

// serviceAccounts is the fake view: "namespace/name" to annotations, kept
// as the server's cache keeps them (CachedAnnotations). ServiceAccounts
// named "flaky" fail the lookup.
type serviceAccounts map[string]map[string]string

func (s serviceAccounts) Annotations(_ context.Context, namespace, name string) (*RoleAnnotations, bool, error) {
	if name == "flaky" {
		return nil, false, errors.New("the ServiceAccount is not in the cache and the API server did not answer within 1s")
	}
	if name == "unread" {
		return nil, false, fmt.Errorf("ServiceAccount %s/%s is not in the webhook's cache yet, and namespace %s's budget is spent: %w", namespace, name, namespace, ErrLookupBudgetSpent)
	}
	a, ok := s[namespace+"/"+name]
	return CachedAnnotations(a), ok, nil
}

// keptServiceAccounts is the fake view over what the cache keeps, for the
// benchmarks (no copy per lookup, as in the server) and the fuzz targets.
type keptServiceAccounts map[string]*RoleAnnotations

func (s keptServiceAccounts) Annotations(_ context.Context, namespace, name string) (*RoleAnnotations, bool, error) {
	a, ok := s[namespace+"/"+name]
	return a, ok, nil
}

func withRole(extra ...string) map[string]string {
	a := map[string]string{podidentityv1alpha1.RoleARNAnnotation: role}
	for i := 0; i+1 < len(extra); i += 2 {
		a[extra[i]] = extra[i+1]
	}
	return a
}

// pod is a deployment's pod: an init container, a container with env and a
// mount, and a sidecar with neither.
func pod(annotations map[string]string) *corev1.Pod {
	return &corev1.Pod{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "Pod"},
		ObjectMeta: metav1.ObjectMeta{GenerateName: "frontend-7d9f8b6c5d-", Namespace: ns, Annotations: annotations},
		Spec: corev1.PodSpec{
			ServiceAccountName: "frontend",
			InitContainers:     []corev1.Container{{Name: "migrate", Image: "quay.io/example/frontend:1"}},
			Containers: []corev1.Container{{
				Name: "web", Image: "quay.io/example/frontend:1",
				Env:          []corev1.EnvVar{{Name: "LOG_LEVEL", Value: "info"}},
				VolumeMounts: []corev1.VolumeMount{{Name: "kube-api-access-x7k2p", MountPath: "/var/run/secrets/kubernetes.io/serviceaccount", ReadOnly: true}},
			}, {
				Name: "proxy", Image: "quay.io/example/proxy:1.4",
			}},
			Volumes: []corev1.Volume{{Name: "kube-api-access-x7k2p", VolumeSource: corev1.VolumeSource{Projected: &corev1.ProjectedVolumeSource{
				Sources: []corev1.VolumeProjection{{ServiceAccountToken: &corev1.ServiceAccountTokenProjection{Path: "token", ExpirationSeconds: ptr.To(int64(3607))}}},
			}}}},
		},
	}
}

// envOf renders a container's environment as "NAME=value ...".
func envOf(env []corev1.EnvVar) string {
	var out []string
	for _, e := range env {
		if e.ValueFrom != nil {
			out = append(out, e.Name+"=<from>")
			continue
		}
		out = append(out, e.Name+"="+e.Value)
	}
	return strings.Join(out, " ")
}

// mountsOf renders a container's mounts as "volume@path[:ro] ...".
func mountsOf(mounts []corev1.VolumeMount) string {
	var out []string
	for _, m := range mounts {
		s := m.Name + "@" + m.MountPath
		if m.ReadOnly {
			s += ":ro"
		}
		out = append(out, s)
	}
	return strings.Join(out, " ")
}

// volumesOf renders the pod's volumes, the token projections in full.
func volumesOf(p *corev1.Pod) string {
	var out []string
	for _, v := range p.Spec.Volumes {
		s := v.Name
		if v.Projected != nil {
			for _, src := range v.Projected.Sources {
				if t := src.ServiceAccountToken; t != nil {
					s += fmt.Sprintf("{aud=%s exp=%d path=%s}", t.Audience, ptr.Deref(t.ExpirationSeconds, 0), t.Path)
				}
			}
		}
		out = append(out, s)
	}
	return strings.Join(out, " ")
}

const kubeAPIAccess = "kube-api-access-x7k2p{aud= exp=3607 path=token}"

func TestInjection(t *testing.T) {
	for _, tc := range []struct {
		name   string
		config func(*Config)
		sa     map[string]string // the ServiceAccount frontend's annotations
		pod    func(*corev1.Pod)
		// want: the containers' env and mounts and the volumes, "" to not
		// check, "-" for as before; the warnings.
		migrate, web, proxy      string
		migrateMounts, webMounts string
		proxyMounts, volumes     string
		warnings                 []string
		ignoredEntirely          bool
		// untouched names the containers whose env and mounts must be
		// exactly as before ("-" cannot say it of an empty list).
		untouched []string
	}{{
		name:    "a role alone",
		sa:      withRole(),
		migrate: identity, web: "LOG_LEVEL=info " + identity, proxy: identity,
		volumes: "aws-iam-token{aud=sts.amazonaws.com exp=86400 path=token} " + kubeAPIAccess,
	}, {
		name:    "the cluster's region",
		config:  func(c *Config) { c.Region = "eu-west-3" },
		sa:      withRole(),
		migrate: "AWS_DEFAULT_REGION=eu-west-3 AWS_REGION=eu-west-3 " + identity,
		web:     "LOG_LEVEL=info AWS_DEFAULT_REGION=eu-west-3 AWS_REGION=eu-west-3 " + identity,
		proxy:   "AWS_DEFAULT_REGION=eu-west-3 AWS_REGION=eu-west-3 " + identity,
	}, {
		name:    "regional STS by default",
		config:  func(c *Config) { c.DefaultRegionalSTS = true },
		sa:      withRole(),
		migrate: "AWS_STS_REGIONAL_ENDPOINTS=regional " + identity, web: "LOG_LEVEL=info AWS_STS_REGIONAL_ENDPOINTS=regional " + identity,
		proxy: "AWS_STS_REGIONAL_ENDPOINTS=regional " + identity,
	}, {
		name:    "the ServiceAccount turns regional STS off",
		config:  func(c *Config) { c.DefaultRegionalSTS = true },
		sa:      withRole(podidentityv1alpha1.RegionalSTSAnnotation, "false"),
		migrate: identity, web: "LOG_LEVEL=info " + identity, proxy: identity,
	}, {
		name:    "the ServiceAccount turns regional STS on",
		sa:      withRole(podidentityv1alpha1.RegionalSTSAnnotation, "True"),
		migrate: "AWS_STS_REGIONAL_ENDPOINTS=regional " + identity, web: "LOG_LEVEL=info AWS_STS_REGIONAL_ENDPOINTS=regional " + identity,
		proxy: "AWS_STS_REGIONAL_ENDPOINTS=regional " + identity,
	}, {
		name:    "region and regional STS, in upstream's order",
		config:  func(c *Config) { c.Region = "us-east-1" },
		sa:      withRole(podidentityv1alpha1.RegionalSTSAnnotation, "true"),
		migrate: "AWS_STS_REGIONAL_ENDPOINTS=regional AWS_DEFAULT_REGION=us-east-1 AWS_REGION=us-east-1 " + identity,
	}, {
		name:    "the ServiceAccount's audience and expiration",
		sa:      withRole(podidentityv1alpha1.AudienceAnnotation, "sts.amazonaws.com.cn", podidentityv1alpha1.TokenExpirationAnnotation, "3600"),
		volumes: "aws-iam-token{aud=sts.amazonaws.com.cn exp=3600 path=token} " + kubeAPIAccess,
	}, {
		name: "the pod's expiration wins over the ServiceAccount's",
		sa:   withRole(podidentityv1alpha1.TokenExpirationAnnotation, "3600"),
		pod: func(p *corev1.Pod) {
			p.Annotations = map[string]string{podidentityv1alpha1.TokenExpirationAnnotation: "7200"}
		},
		volumes: "aws-iam-token{aud=sts.amazonaws.com exp=7200 path=token} " + kubeAPIAccess,
	}, {
		name:    "the configured expiration",
		config:  func(c *Config) { c.DefaultTokenExpiration = 43200; c.DefaultAudience = "example" },
		sa:      withRole(),
		volumes: "aws-iam-token{aud=example exp=43200 path=token} " + kubeAPIAccess,
	}, {
		name: "a short expiration on the pod is raised to 600 s",
		sa:   withRole(podidentityv1alpha1.TokenExpirationAnnotation, "3600"),
		pod: func(p *corev1.Pod) {
			p.Annotations = map[string]string{podidentityv1alpha1.TokenExpirationAnnotation: "300"}
		},
		volumes:  "aws-iam-token{aud=sts.amazonaws.com exp=600 path=token} " + kubeAPIAccess,
		warnings: []string{"annotation eks.amazonaws.com/token-expiration on pod shop/frontend-7d9f8b6c5d- asks for a 300 s token; Kubernetes issues tokens for at least 600 s, so the token lasts 600 s"},
	}, {
		name:     "a zero expiration on the ServiceAccount is raised to 600 s",
		sa:       withRole(podidentityv1alpha1.TokenExpirationAnnotation, "0"),
		volumes:  "aws-iam-token{aud=sts.amazonaws.com exp=600 path=token} " + kubeAPIAccess,
		warnings: []string{"annotation eks.amazonaws.com/token-expiration on ServiceAccount shop/frontend asks for a 0 s token; Kubernetes issues tokens for at least 600 s, so the token lasts 600 s"},
	}, {
		name: "skipped containers, init containers included",
		sa:   withRole(),
		pod: func(p *corev1.Pod) {
			p.Annotations = map[string]string{podidentityv1alpha1.SkipContainersAnnotation: " proxy , migrate"}
		},
		migrate: "-", web: "LOG_LEVEL=info " + identity, proxy: "-",
		migrateMounts: "-", proxyMounts: "-",
	}, {
		name: "an empty skip list skips nothing",
		sa:   withRole(),
		pod: func(p *corev1.Pod) {
			p.Annotations = map[string]string{podidentityv1alpha1.SkipContainersAnnotation: " "}
		},
		web: "LOG_LEVEL=info " + identity, proxy: identity,
	}, {
		name: "an allow-list: only the containers it names, init containers included",
		sa:   withRole(),
		pod: func(p *corev1.Pod) {
			p.Annotations = map[string]string{podidentityv1alpha1.AllowContainersAnnotation: " web , migrate,web"}
		},
		migrate: identity, web: "LOG_LEVEL=info " + identity, migrateMounts: tokenAt,
		untouched: []string{"proxy"},
		volumes:   "aws-iam-token{aud=sts.amazonaws.com exp=86400 path=token} " + kubeAPIAccess,
	}, {
		name: "an allow-list naming a container the pod does not have ignores that name",
		sa:   withRole(),
		pod: func(p *corev1.Pod) {
			p.Annotations = map[string]string{podidentityv1alpha1.AllowContainersAnnotation: "proxy,debugger"}
		},
		proxy: identity, proxyMounts: tokenAt,
		untouched: []string{"migrate", "web"},
	}, {
		name: "an allow-list of containers the pod does not have: the token volume, no container with credentials",
		sa:   withRole(),
		pod: func(p *corev1.Pod) {
			p.Annotations = map[string]string{podidentityv1alpha1.AllowContainersAnnotation: "debugger"}
		},
		untouched: []string{"migrate", "web", "proxy"},
		volumes:   "aws-iam-token{aud=sts.amazonaws.com exp=86400 path=token} " + kubeAPIAccess,
	}, {
		name: "an allow-list beside a skip list naming other containers",
		sa:   withRole(),
		pod: func(p *corev1.Pod) {
			p.Annotations = map[string]string{
				podidentityv1alpha1.AllowContainersAnnotation: "web,proxy",
				podidentityv1alpha1.SkipContainersAnnotation:  "proxy2,migrate",
			}
		},
		web: "LOG_LEVEL=info " + identity, proxy: identity,
		untouched: []string{"migrate"},
	}, {
		name: "a container left out of the allow-list may mount something at the token's path",
		sa:   withRole(),
		pod: func(p *corev1.Pod) {
			p.Annotations = map[string]string{podidentityv1alpha1.AllowContainersAnnotation: "proxy"}
			p.Spec.Containers[0].VolumeMounts = append(p.Spec.Containers[0].VolumeMounts, corev1.VolumeMount{Name: "kube-api-access-x7k2p", MountPath: mountPath})
		},
		proxy: identity, untouched: []string{"web", "migrate"},
	}, {
		name:   "a container's own region is kept, both variables",
		config: func(c *Config) { c.Region = "eu-west-3"; c.DefaultRegionalSTS = true },
		sa:     withRole(),
		pod: func(p *corev1.Pod) {
			p.Spec.Containers[0].Env = append(p.Spec.Containers[0].Env, corev1.EnvVar{Name: "AWS_REGION", Value: "us-west-2"})
			p.Spec.Containers[1].Env = []corev1.EnvVar{{Name: "AWS_DEFAULT_REGION", Value: "us-west-2"}}
		},
		web:   "LOG_LEVEL=info AWS_REGION=us-west-2 AWS_STS_REGIONAL_ENDPOINTS=regional " + identity,
		proxy: "AWS_DEFAULT_REGION=us-west-2 AWS_STS_REGIONAL_ENDPOINTS=regional " + identity,
	}, {
		name:   "a container's own STS setting is kept",
		config: func(c *Config) { c.DefaultRegionalSTS = true },
		sa:     withRole(),
		pod: func(p *corev1.Pod) {
			p.Spec.Containers[1].Env = []corev1.EnvVar{{Name: "AWS_STS_REGIONAL_ENDPOINTS", Value: "legacy"}}
		},
		proxy: "AWS_STS_REGIONAL_ENDPOINTS=legacy " + identity,
	}, {
		name: "a container's own identity is kept, either variable, and still gets the token",
		sa:   withRole(),
		pod: func(p *corev1.Pod) {
			p.Spec.Containers[0].Env = append(p.Spec.Containers[0].Env, corev1.EnvVar{Name: "AWS_ROLE_ARN", ValueFrom: &corev1.EnvVarSource{
				SecretKeyRef: &corev1.SecretKeySelector{LocalObjectReference: corev1.LocalObjectReference{Name: "aws"}, Key: "role"}}})
			p.Spec.Containers[1].Env = []corev1.EnvVar{{Name: "AWS_WEB_IDENTITY_TOKEN_FILE", Value: "/tokens/aws"}}
		},
		web: "LOG_LEVEL=info AWS_ROLE_ARN=<from>", webMounts: "kube-api-access-x7k2p@/var/run/secrets/kubernetes.io/serviceaccount:ro " + tokenAt,
		proxy: "AWS_WEB_IDENTITY_TOKEN_FILE=/tokens/aws", proxyMounts: tokenAt,
	}, {
		name:   "a container that sets all three groups is left as it is, as upstream",
		config: func(c *Config) { c.Region = "eu-west-3" },
		sa:     withRole(),
		pod: func(p *corev1.Pod) {
			p.Spec.Containers[1].Env = []corev1.EnvVar{{Name: "AWS_ROLE_ARN", Value: "mine"}, {Name: "AWS_REGION", Value: "mine"}, {Name: "AWS_STS_REGIONAL_ENDPOINTS", Value: "legacy"}}
		},
		proxy: "AWS_ROLE_ARN=mine AWS_REGION=mine AWS_STS_REGIONAL_ENDPOINTS=legacy", proxyMounts: "-",
	}, {
		name:   "a container that sets two groups gets the third, and the token",
		config: func(c *Config) { c.Region = "eu-west-3"; c.DefaultRegionalSTS = true },
		sa:     withRole(),
		pod: func(p *corev1.Pod) {
			p.Spec.Containers[1].Env = []corev1.EnvVar{{Name: "AWS_WEB_IDENTITY_TOKEN_FILE", Value: "/t"}, {Name: "AWS_DEFAULT_REGION", Value: "mine"}}
		},
		proxy: "AWS_WEB_IDENTITY_TOKEN_FILE=/t AWS_DEFAULT_REGION=mine AWS_STS_REGIONAL_ENDPOINTS=regional", proxyMounts: tokenAt,
	}, {
		name: "a container mounting the token volume elsewhere keeps its mount",
		sa:   withRole(),
		pod: func(p *corev1.Pod) {
			p.Spec.Containers[1].VolumeMounts = []corev1.VolumeMount{{Name: VolumeName, MountPath: "/tokens"}}
		},
		proxy: identity, proxyMounts: "aws-iam-token@/tokens",
	}, {
		name: "a token volume already there is kept",
		sa:   withRole(podidentityv1alpha1.AudienceAnnotation, "other"),
		pod: func(p *corev1.Pod) {
			p.Spec.Volumes = append(p.Spec.Volumes, corev1.Volume{Name: VolumeName, VolumeSource: corev1.VolumeSource{Projected: &corev1.ProjectedVolumeSource{
				Sources: []corev1.VolumeProjection{{ServiceAccountToken: &corev1.ServiceAccountTokenProjection{Audience: "sts.amazonaws.com", ExpirationSeconds: ptr.To(int64(3600)), Path: "token"}}},
			}}})
		},
		web:     "LOG_LEVEL=info " + identity,
		volumes: kubeAPIAccess + " aws-iam-token{aud=sts.amazonaws.com exp=3600 path=token}",
	}, {
		name:      "a pod without volumes or mounts",
		sa:        withRole(),
		pod:       func(p *corev1.Pod) { p.Spec.Volumes = nil; p.Spec.Containers[0].VolumeMounts = nil },
		webMounts: tokenAt, volumes: "aws-iam-token{aud=sts.amazonaws.com exp=86400 path=token}",
	}, {
		name:      "a Windows pod",
		sa:        withRole(),
		pod:       func(p *corev1.Pod) { p.Spec.NodeSelector = map[string]string{"kubernetes.io/os": "windows"} },
		proxy:     `AWS_ROLE_ARN=` + role + ` AWS_WEB_IDENTITY_TOKEN_FILE=C:\var\run\secrets\eks.amazonaws.com\serviceaccount\token`,
		webMounts: "kube-api-access-x7k2p@/var/run/secrets/kubernetes.io/serviceaccount:ro " + tokenAt,
	}, {
		name:  "a Windows pod by the beta label",
		sa:    withRole(),
		pod:   func(p *corev1.Pod) { p.Spec.NodeSelector = map[string]string{"beta.kubernetes.io/os": "windows"} },
		proxy: `AWS_ROLE_ARN=` + role + ` AWS_WEB_IDENTITY_TOKEN_FILE=C:\var\run\secrets\eks.amazonaws.com\serviceaccount\token`,
	}, {
		name:  "a Windows pod by spec.os",
		sa:    withRole(),
		pod:   func(p *corev1.Pod) { p.Spec.OS = &corev1.PodOS{Name: corev1.Windows} },
		proxy: `AWS_ROLE_ARN=` + role + ` AWS_WEB_IDENTITY_TOKEN_FILE=C:\var\run\secrets\eks.amazonaws.com\serviceaccount\token`,
	}, {
		name:  "a Linux pod by spec.os",
		sa:    withRole(),
		pod:   func(p *corev1.Pod) { p.Spec.OS = &corev1.PodOS{Name: corev1.Linux} },
		proxy: identity,
	}, {
		name:  "a Linux pod",
		sa:    withRole(),
		pod:   func(p *corev1.Pod) { p.Spec.NodeSelector = map[string]string{"kubernetes.io/os": "linux"} },
		proxy: identity,
	}, {
		name:   "another mount path",
		config: func(c *Config) { c.MountPath = "/run/aws" },
		sa:     withRole(),
		proxy:  "AWS_ROLE_ARN=" + role + " AWS_WEB_IDENTITY_TOKEN_FILE=/run/aws/token", proxyMounts: "aws-iam-token@/run/aws:ro",
	}, {
		name: "a ServiceAccount without a role", sa: map[string]string{podidentityv1alpha1.AudienceAnnotation: "x"}, ignoredEntirely: true,
	}, {
		name: "an empty role, as charts leave it", sa: map[string]string{podidentityv1alpha1.RoleARNAnnotation: ""}, ignoredEntirely: true,
	}, {
		name: "no ServiceAccount", ignoredEntirely: true,
	}, {
		name: "a pod without a role is not read", sa: map[string]string{podidentityv1alpha1.AudienceAnnotation: ""},
		pod: func(p *corev1.Pod) {
			p.Annotations = map[string]string{podidentityv1alpha1.TokenExpirationAnnotation: "soon", podidentityv1alpha1.SkipContainersAnnotation: ",,",
				podidentityv1alpha1.AllowContainersAnnotation: ""}
		},
		ignoredEntirely: true,
	}} {
		t.Run(tc.name, func(t *testing.T) {
			config := DefaultConfig()
			if tc.config != nil {
				tc.config(&config)
			}
			sas := serviceAccounts{}
			if tc.sa != nil {
				sas[ns+"/frontend"] = tc.sa
			}
			m := New(config, sas)
			p := pod(nil)
			if tc.pod != nil {
				tc.pod(p)
			}
			before := p.DeepCopy()
			got, result := mutationtest.Admit(t, m, ns, p)
			if result.Denied != nil {
				t.Fatalf("denied: %s", result.Denied.Message)
			}
			if tc.ignoredEntirely {
				if len(result.Patch) != 0 || len(result.Warnings) != 0 {
					t.Fatalf("want an empty result, got %+v", result)
				}
				return
			}
			check := func(what, got, want, before string) {
				t.Helper()
				if want == "-" {
					want = before
				}
				if want != "" && got != want {
					t.Errorf("%s:\n got %s\nwant %s", what, got, want)
				}
			}
			check("migrate env", envOf(got.Spec.InitContainers[0].Env), tc.migrate, envOf(before.Spec.InitContainers[0].Env))
			check("web env", envOf(got.Spec.Containers[0].Env), tc.web, envOf(before.Spec.Containers[0].Env))
			check("proxy env", envOf(got.Spec.Containers[1].Env), tc.proxy, envOf(before.Spec.Containers[1].Env))
			check("migrate mounts", mountsOf(got.Spec.InitContainers[0].VolumeMounts), tc.migrateMounts, mountsOf(before.Spec.InitContainers[0].VolumeMounts))
			check("web mounts", mountsOf(got.Spec.Containers[0].VolumeMounts), tc.webMounts, mountsOf(before.Spec.Containers[0].VolumeMounts))
			check("proxy mounts", mountsOf(got.Spec.Containers[1].VolumeMounts), tc.proxyMounts, mountsOf(before.Spec.Containers[1].VolumeMounts))
			check("volumes", volumesOf(got), tc.volumes, volumesOf(before))
			for _, name := range tc.untouched {
				b, a := containerNamed(before, name), containerNamed(got, name)
				if !same(a.Env, b.Env) || !same(a.VolumeMounts, b.VolumeMounts) {
					t.Errorf("container %s changed: env %s, mounts %s", name, envOf(a.Env), mountsOf(a.VolumeMounts))
				}
			}
			if strings.Join(result.Warnings, "\n") != strings.Join(tc.warnings, "\n") {
				t.Errorf("warnings = %q\nwant %q", result.Warnings, tc.warnings)
			}

			// The API server's reinvocation: nothing more to do.
			_, again := mutationtest.Admit(t, m, ns, got)
			if again.Denied != nil || len(again.Patch) != 0 || len(again.Warnings) != 0 {
				t.Errorf("admitting the injected pod again: %+v", again)
			}
		})
	}
}

func containerNamed(p *corev1.Pod, name string) corev1.Container {
	for _, c := range append(p.Spec.InitContainers, p.Spec.Containers...) {
		if c.Name == name {
			return c
		}
	}
	panic("no container " + name)
}

// TestPatch pins the patch's shape: it only adds, the volume first as
// upstream, and appends to lists the pod has rather than replacing them.
func TestPatch(t *testing.T) {
	m := New(DefaultConfig(), serviceAccounts{ns + "/frontend": withRole()})
	result := m.Mutate(context.Background(), mutation.RequestFor(admissionv1.Create, ns, "", pod(nil), nil))
	got, err := json.Marshal(result.Patch)
	if err != nil {
		t.Fatal(err)
	}
	want := `[` +
		`{"op":"add","path":"/spec/volumes/0","value":{"name":"aws-iam-token","projected":{"sources":[{"serviceAccountToken":{"audience":"sts.amazonaws.com","expirationSeconds":86400,"path":"token"}}]}}},` +
		`{"op":"add","path":"/spec/initContainers/0/env","value":[{"name":"AWS_ROLE_ARN","value":"arn:aws:iam::111122223333:role/s3-reader"},{"name":"AWS_WEB_IDENTITY_TOKEN_FILE","value":"/var/run/secrets/eks.amazonaws.com/serviceaccount/token"}]},` +
		`{"op":"add","path":"/spec/initContainers/0/volumeMounts","value":[{"name":"aws-iam-token","readOnly":true,"mountPath":"/var/run/secrets/eks.amazonaws.com/serviceaccount"}]},` +
		`{"op":"add","path":"/spec/containers/0/env/-","value":{"name":"AWS_ROLE_ARN","value":"arn:aws:iam::111122223333:role/s3-reader"}},` +
		`{"op":"add","path":"/spec/containers/0/env/-","value":{"name":"AWS_WEB_IDENTITY_TOKEN_FILE","value":"/var/run/secrets/eks.amazonaws.com/serviceaccount/token"}},` +
		`{"op":"add","path":"/spec/containers/0/volumeMounts/-","value":{"name":"aws-iam-token","readOnly":true,"mountPath":"/var/run/secrets/eks.amazonaws.com/serviceaccount"}},` +
		`{"op":"add","path":"/spec/containers/1/env","value":[{"name":"AWS_ROLE_ARN","value":"arn:aws:iam::111122223333:role/s3-reader"},{"name":"AWS_WEB_IDENTITY_TOKEN_FILE","value":"/var/run/secrets/eks.amazonaws.com/serviceaccount/token"}]},` +
		`{"op":"add","path":"/spec/containers/1/volumeMounts","value":[{"name":"aws-iam-token","readOnly":true,"mountPath":"/var/run/secrets/eks.amazonaws.com/serviceaccount"}]}` +
		`]`
	if string(got) != want {
		t.Errorf("patch:\n got %s\nwant %s", got, want)
	}
}

func TestTheDefaultServiceAccountAndTheRequestsNamespace(t *testing.T) {
	m := New(DefaultConfig(), serviceAccounts{"payments/default": withRole()})
	p := pod(nil)
	p.Namespace, p.Spec.ServiceAccountName = "", ""
	result := m.Mutate(context.Background(), mutation.RequestFor(admissionv1.Create, "payments", "", p, nil))
	if result.Denied != nil || len(result.Patch) == 0 {
		t.Fatalf("want payments/default's role injected, got %+v", result)
	}
}

func TestOnlyPodCreationAndDebugContainersAreMutated(t *testing.T) {
	m := New(DefaultConfig(), serviceAccounts{ns + "/frontend": withRole()})
	for _, req := range []*mutation.Request{
		mutation.RequestFor(admissionv1.Update, ns, "", pod(nil), pod(nil)),
		mutation.RequestFor(admissionv1.Delete, ns, "", pod(nil), nil),
		mutation.RequestFor(admissionv1.Create, ns, "binding", pod(nil), nil),
		mutation.RequestFor(admissionv1.Update, ns, "status", pod(nil), nil),
		mutation.RequestFor(admissionv1.Create, ns, "", nil, nil),
	} {
		if r := m.Mutate(context.Background(), req); r.Denied != nil || len(r.Patch) != 0 || len(r.Warnings) != 0 {
			t.Errorf("%s %q: %+v", req.Operation, req.SubResource, r)
		}
	}
	if m.Name() != "pod-identity" || m.RequestAnnotations() != nil {
		t.Errorf("name %q, request annotations %v", m.Name(), m.RequestAnnotations())
	}
}

func TestNewFillsTheDefaults(t *testing.T) {
	m := New(Config{DefaultTokenExpiration: 100}, serviceAccounts{ns + "/frontend": withRole()})
	got, result := mutationtest.Admit(t, m, ns, pod(nil))
	if result.Denied != nil {
		t.Fatal(result.Denied.Message)
	}
	if v := volumesOf(got); v != "aws-iam-token{aud=sts.amazonaws.com exp=600 path=token} "+kubeAPIAccess {
		t.Errorf("volumes = %s", v)
	}
	if e := envOf(got.Spec.Containers[1].Env); e != identity {
		t.Errorf("env = %s", e)
	}
}

func TestRefusals(t *testing.T) {
	const sa = "ServiceAccount shop/frontend"
	const expected = "expected arn:<partition>:iam::<12-digit account ID>:role/[<path>/]<name>, " +
		"the name up to 64 letters, digits and _+=,.@- characters, for example arn:aws:iam::111122223333:role/s3-reader"
	const expirationExpected = "expected a whole number of seconds up to 4294967296; values under 600 are raised to 600"
	const skipExpected = `expected a comma-separated list of container names, such as "istio-proxy,log-shipper"`
	long := "arn:aws:iam::111122223333:role/" + strings.Repeat("a", 200)
	const oversize = "correct the annotation: the pod is refused rather than started without the credentials its ServiceAccount asks for"
	withVolume := func(v corev1.VolumeSource) func(*corev1.Pod) {
		return func(p *corev1.Pod) {
			p.Spec.Volumes = append(p.Spec.Volumes, corev1.Volume{Name: VolumeName, VolumeSource: v})
		}
	}
	withMount := func(init bool, at string) func(*corev1.Pod) {
		return func(p *corev1.Pod) {
			p.Spec.Volumes = append(p.Spec.Volumes, corev1.Volume{Name: "creds", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}})
			c := &p.Spec.Containers[0]
			if init {
				c = &p.Spec.InitContainers[0]
			}
			c.VolumeMounts = append(c.VolumeMounts, corev1.VolumeMount{Name: "creds", MountPath: at})
		}
	}
	for _, tc := range []struct {
		name, reason, message string
		sa                    map[string]string
		pod                   func(*corev1.Pod)
	}{
		{"not an ARN", "MalformedAnnotation", `annotation eks.amazonaws.com/role-arn on ` + sa + `: "s3-reader" is malformed: it does not start with arn:; ` + expected,
			map[string]string{podidentityv1alpha1.RoleARNAnnotation: "s3-reader"}, nil},
		{"a leading space", "MalformedAnnotation", `annotation eks.amazonaws.com/role-arn on ` + sa + `: " ` + role + `" is malformed: it does not start with arn:; ` + expected,
			map[string]string{podidentityv1alpha1.RoleARNAnnotation: " " + role}, nil},
		{"another cloud", "MalformedAnnotation", `annotation eks.amazonaws.com/role-arn on ` + sa + `: "arn:gcp:iam::111122223333:role/x" is malformed: partition "gcp" is not an AWS partition (aws, aws-cn, aws-us-gov, ...); ` + expected,
			map[string]string{podidentityv1alpha1.RoleARNAnnotation: "arn:gcp:iam::111122223333:role/x"}, nil},
		{"not IAM", "MalformedAnnotation", `annotation eks.amazonaws.com/role-arn on ` + sa + `: "arn:aws:s3:::bucket" is malformed: it is not an IAM ARN (the service must be iam and the region empty: arn:<partition>:iam::...); ` + expected,
			map[string]string{podidentityv1alpha1.RoleARNAnnotation: "arn:aws:s3:::bucket"}, nil},
		{"a short account", "MalformedAnnotation", `annotation eks.amazonaws.com/role-arn on ` + sa + `: "arn:aws:iam::1234:role/x" is malformed: account ID "1234" is not 12 digits; ` + expected,
			map[string]string{podidentityv1alpha1.RoleARNAnnotation: "arn:aws:iam::1234:role/x"}, nil},
		{"a user", "MalformedAnnotation", `annotation eks.amazonaws.com/role-arn on ` + sa + `: "arn:aws:iam::111122223333:user/bob" is malformed: it does not name a role (the resource must start with role/); ` + expected,
			map[string]string{podidentityv1alpha1.RoleARNAnnotation: "arn:aws:iam::111122223333:user/bob"}, nil},
		{"no role name", "MalformedAnnotation", `annotation eks.amazonaws.com/role-arn on ` + sa + `: "arn:aws:iam::111122223333:role/team/" is malformed: the role name is empty; ` + expected,
			map[string]string{podidentityv1alpha1.RoleARNAnnotation: "arn:aws:iam::111122223333:role/team/"}, nil},
		{"a space in the name", "MalformedAnnotation", `annotation eks.amazonaws.com/role-arn on ` + sa + `: "arn:aws:iam::111122223333:role/s3 reader" is malformed: the role "s3 reader" contains ' ', which IAM does not allow; ` + expected,
			map[string]string{podidentityv1alpha1.RoleARNAnnotation: "arn:aws:iam::111122223333:role/s3 reader"}, nil},
		{"an empty path segment", "MalformedAnnotation", `annotation eks.amazonaws.com/role-arn on ` + sa + `: "arn:aws:iam::111122223333:role//x" is malformed: the role path starts with an empty segment (role//...); ` + expected,
			map[string]string{podidentityv1alpha1.RoleARNAnnotation: "arn:aws:iam::111122223333:role//x"}, nil},
		{"a long value is cut short", "MalformedAnnotation", `annotation eks.amazonaws.com/role-arn on ` + sa + `: "` + long[:128] + `"... (231 bytes in all) is malformed: the role name is 200 characters long, more than IAM's 64; ` + expected,
			map[string]string{podidentityv1alpha1.RoleARNAnnotation: long}, nil},
		{"a role ARN past IAM's 2,048 characters", "OversizeAnnotation", `annotation eks.amazonaws.com/role-arn on ` + sa + ` is longer than 2048 bytes, the most the webhook reads of it; ` + oversize,
			map[string]string{podidentityv1alpha1.RoleARNAnnotation: "arn:aws:iam::111122223333:role/" + strings.Repeat("a", 3000-31)}, nil},
		{"a role ARN cut to one byte past the limit by the cache", "OversizeAnnotation", `annotation eks.amazonaws.com/role-arn on ` + sa + ` is longer than 2048 bytes, the most the webhook reads of it; ` + oversize,
			map[string]string{podidentityv1alpha1.RoleARNAnnotation: strings.Repeat("a", 200_000)}, nil},
		{"an oversize audience", "OversizeAnnotation", `annotation eks.amazonaws.com/audience on ` + sa + ` is longer than 256 bytes, the most the webhook reads of it; ` + oversize,
			withRole(podidentityv1alpha1.AudienceAnnotation, strings.Repeat("a", 257)), nil},
		{"an oversize expiration", "OversizeAnnotation", `annotation eks.amazonaws.com/token-expiration on ` + sa + ` is longer than 64 bytes, the most the webhook reads of it; ` + oversize,
			withRole(podidentityv1alpha1.TokenExpirationAnnotation, strings.Repeat("0", 65)), nil},
		{"an empty audience", "MalformedAnnotation", `annotation eks.amazonaws.com/audience on ` + sa + `: "" is malformed: it is empty; expected the audience STS expects, such as sts.amazonaws.com (an empty audience would give the pod a token for the Kubernetes API server)`,
			withRole(podidentityv1alpha1.AudienceAnnotation, ""), nil},
		{"a padded audience", "MalformedAnnotation", `annotation eks.amazonaws.com/audience on ` + sa + `: "sts.amazonaws.com " is malformed: it has leading or trailing spaces; expected the audience STS expects, such as sts.amazonaws.com`,
			withRole(podidentityv1alpha1.AudienceAnnotation, "sts.amazonaws.com "), nil},
		{"not a boolean", "MalformedAnnotation", `annotation eks.amazonaws.com/sts-regional-endpoints on ` + sa + `: "regional" is malformed: it is not a boolean; expected "true" or "false"`,
			withRole(podidentityv1alpha1.RegionalSTSAnnotation, "regional"), nil},
		{"an expiration with a unit", "MalformedAnnotation", `annotation eks.amazonaws.com/token-expiration on ` + sa + `: "1h" is malformed: it is not a whole number of seconds; ` + expirationExpected,
			withRole(podidentityv1alpha1.TokenExpirationAnnotation, "1h"), nil},
		{"a negative expiration", "MalformedAnnotation", `annotation eks.amazonaws.com/token-expiration on ` + sa + `: "-600" is malformed: it is negative; ` + expirationExpected,
			withRole(podidentityv1alpha1.TokenExpirationAnnotation, "-600"), nil},
		{"a very negative expiration", "MalformedAnnotation", `annotation eks.amazonaws.com/token-expiration on ` + sa + `: "-99999999999999999999" is malformed: it is negative; ` + expirationExpected,
			withRole(podidentityv1alpha1.TokenExpirationAnnotation, "-99999999999999999999"), nil},
		{"an expiration Kubernetes refuses", "MalformedAnnotation", `annotation eks.amazonaws.com/token-expiration on ` + sa + `: "4294967297" is malformed: it is longer than the 2^32 seconds Kubernetes allows for a token; ` + expirationExpected,
			withRole(podidentityv1alpha1.TokenExpirationAnnotation, "4294967297"), nil},
		{"an expiration beyond int64", "MalformedAnnotation", `annotation eks.amazonaws.com/token-expiration on ` + sa + `: "99999999999999999999" is malformed: it is longer than the 2^32 seconds Kubernetes allows for a token; ` + expirationExpected,
			withRole(podidentityv1alpha1.TokenExpirationAnnotation, "99999999999999999999"), nil},
		{"the pod's expiration", "MalformedAnnotation", `annotation eks.amazonaws.com/token-expiration on pod shop/frontend-7d9f8b6c5d-: "3600.5" is malformed: it is not a whole number of seconds; ` + expirationExpected,
			withRole(), func(p *corev1.Pod) {
				p.Annotations = map[string]string{podidentityv1alpha1.TokenExpirationAnnotation: "3600.5"}
			}},
		{"an empty skip entry", "MalformedAnnotation", `annotation eks.amazonaws.com/skip-containers on pod shop/frontend-7d9f8b6c5d-: "proxy,,web" is malformed: entry 2 is empty; ` + skipExpected,
			withRole(), func(p *corev1.Pod) {
				p.Annotations = map[string]string{podidentityv1alpha1.SkipContainersAnnotation: "proxy,,web"}
			}},
		{"a trailing comma", "MalformedAnnotation", `annotation eks.amazonaws.com/skip-containers on pod shop/frontend-7d9f8b6c5d-: "proxy," is malformed: entry 2 is empty; ` + skipExpected,
			withRole(), func(p *corev1.Pod) {
				p.Annotations = map[string]string{podidentityv1alpha1.SkipContainersAnnotation: "proxy,"}
			}},
		{"not a container name", "MalformedAnnotation", `annotation eks.amazonaws.com/skip-containers on pod shop/web-1: "proxy; web" is malformed: entry 1, "proxy; web", is not a container name (a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')); ` + skipExpected,
			withRole(), func(p *corev1.Pod) {
				p.Name = "web-1"
				p.Annotations = map[string]string{podidentityv1alpha1.SkipContainersAnnotation: "proxy; web"}
			}},
		{"an empty allow-list entry", "MalformedAnnotation", `annotation podidentity.openshift.io/allow-containers on pod shop/frontend-7d9f8b6c5d-: "web,,proxy" is malformed: entry 2 is empty; ` + skipExpected,
			withRole(), func(p *corev1.Pod) {
				p.Annotations = map[string]string{podidentityv1alpha1.AllowContainersAnnotation: "web,,proxy"}
			}},
		{"not a container name in the allow-list", "MalformedAnnotation", `annotation podidentity.openshift.io/allow-containers on pod shop/frontend-7d9f8b6c5d-: "Web" is malformed: entry 1, "Web", is not a container name (a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')); ` + skipExpected,
			withRole(), func(p *corev1.Pod) {
				p.Annotations = map[string]string{podidentityv1alpha1.AllowContainersAnnotation: "Web"}
			}},
		{"a blank allow-list", "MalformedAnnotation", `annotation podidentity.openshift.io/allow-containers on pod shop/frontend-7d9f8b6c5d-: " " is malformed: it is blank; ` +
			`expected a comma-separated list of the containers that get AWS credentials, such as "app,migrate" (to give none, label the pod eks.amazonaws.com/skip-pod-identity-webhook; to give every container, remove the annotation)`,
			withRole(), func(p *corev1.Pod) {
				p.Annotations = map[string]string{podidentityv1alpha1.AllowContainersAnnotation: " "}
			}},
		{"a container both allowed and skipped", "Conflict", `container "proxy" is named both in annotation podidentity.openshift.io/allow-containers, which gives AWS credentials, ` +
			`and in annotation eks.amazonaws.com/skip-containers, which keeps them away, on pod shop/frontend-7d9f8b6c5d-; remove it from one of the two`,
			withRole(), func(p *corev1.Pod) {
				p.Annotations = map[string]string{
					podidentityv1alpha1.AllowContainersAnnotation: "web, proxy",
					podidentityv1alpha1.SkipContainersAnnotation:  "proxy",
				}
			}},
		{"containers both allowed and skipped, even ones the pod does not have", "Conflict", `containers "debugger", "proxy" are named both in annotation podidentity.openshift.io/allow-containers, which gives AWS credentials, ` +
			`and in annotation eks.amazonaws.com/skip-containers, which keeps them away, on pod shop/frontend-7d9f8b6c5d-; remove each from one of the two`,
			withRole(), func(p *corev1.Pod) {
				p.Annotations = map[string]string{
					podidentityv1alpha1.AllowContainersAnnotation: "web,proxy,debugger",
					podidentityv1alpha1.SkipContainersAnnotation:  "debugger,migrate,proxy",
				}
			}},
		{"many containers both allowed and skipped", "Conflict", `containers "a", "b", "c", "d", "e" and 2 more are named both in annotation podidentity.openshift.io/allow-containers, which gives AWS credentials, ` +
			`and in annotation eks.amazonaws.com/skip-containers, which keeps them away, on pod shop/frontend-7d9f8b6c5d-; remove each from one of the two`,
			withRole(), func(p *corev1.Pod) {
				p.Annotations = map[string]string{
					podidentityv1alpha1.AllowContainersAnnotation: "g,f,e,d,c,b,a",
					podidentityv1alpha1.SkipContainersAnnotation:  "a,b,c,d,e,f,g",
				}
			}},
		{"an allowed container's mount at the token's path", "Conflict", `container "web" already mounts volume "creds" at /var/run/secrets/eks.amazonaws.com/serviceaccount, ` +
			`where pod identity mounts the web identity token for the IAM role of ServiceAccount shop/frontend; mount that volume elsewhere, or leave the container out of annotation podidentity.openshift.io/allow-containers`,
			withRole(), func(p *corev1.Pod) {
				withMount(false, mountPath)(p)
				p.Annotations = map[string]string{podidentityv1alpha1.AllowContainersAnnotation: "web"}
			}},
		{"the ServiceAccount cannot be read", "ServiceAccountLookupFailed", `could not read ServiceAccount shop/flaky to learn whether it grants an AWS IAM role (annotation eks.amazonaws.com/role-arn): ` +
			`the ServiceAccount is not in the cache and the API server did not answer within 1s; the pod is refused rather than started without the credentials its ServiceAccount may grant; retry`,
			nil, func(p *corev1.Pod) { p.Spec.ServiceAccountName = "flaky" }},
		{"the pod's own volume under the token's name", "Conflict", `the pod already has a volume named "aws-iam-token" that is not a service account token (it is not a projected volume); ` +
			`pod identity mounts a token volume of that name at /var/run/secrets/eks.amazonaws.com/serviceaccount for the IAM role of ServiceAccount shop/frontend: rename that volume`,
			withRole(), withVolume(corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}})},
		{"a projection without a token", "Conflict", `the pod already has a volume named "aws-iam-token" that is not a service account token (it projects no service account token at path "token"); ` +
			`pod identity mounts a token volume of that name at /var/run/secrets/eks.amazonaws.com/serviceaccount for the IAM role of ServiceAccount shop/frontend: rename that volume`,
			withRole(), withVolume(corev1.VolumeSource{Projected: &corev1.ProjectedVolumeSource{Sources: []corev1.VolumeProjection{
				{Secret: &corev1.SecretProjection{LocalObjectReference: corev1.LocalObjectReference{Name: "aws"}}},
				{ServiceAccountToken: &corev1.ServiceAccountTokenProjection{Path: "other"}},
			}}})},
		{"the pod's own mount at the token's path", "Conflict", `container "web" already mounts volume "creds" at /var/run/secrets/eks.amazonaws.com/serviceaccount/, ` +
			`where pod identity mounts the web identity token for the IAM role of ServiceAccount shop/frontend; mount that volume elsewhere, or name the container in annotation eks.amazonaws.com/skip-containers`,
			withRole(), withMount(false, mountPath+"/")},
		{"an init container's mount at the token's path", "Conflict", `init container "migrate" already mounts volume "creds" at /var/run/secrets/eks.amazonaws.com/serviceaccount, ` +
			`where pod identity mounts the web identity token for the IAM role of ServiceAccount shop/frontend; mount that volume elsewhere, or name the container in annotation eks.amazonaws.com/skip-containers`,
			withRole(), withMount(true, mountPath)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := New(DefaultConfig(), serviceAccounts{ns + "/frontend": tc.sa})
			p := pod(nil)
			if tc.pod != nil {
				tc.pod(p)
			}
			_, result := mutationtest.Admit(t, m, ns, p)
			if result.Denied == nil {
				t.Fatalf("admitted with patch %+v", result.Patch)
			}
			if result.Denied.Reason != tc.reason || result.Denied.Message != tc.message {
				t.Errorf("denied %s: %s\nwant   %s: %s", result.Denied.Reason, result.Denied.Message, tc.reason, tc.message)
			}
			if len(result.Patch) != 0 {
				t.Errorf("a refusal with a patch: %+v", result.Patch)
			}
		})
	}
}

// debugPods are the pod p after injection, with one debug container, and
// with a second one being added.
func debugPods(t *testing.T, m mutation.Mutator, p *corev1.Pod) (updated, old *corev1.Pod) {
	t.Helper()
	injected, result := mutationtest.Admit(t, m, ns, p)
	if result.Denied != nil {
		t.Fatal(result.Denied.Message)
	}
	old = injected.DeepCopy()
	old.Spec.EphemeralContainers = []corev1.EphemeralContainer{{EphemeralContainerCommon: corev1.EphemeralContainerCommon{Name: "debugger-1", Image: "ubi9"}}}
	updated = old.DeepCopy()
	updated.Spec.EphemeralContainers = append(updated.Spec.EphemeralContainers, corev1.EphemeralContainer{
		EphemeralContainerCommon: corev1.EphemeralContainerCommon{Name: "debugger-2", Image: "ubi9", Env: []corev1.EnvVar{{Name: "TERM", Value: "xterm"}}},
		TargetContainerName:      "web",
	})
	return updated, old
}

func TestDebugContainersGetTheCredentials(t *testing.T) {
	config := DefaultConfig()
	config.Region = "eu-west-3"
	m := New(config, serviceAccounts{ns + "/frontend": withRole()})
	updated, old := debugPods(t, m, pod(nil))
	result := m.Mutate(context.Background(), mutation.RequestFor(admissionv1.Update, ns, "ephemeralcontainers", updated, old))
	if result.Denied != nil {
		t.Fatal(result.Denied.Message)
	}
	for _, op := range result.Patch {
		if !strings.HasPrefix(op.Path, "/spec/ephemeralContainers/1/") {
			t.Errorf("on the ephemeralcontainers subresource only new ephemeral containers may change: %+v", op)
		}
	}
	got := mutationtest.ApplyPatch(t, updated, result)
	if e := envOf(got.Spec.EphemeralContainers[1].Env); e != "TERM=xterm AWS_DEFAULT_REGION=eu-west-3 AWS_REGION=eu-west-3 "+identity {
		t.Errorf("debug container env = %s", e)
	}
	if m := mountsOf(got.Spec.EphemeralContainers[1].VolumeMounts); m != tokenAt {
		t.Errorf("debug container mounts = %s", m)
	}
	if c := got.Spec.EphemeralContainers[0]; len(c.Env) != 0 || len(c.VolumeMounts) != 0 {
		t.Errorf("the existing debug container changed: %+v", c)
	}
	again := mutation.RequestFor(admissionv1.Update, ns, "ephemeralcontainers", got, old)
	if r := m.Mutate(context.Background(), again); r.Denied != nil || len(r.Patch) != 0 {
		t.Errorf("admitting the update again: %+v", r)
	}

	// Without OldPod every debug container is taken for new.
	noOld := mutation.RequestFor(admissionv1.Update, ns, "ephemeralcontainers", updated, nil)
	if r := m.Mutate(context.Background(), noOld); len(r.Patch) == 0 || !strings.HasPrefix(r.Patch[0].Path, "/spec/ephemeralContainers/0/") {
		t.Errorf("without the old pod: %+v", r)
	}
}

func TestDebugContainers(t *testing.T) {
	windows := pod(nil)
	windows.Spec.NodeSelector = map[string]string{"kubernetes.io/os": "windows"}
	for _, tc := range []struct {
		name     string
		sa       map[string]string
		pod      *corev1.Pod
		edit     func(updated *corev1.Pod) // the update, after injection
		env      string                    // the new debug container's env; "" for no patch
		warnings []string
		denial   string
	}{{
		name: "a Windows pod", sa: withRole(), pod: windows,
		env: `TERM=xterm AWS_ROLE_ARN=` + role + ` AWS_WEB_IDENTITY_TOKEN_FILE=C:\var\run\secrets\eks.amazonaws.com\serviceaccount\token`,
	}, {
		name: "a skipped debug container", sa: withRole(),
		pod: pod(map[string]string{podidentityv1alpha1.SkipContainersAnnotation: "debugger-2"}),
	}, {
		name: "a debug container left out of the allow-list", sa: withRole(),
		pod: pod(map[string]string{podidentityv1alpha1.AllowContainersAnnotation: "web,debugger-1"}),
	}, {
		name: "a debug container named in the allow-list", sa: withRole(),
		pod: pod(map[string]string{podidentityv1alpha1.AllowContainersAnnotation: "web,debugger-2"}),
		env: "TERM=xterm " + identity,
	}, {
		name: "a pod injected before the role was removed", sa: withRole(),
		edit: func(updated *corev1.Pod) { updated.Spec.ServiceAccountName = "other" },
	}, {
		name: "a pod without the token volume", sa: withRole(),
		edit: func(updated *corev1.Pod) { updated.Spec.Volumes = updated.Spec.Volumes[1:] },
	}, {
		name: "a pod whose own volume has the token's name", sa: withRole(),
		edit: func(updated *corev1.Pod) {
			updated.Spec.Volumes[0].VolumeSource = corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}
		},
		warnings: []string{`the debug container gets no AWS credentials for ServiceAccount shop/frontend: the pod's volume "aws-iam-token" is not a service account token (it is not a projected volume)`},
	}, {
		name: "a debug container mounting something at the token's path", sa: withRole(),
		edit: func(updated *corev1.Pod) {
			c := &updated.Spec.EphemeralContainers[1]
			c.VolumeMounts = []corev1.VolumeMount{{Name: "kube-api-access-x7k2p", MountPath: mountPath}}
		},
		denial: `ephemeral container "debugger-2" already mounts volume "kube-api-access-x7k2p" at /var/run/secrets/eks.amazonaws.com/serviceaccount, ` +
			`where pod identity mounts the web identity token for the IAM role of ServiceAccount shop/frontend; mount that volume elsewhere, or name the container in annotation eks.amazonaws.com/skip-containers`,
	}, {
		name: "a ServiceAccount annotation broken since", sa: withRole(),
		edit:   func(updated *corev1.Pod) { updated.Spec.ServiceAccountName = "broken" },
		denial: `annotation eks.amazonaws.com/sts-regional-endpoints on ServiceAccount shop/broken: "yes" is malformed: it is not a boolean; expected "true" or "false"`,
	}} {
		t.Run(tc.name, func(t *testing.T) {
			m := New(DefaultConfig(), serviceAccounts{ns + "/frontend": tc.sa, ns + "/broken": withRole(podidentityv1alpha1.RegionalSTSAnnotation, "yes")})
			p := tc.pod
			if p == nil {
				p = pod(nil)
			}
			updated, old := debugPods(t, m, p)
			if tc.edit != nil {
				tc.edit(updated)
			}
			req := mutation.RequestFor(admissionv1.Update, ns, "ephemeralcontainers", updated, old)
			result := m.Mutate(context.Background(), req)
			if tc.denial != "" {
				if result.Denied == nil || result.Denied.Message != tc.denial {
					t.Fatalf("result %+v\nwant denial %s", result, tc.denial)
				}
				return
			}
			if result.Denied != nil {
				t.Fatal(result.Denied.Message)
			}
			if strings.Join(result.Warnings, "\n") != strings.Join(tc.warnings, "\n") {
				t.Errorf("warnings = %q\nwant %q", result.Warnings, tc.warnings)
			}
			if tc.env == "" {
				if len(result.Patch) != 0 {
					t.Errorf("want no patch, got %+v", result.Patch)
				}
				return
			}
			got := mutationtest.ApplyPatch(t, updated, result)
			if e := envOf(got.Spec.EphemeralContainers[1].Env); e != tc.env {
				t.Errorf("debug container env:\n got %s\nwant %s", e, tc.env)
			}
		})
	}
}

// TestTheSkipLabelKeepsPodIdentityAway: upstream skips a pod labelled
// eks.amazonaws.com/skip-pod-identity-webhook, whatever the value, through
// its webhook configuration's objectSelector; here the fail-open webhook is
// shared with automatic subscription injection, so the mutator honours it.
func TestTheSkipLabelKeepsPodIdentityAway(t *testing.T) {
	m := New(DefaultConfig(), serviceAccounts{ns + "/frontend": withRole()})
	for _, value := range []string{"", "true", "false"} {
		p := pod(nil)
		p.Labels = map[string]string{podidentityv1alpha1.SkipLabel: value}
		if r := m.Mutate(context.Background(), mutation.RequestFor(admissionv1.Create, ns, "", p, nil)); r.Denied != nil || len(r.Patch) != 0 || len(r.Warnings) != 0 {
			t.Errorf("label value %q: %+v", value, r)
		}
		updated, old := debugPods(t, New(DefaultConfig(), serviceAccounts{ns + "/frontend": withRole()}), pod(nil))
		updated.Labels = map[string]string{podidentityv1alpha1.SkipLabel: value}
		if r := m.Mutate(context.Background(), mutation.RequestFor(admissionv1.Update, ns, "ephemeralcontainers", updated, old)); len(r.Patch) != 0 {
			t.Errorf("debug container, label value %q: %+v", value, r)
		}
	}
	p := pod(nil)
	p.Labels = map[string]string{"eks.amazonaws.com/other": "true"}
	if r := m.Mutate(context.Background(), mutation.RequestFor(admissionv1.Create, ns, "", p, nil)); len(r.Patch) == 0 {
		t.Errorf("another label must not skip: %+v", r)
	}
}

// TestMirrorPodsGetNoCredentials: a static pod's mirror with a ServiceAccount
// that has a role gets nothing (the ServiceAccount admission plugin would
// refuse it with the token volume), and nothing else is skipped for it.
func TestMirrorPodsGetNoCredentials(t *testing.T) {
	m := New(DefaultConfig(), serviceAccounts{ns + "/frontend": withRole()})
	p := pod(nil)
	p.Annotations = map[string]string{mutation.MirrorPodAnnotation: "0a1b2c"}
	if r := m.Mutate(context.Background(), mutation.RequestFor(admissionv1.Create, ns, "", p, nil)); r.Denied != nil || len(r.Patch) != 0 {
		t.Errorf("mirror pod: %+v", r)
	}
	p.Annotations = map[string]string{"kubernetes.io/config.source": "file"}
	if r := m.Mutate(context.Background(), mutation.RequestFor(admissionv1.Create, ns, "", p, nil)); len(r.Patch) == 0 {
		t.Errorf("a pod that is not a mirror must still get its credentials: %+v", r)
	}
}

// TestOurOwnLookupBudgetNeverRefusesAPod: a ServiceAccount the webhook did
// not read because its own budget was spent admits the pod unchanged, with
// a warning that names the ServiceAccount and says what to do. The pod may
// have asked for nothing; refusing it would let a burst in one namespace
// refuse pods elsewhere.
func TestOurOwnLookupBudgetNeverRefusesAPod(t *testing.T) {
	m := New(DefaultConfig(), serviceAccounts{})
	p := pod(nil)
	p.Spec.ServiceAccountName = "unread"
	r := m.Mutate(context.Background(), mutation.RequestFor(admissionv1.Create, ns, "", p, nil))
	if r.Denied != nil || len(r.Patch) != 0 {
		t.Fatalf("want admitted unchanged, got %+v", r)
	}
	want := "pod identity did not check whether ServiceAccount shop/unread grants an AWS IAM role (annotation eks.amazonaws.com/role-arn): " +
		"ServiceAccount shop/unread is not in the webhook's cache yet, and namespace shop's budget is spent: the webhook's budget of live ServiceAccount lookups is spent; " +
		"the pod was admitted without AWS credentials: if the ServiceAccount grants a role, delete the pod so that it is created again with them"
	if len(r.Warnings) != 1 || r.Warnings[0] != want {
		t.Errorf("warnings %q\nwant %q", r.Warnings, want)
	}
}
