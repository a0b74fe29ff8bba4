package podidentity

import (
	"context"
	"encoding/json"
	"testing"

	admissionv1 "k8s.io/api/admission/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"

	podidentityv1alpha1 "github.com/openshift/cluster-workload-access-operator/pkg/apis/podidentity/v1alpha1"
	"github.com/openshift/cluster-workload-access-operator/pkg/webhook/mutation"
	"github.com/openshift/cluster-workload-access-operator/pkg/webhook/mutation/mutationtest"
)

// realisticPod is a ReplicaSet's pod of about 5.5 KB as the API server
// sends it: three containers with probes, resources and env, and the
// projected API token volume.
func realisticPod() *corev1.Pod {
	probe := func(path string, port int32) *corev1.Probe {
		return &corev1.Probe{
			ProbeHandler:        corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{Path: path, Port: intstr.FromInt32(port), Scheme: corev1.URISchemeHTTP}},
			InitialDelaySeconds: 5, TimeoutSeconds: 1, PeriodSeconds: 10, SuccessThreshold: 1, FailureThreshold: 3,
		}
	}
	resources := func(cpu, memory string) corev1.ResourceRequirements {
		return corev1.ResourceRequirements{
			Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse(cpu), corev1.ResourceMemory: resource.MustParse(memory)},
			Limits:   corev1.ResourceList{corev1.ResourceMemory: resource.MustParse(memory)},
		}
	}
	restricted := &corev1.SecurityContext{
		AllowPrivilegeEscalation: ptr.To(false), RunAsNonRoot: ptr.To(true),
		Capabilities: &corev1.Capabilities{Drop: []corev1.Capability{"ALL"}},
	}
	apiMount := corev1.VolumeMount{Name: "kube-api-access-x7k2p", MountPath: "/var/run/secrets/kubernetes.io/serviceaccount", ReadOnly: true}
	fieldRef := func(path string) *corev1.EnvVarSource {
		return &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{APIVersion: "v1", FieldPath: path}}
	}
	return &corev1.Pod{
		TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Pod"},
		ObjectMeta: metav1.ObjectMeta{
			GenerateName: "orders-5f7c9d8b4-", Namespace: ns,
			Labels:      map[string]string{"app.kubernetes.io/name": "orders", "app.kubernetes.io/part-of": "shop", "pod-template-hash": "5f7c9d8b4"},
			Annotations: map[string]string{"openshift.io/scc": "restricted-v2", "seccomp.security.alpha.kubernetes.io/pod": "runtime/default"},
			OwnerReferences: []metav1.OwnerReference{{
				APIVersion: "apps/v1", Kind: "ReplicaSet", Name: "orders-5f7c9d8b4", UID: "8a1f0c3e-2b4d-4e6f-9a7b-1c2d3e4f5a6b",
				Controller: ptr.To(true), BlockOwnerDeletion: ptr.To(true),
			}},
		},
		Spec: corev1.PodSpec{
			ServiceAccountName: "orders",
			Containers: []corev1.Container{{
				Name: "orders", Image: "quay.io/example/orders@sha256:9c4e3b2a1f0d8e7c6b5a4938271605f4e3d2c1b0a9f8e7d6c5b4a39281706f5e",
				Command: []string{"/usr/bin/orders"}, Args: []string{"--listen=:8080", "--metrics=:9090", "--queue=orders"},
				Ports: []corev1.ContainerPort{{Name: "http", ContainerPort: 8080, Protocol: corev1.ProtocolTCP}, {Name: "metrics", ContainerPort: 9090, Protocol: corev1.ProtocolTCP}},
				Env: []corev1.EnvVar{
					{Name: "LOG_LEVEL", Value: "info"}, {Name: "QUEUE_URL", Value: "https://sqs.eu-west-3.amazonaws.com/111122223333/orders"},
					{Name: "BUCKET", Value: "shop-orders-archive"}, {Name: "POD_NAME", ValueFrom: fieldRef("metadata.name")},
					{Name: "POD_NAMESPACE", ValueFrom: fieldRef("metadata.namespace")},
				},
				Resources: resources("250m", "512Mi"), LivenessProbe: probe("/healthz", 8080), ReadinessProbe: probe("/readyz", 8080),
				VolumeMounts:    []corev1.VolumeMount{apiMount, {Name: "cache", MountPath: "/var/cache/orders"}},
				SecurityContext: restricted, TerminationMessagePath: "/dev/termination-log", TerminationMessagePolicy: corev1.TerminationMessageReadFile,
				ImagePullPolicy: corev1.PullIfNotPresent,
			}, {
				Name: "proxy", Image: "quay.io/example/proxy@sha256:1f2e3d4c5b6a79880f1e2d3c4b5a69788f9e0d1c2b3a4958676f5e4d3c2b1a09",
				Args:      []string{"--upstream=http://localhost:8080", "--listen=:8443", "--tls-cert=/etc/tls/tls.crt", "--tls-key=/etc/tls/tls.key"},
				Ports:     []corev1.ContainerPort{{Name: "https", ContainerPort: 8443, Protocol: corev1.ProtocolTCP}},
				Env:       []corev1.EnvVar{{Name: "PROXY_LOG_FORMAT", Value: "json"}, {Name: "POD_IP", ValueFrom: fieldRef("status.podIP")}},
				Resources: resources("100m", "128Mi"), LivenessProbe: probe("/healthz", 8443), ReadinessProbe: probe("/healthz", 8443),
				VolumeMounts:    []corev1.VolumeMount{apiMount, {Name: "tls", MountPath: "/etc/tls", ReadOnly: true}},
				SecurityContext: restricted, TerminationMessagePath: "/dev/termination-log", TerminationMessagePolicy: corev1.TerminationMessageReadFile,
				ImagePullPolicy: corev1.PullIfNotPresent,
			}, {
				Name: "log-shipper", Image: "quay.io/example/log-shipper:2.3.1",
				Args:      []string{"--input=/var/log/orders", "--output=cloudwatch", "--group=/shop/orders"},
				Env:       []corev1.EnvVar{{Name: "NODE_NAME", ValueFrom: fieldRef("spec.nodeName")}, {Name: "FLUSH_INTERVAL", Value: "5s"}},
				Resources: resources("50m", "64Mi"), LivenessProbe: probe("/health", 2020),
				VolumeMounts:    []corev1.VolumeMount{apiMount, {Name: "cache", MountPath: "/var/log/orders", ReadOnly: true}},
				SecurityContext: restricted, TerminationMessagePath: "/dev/termination-log", TerminationMessagePolicy: corev1.TerminationMessageReadFile,
				ImagePullPolicy: corev1.PullIfNotPresent,
			}},
			Volumes: []corev1.Volume{
				{Name: "kube-api-access-x7k2p", VolumeSource: corev1.VolumeSource{Projected: &corev1.ProjectedVolumeSource{
					DefaultMode: ptr.To(int32(420)),
					Sources: []corev1.VolumeProjection{
						{ServiceAccountToken: &corev1.ServiceAccountTokenProjection{Path: "token", ExpirationSeconds: ptr.To(int64(3607))}},
						{ConfigMap: &corev1.ConfigMapProjection{LocalObjectReference: corev1.LocalObjectReference{Name: "kube-root-ca.crt"}, Items: []corev1.KeyToPath{{Key: "ca.crt", Path: "ca.crt"}}}},
						{DownwardAPI: &corev1.DownwardAPIProjection{Items: []corev1.DownwardAPIVolumeFile{{Path: "namespace", FieldRef: &corev1.ObjectFieldSelector{APIVersion: "v1", FieldPath: "metadata.namespace"}}}}},
						{ConfigMap: &corev1.ConfigMapProjection{LocalObjectReference: corev1.LocalObjectReference{Name: "openshift-service-ca.crt"}, Items: []corev1.KeyToPath{{Key: "service-ca.crt", Path: "service-ca.crt"}}}},
					},
				}}},
				{Name: "cache", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{SizeLimit: ptr.To(resource.MustParse("1Gi"))}}},
				{Name: "tls", VolumeSource: corev1.VolumeSource{Secret: &corev1.SecretVolumeSource{SecretName: "orders-tls", DefaultMode: ptr.To(int32(420))}}},
			},
			RestartPolicy: corev1.RestartPolicyAlways, TerminationGracePeriodSeconds: ptr.To(int64(30)), DNSPolicy: corev1.DNSClusterFirst,
			SecurityContext:  &corev1.PodSecurityContext{SeccompProfile: &corev1.SeccompProfile{Type: corev1.SeccompProfileTypeRuntimeDefault}},
			ImagePullSecrets: []corev1.LocalObjectReference{{Name: "orders-dockercfg-8xk2q"}},
			SchedulerName:    "default-scheduler", EnableServiceLinks: ptr.To(false),
			Tolerations: []corev1.Toleration{
				{Key: "node.kubernetes.io/not-ready", Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoExecute, TolerationSeconds: ptr.To(int64(300))},
				{Key: "node.kubernetes.io/unreachable", Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoExecute, TolerationSeconds: ptr.To(int64(300))},
			},
		},
	}
}

