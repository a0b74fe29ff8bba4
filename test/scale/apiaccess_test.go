package scale

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	rbacv1 "k8s.io/api/rbac/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apiextensionsclient "k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/utils/ptr"

	apiaccessv1alpha1 "github.com/openshift/cluster-workload-access-operator/pkg/apis/apiaccess/v1alpha1"
	versioned "github.com/openshift/cluster-workload-access-operator/pkg/generated/clientset/versioned"
	"github.com/openshift/cluster-workload-access-operator/pkg/generated/informers/externalversions"
	"github.com/openshift/cluster-workload-access-operator/test/controlplane"
	"github.com/openshift/cluster-workload-access-operator/test/framework"
)

// policyCRDs is how many CRDs one APIAccessPolicy selects: four roles each.
const policyCRDs = 300

// BenchmarkAPIAccessPolicy300CRDs: one Aggregate policy over 300 CRDs of
// one ClusterExtension. Reports the time until its status lists all 1,200
// roles (target 5 s), the operator's requests meanwhile, that a resync
// with nothing changed writes nothing, and the time to remove them all
// (switch to Unmanaged).
func BenchmarkAPIAccessPolicy300CRDs(b *testing.B) {
	binary := operatorBinary(b, "bench-apiaccess")
	for b.Loop() {
		runAPIAccess(b, binary)
	}
}

func runAPIAccess(b *testing.B, binary string) {
	ctx := context.Background()
	cluster := startCluster(b, controlplane.Options{AuditLog: true})
	defer cluster.Stop()
	config := rest.CopyConfig(cluster.Config)
	config.QPS, config.Burst = 1000, 2000
	kube := kubernetes.NewForConfigOrDie(config)
	client := versioned.NewForConfigOrDie(config)
	crds := apiextensionsclient.NewForConfigOrDie(config)
	operator, stopOperator := startOperator(ctx, b, cluster, binary, "APIAccessPolicy")
	defer stopOperator()
	defer startAdmissionWebhook(ctx, b, cluster, binary)()

	start := time.Now()
	parallel(b, policyCRDs, func(i int) error {
		_, err := crds.ApiextensionsV1().CustomResourceDefinitions().Create(ctx, scaleCRD(i), metav1.CreateOptions{})
		return err
	})
	b.Logf("created %d CRDs in %s", policyCRDs, time.Since(start).Round(time.Millisecond))
	// One role that is not the policy's: the Conflict it causes makes
	// every sync read it, which the audit log shows.
	foreign := "Kind0000.scale.example.com-admin"
	if _, err := kube.RbacV1().ClusterRoles().Create(ctx, &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: foreign}}, metav1.CreateOptions{}); err != nil {
		b.Fatal(err)
	}
	time.Sleep(10 * time.Second) // the operator's CRD informer and the API server settle

	const name = "scale"
	want := 4*policyCRDs - 1
	if _, err := client.APIAccessV1alpha1().APIAccessPolicies().Create(ctx, &apiaccessv1alpha1.APIAccessPolicy{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: apiaccessv1alpha1.APIAccessPolicySpec{Mode: apiaccessv1alpha1.ModeUnmanaged,
			CRDs: apiaccessv1alpha1.CRDSelection{ClusterExtension: "scale"}},
	}, metav1.CreateOptions{}); err != nil {
		b.Fatal(err)
	}
	// The policy's status is read from an informer: polling the API
	// server for an object listing 1,200 roles every few milliseconds
	// would cost it more than it is worth, and slow what is measured.
	policies := externalversions.NewSharedInformerFactory(client, 0).APIAccess().V1alpha1().APIAccessPolicies()
	stop := make(chan struct{})
	defer close(stop)
	go policies.Informer().Run(stop)
	managed := func(want int) {
		var got int
		if err := wait.PollUntilContextTimeout(ctx, 20*time.Millisecond, 5*time.Minute, true, func(ctx context.Context) (bool, error) {
			p, err := policies.Lister().Get(name)
			if err != nil {
				return false, nil
			}
			got = len(p.Status.ManagedObjects)
			return p.Status.ObservedGeneration == p.Generation && got == want && meta.FindStatusCondition(p.Status.Conditions, apiaccessv1alpha1.ConditionRBACManaged) != nil, nil
		}); err != nil {
			b.Fatalf("the policy manages %d objects, want %d: %v", got, want, err)
		}
	}
	// switchTo sets the mode and returns how long until the policy's
	// status lists want objects, and the operator's requests meanwhile.
	switchTo := func(mode apiaccessv1alpha1.AccessMode, want int) (time.Duration, map[string]int, int) {
		start, cpuBefore := time.Now(), cpuSeconds(b)
		profiled := profileAPIServer(ctx, b, kube, 4*time.Second, "apiaccess-"+strings.ToLower(string(mode)))
		defer func() { <-profiled }()
		if err := wait.PollUntilContextTimeout(ctx, 50*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
			p, err := client.APIAccessV1alpha1().APIAccessPolicies().Get(ctx, name, metav1.GetOptions{})
			if err != nil {
				return false, nil
			}
			p.Spec.Mode = mode
			_, err = client.APIAccessV1alpha1().APIAccessPolicies().Update(ctx, p, metav1.UpdateOptions{})
			return err == nil, nil
		}); err != nil {
			b.Fatal(err)
		}
		managed(want)
		took := time.Since(start)
		requests, writes := count(b, cluster.AuditLogPath, start)
		b.Logf("%s mode: %d objects after %s; CPU meanwhile: %s; operator requests: %s", mode, want, took.Round(time.Millisecond), cpuSince(b, cpuBefore), summary(requests))
		time.Sleep(5 * time.Second) // the kube-controller-manager's aggregation settles
		return took, requests, writes
	}
	managed(0)
	bound, _, _ := switchTo(apiaccessv1alpha1.ModeBind, want)
	boundRemoved, _, _ := switchTo(apiaccessv1alpha1.ModeUnmanaged, 0)
	converged, _, writes := switchTo(apiaccessv1alpha1.ModeAggregate, want)
	roles, err := kube.RbacV1().ClusterRoles().List(ctx, metav1.ListOptions{LabelSelector: apiaccessv1alpha1.PolicyLabel + "=" + name})
	if err != nil {
		b.Fatal(err)
	}
	if len(roles.Items) != want {
		b.Fatalf("%d roles exist, want %d", len(roles.Items), want)
	}

	// A resync with nothing changed: touch a selected CRD, wait for the
	// sync (its read of the foreign role), and count writes.
	quiet := time.Now()
	crd, err := crds.ApiextensionsV1().CustomResourceDefinitions().Get(ctx, scaleCRD(1).Name, metav1.GetOptions{})
	if err != nil {
		b.Fatal(err)
	}
	crd.Annotations = map[string]string{"touched": "yes"}
	if _, err := crds.ApiextensionsV1().CustomResourceDefinitions().Update(ctx, crd, metav1.UpdateOptions{}); err != nil {
		b.Fatal(err)
	}
	if err := wait.PollUntilContextTimeout(ctx, 200*time.Millisecond, time.Minute, true, func(context.Context) (bool, error) {
		events, err := framework.Requests(cluster.AuditLogPath, framework.OperatorUser, quiet)
		if err != nil {
			return false, err
		}
		for _, e := range events {
			if e.Verb == "get" && e.ObjectRef != nil && e.ObjectRef.Name == foreign {
				return true, nil
			}
		}
		return false, nil
	}); err != nil {
		b.Fatalf("the policy was not resynced: %v", err)
	}
	time.Sleep(5 * time.Second)
	resyncRequests, resyncWrites := count(b, cluster.AuditLogPath, quiet)
	b.Logf("resync with nothing changed: requests %s, writes %d", summary(resyncRequests), resyncWrites)

	removed, _, _ := switchTo(apiaccessv1alpha1.ModeUnmanaged, 0)
	b.Log(operatorLines(operator.Log(), "APIAccessPolicy scale: planned"))

	b.ReportMetric(bound.Seconds(), "s-converge-bind-300-crds")
	b.ReportMetric(boundRemoved.Seconds(), "s-remove-bind-1200-roles")
	b.ReportMetric(converged.Seconds(), "s-converge-aggregate-300-crds")
	b.ReportMetric(removed.Seconds(), "s-remove-aggregated-1200-roles")
	b.ReportMetric(float64(writes), "writes-converge")
	b.ReportMetric(float64(resyncWrites), "writes-resync")
	if bound > 5*time.Second {
		b.Errorf("Bind mode converged after %s, target 5s", bound)
	}
	if resyncWrites != 0 {
		b.Errorf("a resync with nothing changed wrote %d times", resyncWrites)
	}
}

