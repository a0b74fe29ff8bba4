package webhookdeployment

import (
	"context"
	"slices"
	"strings"
	"testing"

	configv1 "github.com/openshift/api/config/v1"
	operatorv1 "github.com/openshift/api/operator/v1"
	configfake "github.com/openshift/client-go/config/clientset/versioned/fake"
	configinformers "github.com/openshift/client-go/config/informers/externalversions"
	"github.com/openshift/library-go/pkg/controller/factory"
	"github.com/openshift/library-go/pkg/operator/events"
	"github.com/openshift/library-go/pkg/operator/v1helpers"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/utils/clock"

	operatorv1alpha1 "github.com/openshift/cluster-workload-access-operator/pkg/apis/operator/v1alpha1"
	operatorfake "github.com/openshift/cluster-workload-access-operator/pkg/generated/clientset/versioned/fake"
	operatorinformers "github.com/openshift/cluster-workload-access-operator/pkg/generated/informers/externalversions"
	"github.com/openshift/cluster-workload-access-operator/pkg/operator/frame/operatorclient"
)

// The whole controller, library-go's deployment controller with our hooks,
// over informers on fake clients: one sync writes the Deployment as the
// topology, the TLS profile and the serving certificate ask.
func TestSyncWritesTheDeploymentThroughEveryHook(t *testing.T) {
	for _, tc := range []struct {
		name         string
		topology     configv1.TopologyMode
		platform     configv1.PlatformType
		withCert     bool
		wantReplicas int32
		wantErr      bool
		wantArgs     []string // pod identity's
	}{
		{"highly available", configv1.HighlyAvailableTopologyMode, configv1.NonePlatformType, true, 2, false, nil},
		{"single node", configv1.SingleReplicaTopologyMode, configv1.NonePlatformType, true, 1, false, nil},
		{"no serving certificate yet", configv1.HighlyAvailableTopologyMode, configv1.NonePlatformType, false, 0, true, nil},
		{"on AWS", configv1.HighlyAvailableTopologyMode, configv1.AWSPlatformType, true, 2, false,
			[]string{"--pod-identity", "--aws-default-region=eu-west-1"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			var objects []any
			if tc.withCert {
				objects = append(objects, &corev1.Secret{
					ObjectMeta: metav1.ObjectMeta{Namespace: operatorclient.OperandNamespace, Name: operatorclient.WebhookServingCertSecret},
					Data:       map[string][]byte{"tls.crt": []byte("c"), "tls.key": []byte("k")},
				})
			}
			kube := fake.NewClientset()
			for _, o := range objects {
				if _, err := kube.CoreV1().Secrets(operatorclient.OperandNamespace).Create(ctx, o.(*corev1.Secret), metav1.CreateOptions{}); err != nil {
					t.Fatal(err)
				}
			}
			config := configfake.NewSimpleClientset(
				&configv1.Infrastructure{ObjectMeta: metav1.ObjectMeta{Name: "cluster"}, Status: configv1.InfrastructureStatus{
					ControlPlaneTopology: tc.topology,
					PlatformStatus:       &configv1.PlatformStatus{Type: tc.platform, AWS: &configv1.AWSPlatformStatus{Region: "eu-west-1"}},
				}},
				&configv1.APIServer{ObjectMeta: metav1.ObjectMeta{Name: "cluster"}, Spec: configv1.APIServerSpec{
					TLSSecurityProfile: &configv1.TLSSecurityProfile{Type: configv1.TLSProfileModernType}}},
			)
			kubeInformers := v1helpers.NewKubeInformersForNamespaces(kube, operatorclient.OperandNamespace)
			configInformers := configinformers.NewSharedInformerFactory(config, 0)
			operatorClient := v1helpers.NewFakeOperatorClient(&operatorv1.OperatorSpec{ManagementState: operatorv1.Managed}, &operatorv1.OperatorStatus{}, nil)
			recorder := events.NewInMemoryRecorder("test", clock.RealClock{})
			operatorInformers := operatorinformers.NewSharedInformerFactory(operatorfake.NewSimpleClientset(
				&operatorv1alpha1.WorkloadAccess{ObjectMeta: metav1.ObjectMeta{Name: operatorv1alpha1.WorkloadAccessName}}), 0)
			workloadAccesses := operatorInformers.Operator().V1alpha1().WorkloadAccesses()
			controller, err := New(Inputs{Image: "quay.io/example/operator:v1", KubeClient: kube, KubeInformers: kubeInformers,
				Config: configInformers.Config().V1(), WorkloadAccesses: workloadAccesses, OperatorClient: operatorClient, Recorder: recorder})
			if err != nil {
				t.Fatal(err)
			}
			kubeInformers.Start(ctx.Done())
			configInformers.Start(ctx.Done())
			operatorInformers.Start(ctx.Done())
			operatorInformers.WaitForCacheSync(ctx.Done())
			kubeInformers.InformersFor(operatorclient.OperandNamespace).WaitForCacheSync(ctx.Done())
			configInformers.WaitForCacheSync(ctx.Done())

			err = controller.Sync(ctx, factory.NewSyncContext("test", recorder))
			if tc.wantErr {
				if err == nil {
					t.Fatal("synced without a serving certificate")
				}
				if _, err := kube.AppsV1().Deployments(operatorclient.OperandNamespace).Get(ctx, operatorclient.WebhookName, metav1.GetOptions{}); err == nil {
					t.Error("a Deployment was written without a serving certificate to mount")
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			d, err := kube.AppsV1().Deployments(operatorclient.OperandNamespace).Get(ctx, operatorclient.WebhookName, metav1.GetOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if *d.Spec.Replicas != tc.wantReplicas {
				t.Errorf("replicas %d, want %d", *d.Spec.Replicas, tc.wantReplicas)
			}
			c := d.Spec.Template.Spec.Containers[0]
			if c.Image != "quay.io/example/operator:v1" || !slices.Contains(c.Args, "--tls-min-version=VersionTLS13") {
				t.Errorf("container image %s args %v", c.Image, c.Args)
			}
			if got := slices.DeleteFunc(slices.Clone(c.Args), func(a string) bool {
				return a != "--pod-identity" && !strings.HasPrefix(a, "--aws-default-region")
			}); !slices.Equal(got, tc.wantArgs) {
				t.Errorf("pod identity args %v, want %v", got, tc.wantArgs)
			}
			if d.Spec.Template.Annotations[ServingCertHashAnnotation] == "" {
				t.Error("no serving-cert hash on the pod template")
			}
		})
	}
}
