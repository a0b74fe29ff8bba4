package mutationtest

import (
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"
)

// CheckoutPod is a Deployment's pod of 5-6 KB of JSON as the API server
// sends it for admission (defaults applied, no name yet): an application
// container, a mesh sidecar and a telemetry collector, each with probes,
// resources, env from literals, fields, a Secret and a ConfigMap; the
// projected API token volume; spread and tolerations. It runs in namespace
// "shop" as ServiceAccount "checkout".
func CheckoutPod(annotations map[string]string) *corev1.Pod {
	httpProbe := func(path string, port string, period int32) *corev1.Probe {
		return &corev1.Probe{
			ProbeHandler:     corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{Path: path, Port: intstr.FromString(port), Scheme: corev1.URISchemeHTTP}},
			TimeoutSeconds:   1,
			PeriodSeconds:    period,
			SuccessThreshold: 1,
			FailureThreshold: 3,
		}
	}
	limits := func(cpu, memory string) corev1.ResourceRequirements {
		return corev1.ResourceRequirements{
			Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse(cpu), corev1.ResourceMemory: resource.MustParse(memory)},
			Limits:   corev1.ResourceList{corev1.ResourceMemory: resource.MustParse(memory)},
		}
	}
	field := func(path string) *corev1.EnvVarSource {
		return &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{APIVersion: "v1", FieldPath: path}}
	}
	securityContext := func() *corev1.SecurityContext {
		return &corev1.SecurityContext{
			AllowPrivilegeEscalation: ptr.To(false), RunAsNonRoot: ptr.To(true), ReadOnlyRootFilesystem: ptr.To(true),
			Capabilities: &corev1.Capabilities{Drop: []corev1.Capability{"ALL"}},
		}
	}
	token := corev1.VolumeMount{Name: "kube-api-access-q8r4n", MountPath: "/var/run/secrets/kubernetes.io/serviceaccount", ReadOnly: true}
	container := func(c corev1.Container) corev1.Container {
		c.TerminationMessagePath = corev1.TerminationMessagePathDefault
		c.TerminationMessagePolicy = corev1.TerminationMessageReadFile
		c.ImagePullPolicy = corev1.PullIfNotPresent
		c.SecurityContext = securityContext()
		c.VolumeMounts = append(c.VolumeMounts, token)
		return c
	}
	return &corev1.Pod{
		TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Pod"},
		ObjectMeta: metav1.ObjectMeta{
			GenerateName: "checkout-6b8f7d9c4-", Namespace: "shop",
			Labels: map[string]string{
				"app.kubernetes.io/name": "checkout", "app.kubernetes.io/instance": "checkout-prod",
				"app.kubernetes.io/version": "3.14.2", "pod-template-hash": "6b8f7d9c4",
			},
			Annotations: annotations,
			OwnerReferences: []metav1.OwnerReference{{
				APIVersion: "apps/v1", Kind: "ReplicaSet", Name: "checkout-6b8f7d9c4", UID: "3d5e7f91-a2b4-4c6d-8e0f-123456789abc",
				Controller: ptr.To(true), BlockOwnerDeletion: ptr.To(true),
			}},
		},
		Spec: corev1.PodSpec{
			ServiceAccountName: "checkout", DeprecatedServiceAccount: "checkout",
			Containers: []corev1.Container{container(corev1.Container{
				Name:  "checkout",
				Image: "quay.io/example/checkout@sha256:0b1c2d3e4f5a69788796a5b4c3d2e1f00f1e2d3c4b5a69788796a5b4c3d2e1f0",
				Args:  []string{"serve", "--http=:8080", "--grpc=:9000", "--payments=https://payments.shop.svc:8443"},
				Ports: []corev1.ContainerPort{
					{Name: "http", ContainerPort: 8080, Protocol: corev1.ProtocolTCP},
					{Name: "grpc", ContainerPort: 9000, Protocol: corev1.ProtocolTCP},
				},
				Env: []corev1.EnvVar{
					{Name: "ORDERS_TABLE", Value: "shop-orders"},
					{Name: "EVENTS_QUEUE", Value: "https://sqs.eu-west-3.amazonaws.com/111122223333/checkout-events"},
					{Name: "DATABASE_PASSWORD", ValueFrom: &corev1.EnvVarSource{SecretKeyRef: &corev1.SecretKeySelector{
						LocalObjectReference: corev1.LocalObjectReference{Name: "checkout-db"}, Key: "password"}}},
					{Name: "FEATURE_FLAGS", ValueFrom: &corev1.EnvVarSource{ConfigMapKeyRef: &corev1.ConfigMapKeySelector{
						LocalObjectReference: corev1.LocalObjectReference{Name: "checkout-flags"}, Key: "flags"}}},
					{Name: "POD_NAME", ValueFrom: field("metadata.name")},
					{Name: "POD_NAMESPACE", ValueFrom: field("metadata.namespace")},
				},
				Resources:      limits("500m", "768Mi"),
				StartupProbe:   httpProbe("/startup", "http", 2),
				LivenessProbe:  httpProbe("/livez", "http", 10),
				ReadinessProbe: httpProbe("/readyz", "http", 5),
				VolumeMounts:   []corev1.VolumeMount{{Name: "config", MountPath: "/etc/checkout", ReadOnly: true}, {Name: "tmp", MountPath: "/tmp"}},
			}), container(corev1.Container{
				Name:  "envoy",
				Image: "quay.io/example/envoy@sha256:a9b8c7d6e5f4031201f2e3d4c5b6a7988796a5b4c3d2e1f00f1e2d3c4b5a6978",
				Args:  []string{"--config-path=/etc/envoy/envoy.yaml", "--log-level=warn", "--drain-time-s=20"},
				Ports: []corev1.ContainerPort{
					{Name: "https", ContainerPort: 8443, Protocol: corev1.ProtocolTCP},
					{Name: "admin", ContainerPort: 15000, Protocol: corev1.ProtocolTCP},
				},
				Env:            []corev1.EnvVar{{Name: "ENVOY_UID", Value: "0"}, {Name: "POD_IP", ValueFrom: field("status.podIP")}},
				Resources:      limits("200m", "256Mi"),
				LivenessProbe:  httpProbe("/ready", "admin", 10),
				ReadinessProbe: httpProbe("/ready", "admin", 5),
				VolumeMounts:   []corev1.VolumeMount{{Name: "envoy", MountPath: "/etc/envoy", ReadOnly: true}},
			}), container(corev1.Container{
				Name:  "otel-collector",
				Image: "quay.io/example/otel-collector:0.98.0",
				Args:  []string{"--config=/etc/otel/collector.yaml"},
				Env: []corev1.EnvVar{
					{Name: "NODE_NAME", ValueFrom: field("spec.nodeName")},
					{Name: "OTEL_RESOURCE_ATTRIBUTES", Value: "service.name=checkout,deployment.environment=prod"},
				},
				Resources:     limits("100m", "128Mi"),
				LivenessProbe: httpProbe("/", "13133", 15),
				VolumeMounts:  []corev1.VolumeMount{{Name: "otel", MountPath: "/etc/otel", ReadOnly: true}},
			})},
			Volumes: []corev1.Volume{
				{Name: "kube-api-access-q8r4n", VolumeSource: corev1.VolumeSource{Projected: &corev1.ProjectedVolumeSource{
					DefaultMode: ptr.To(int32(0o644)),
					Sources: []corev1.VolumeProjection{
						{ServiceAccountToken: &corev1.ServiceAccountTokenProjection{Path: "token", ExpirationSeconds: ptr.To(int64(3607))}},
						{ConfigMap: &corev1.ConfigMapProjection{LocalObjectReference: corev1.LocalObjectReference{Name: "kube-root-ca.crt"},
							Items: []corev1.KeyToPath{{Key: "ca.crt", Path: "ca.crt"}}}},
						{DownwardAPI: &corev1.DownwardAPIProjection{Items: []corev1.DownwardAPIVolumeFile{{Path: "namespace",
							FieldRef: &corev1.ObjectFieldSelector{APIVersion: "v1", FieldPath: "metadata.namespace"}}}}},
					},
				}}},
				{Name: "config", VolumeSource: corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{
					LocalObjectReference: corev1.LocalObjectReference{Name: "checkout-config"}, DefaultMode: ptr.To(int32(0o644))}}},
				{Name: "envoy", VolumeSource: corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{
					LocalObjectReference: corev1.LocalObjectReference{Name: "checkout-envoy"}, DefaultMode: ptr.To(int32(0o644))}}},
				{Name: "otel", VolumeSource: corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{
					LocalObjectReference: corev1.LocalObjectReference{Name: "otel-collector"}, DefaultMode: ptr.To(int32(0o644))}}},
				{Name: "tmp", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{SizeLimit: ptr.To(resource.MustParse("256Mi"))}}},
			},
			RestartPolicy:                 corev1.RestartPolicyAlways,
			TerminationGracePeriodSeconds: ptr.To(int64(45)),
			DNSPolicy:                     corev1.DNSClusterFirst,
			SchedulerName:                 corev1.DefaultSchedulerName,
			EnableServiceLinks:            ptr.To(false),
			PreemptionPolicy:              ptr.To(corev1.PreemptLowerPriority),
			Priority:                      ptr.To(int32(0)),
			SecurityContext: &corev1.PodSecurityContext{
				RunAsNonRoot: ptr.To(true), SeccompProfile: &corev1.SeccompProfile{Type: corev1.SeccompProfileTypeRuntimeDefault},
			},
			TopologySpreadConstraints: []corev1.TopologySpreadConstraint{{
				MaxSkew: 1, TopologyKey: "topology.kubernetes.io/zone", WhenUnsatisfiable: corev1.ScheduleAnyway,
				LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"app.kubernetes.io/name": "checkout"}},
			}},
			Tolerations: []corev1.Toleration{
				{Key: "node.kubernetes.io/not-ready", Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoExecute, TolerationSeconds: ptr.To(int64(300))},
				{Key: "node.kubernetes.io/unreachable", Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoExecute, TolerationSeconds: ptr.To(int64(300))},
			},
		},
	}
}