func scaleCRD(i int) *apiextensionsv1.CustomResourceDefinition {
	kind := fmt.Sprintf("Kind%04d", i)
	plural := strings.ToLower(kind) + "s"
	return &apiextensionsv1.CustomResourceDefinition{
		ObjectMeta: metav1.ObjectMeta{Name: plural + ".scale.example.com", Labels: map[string]string{
			apiaccessv1alpha1.OLMOwnerKindLabel: apiaccessv1alpha1.OLMOwnerKindClusterExtension, apiaccessv1alpha1.OLMOwnerNameLabel: "scale"}},
		Spec: apiextensionsv1.CustomResourceDefinitionSpec{
			Group: "scale.example.com", Scope: apiextensionsv1.NamespaceScoped,
			Names: apiextensionsv1.CustomResourceDefinitionNames{Kind: kind, Plural: plural, ListKind: kind + "List", Singular: strings.ToLower(kind)},
			Versions: []apiextensionsv1.CustomResourceDefinitionVersion{{Name: "v1", Served: true, Storage: true,
				Schema: &apiextensionsv1.CustomResourceValidation{OpenAPIV3Schema: &apiextensionsv1.JSONSchemaProps{
					Type: "object", XPreserveUnknownFields: ptr.To(true)}}}},
		},
	}
}

// operatorLines are the operator log's lines containing what.
func operatorLines(log, what string) string {
	var out []string
	for _, line := range strings.Split(log, "\n") {
		if strings.Contains(line, what) {
			out = append(out, line)
		}
	}
	return strings.Join(out, "\n")
}