// BenchmarkPodIdentityMutate is one realistic pod whose ServiceAccount has
// a role, a region and regional STS: the mutator alone, the ServiceAccount
// read from a map as from the server's cache.
func BenchmarkPodIdentityMutate(b *testing.B) {
	config := DefaultConfig()
	config.Region = "eu-west-3"
	m := New(config, keptServiceAccounts{ns + "/orders": CachedAnnotations(withRole(podidentityv1alpha1.RegionalSTSAnnotation, "true", podidentityv1alpha1.TokenExpirationAnnotation, "3600"))})
	p := realisticPod()
	raw, err := json.Marshal(p)
	if err != nil {
		b.Fatal(err)
	}
	req := mutation.RequestFor(admissionv1.Create, ns, "", p, nil)
	b.ReportAllocs()
	for b.Loop() {
		if r := m.Mutate(context.Background(), req); r.Denied != nil || len(r.Patch) == 0 {
			b.Fatalf("%+v", r)
		}
	}
	b.ReportMetric(float64(len(raw)), "pod-bytes")
}

func TestRealisticPodIsRealistic(t *testing.T) {
	raw, err := json.Marshal(realisticPod())
	if err != nil {
		t.Fatal(err)
	}
	if len(raw) < 5000 || len(raw) > 6200 {
		t.Errorf("the benchmark's pod is %d bytes, not 5-6 KB", len(raw))
	}
	m := New(DefaultConfig(), keptServiceAccounts{ns + "/orders": CachedAnnotations(withRole())})
	got, result := mutationtest.Admit(t, m, ns, realisticPod())
	if result.Denied != nil || len(got.Spec.Volumes) != 4 {
		t.Fatalf("%+v", result)
	}
}
