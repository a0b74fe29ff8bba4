package e2e

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	apiaccessv1alpha1 "github.com/openshift/cluster-workload-access-operator/pkg/apis/apiaccess/v1alpha1"
	"github.com/openshift/cluster-workload-access-operator/pkg/operator/rbac/crdaccess"
	"github.com/openshift/cluster-workload-access-operator/test/framework"
)

// eventsOn are the Events on the ClusterExtension of that UID, by reason.
func eventsOn(ctx context.Context, uid types.UID) (map[string][]corev1.Event, error) {
	return framework.EventsOn(ctx, env.kube, uid)
}

// Unmanaged is the default, and the ClusterExtension says so: an Event
// naming the CRDs no policy manages, once, not on every resync and not
// again after a restart; another when a policy takes them on. The
// ClusterExtension itself is never written.
func TestAPIAccessUnmanagedByDefaultIsAnEventOnTheClusterExtension(t *testing.T) {
	dumpOnFailure(t)
	ensureWebhook(t) // the access-grants check admits the policy
	framework.ServeClusterExtensions(t, env.cp.Config)
	const extension = "e2e-unmanaged"
	uid := framework.CreateClusterExtension(t, env.cp.Config, extension)
	gizmos, _ := testCRD(t, "unmanaged.e2e.example.com", "Gizmo", extension)

	var unmanaged corev1.Event
	framework.Eventually(t, time.Minute, func(ctx context.Context) error {
		events, err := eventsOn(ctx, uid)
		if err != nil {
			return err
		}
		if n := len(events["APIAccessUnmanaged"]); n != 1 {
			return fmt.Errorf("%d APIAccessUnmanaged events: %+v", n, events)
		}
		unmanaged = events["APIAccessUnmanaged"][0]
		return nil
	})
	if !strings.Contains(unmanaged.Message, gizmos.Name) || unmanaged.InvolvedObject.Kind != "ClusterExtension" ||
		unmanaged.InvolvedObject.Name != extension {
		t.Errorf("the event: %+v", unmanaged)
	}

	// Resyncs (a CRD touched, the ClusterExtension touched) and a restart
	// repeat nothing.
	touch := func() {
		framework.Eventually(t, 30*time.Second, func(ctx context.Context) error {
			c, err := crdClient(t).ApiextensionsV1().CustomResourceDefinitions().Get(ctx, gizmos.Name, metav1.GetOptions{})
			if err != nil {
				return err
			}
			c.Annotations = map[string]string{"e2e-touched": time.Now().String()}
			_, err = crdClient(t).ApiextensionsV1().CustomResourceDefinitions().Update(ctx, c, metav1.UpdateOptions{})
			return err
		})
		if _, err := dynamicAs(t, "").Resource(framework.ClusterExtensions).Patch(context.Background(), extension, types.MergePatchType,
			[]byte(`{"metadata":{"annotations":{"e2e-touched":"`+time.Now().Format(time.RFC3339Nano)+`"}}}`), metav1.PatchOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	since := time.Now()
	touch()
	time.Sleep(3 * time.Second)
	replaceOperator(t, "operator-unmanaged-notice")
	waitLeader(t, env.running)
	touch()
	time.Sleep(5 * time.Second)
	events, err := eventsOn(context.Background(), uid)
	if err != nil {
		t.Fatal(err)
	}
	if n := len(events["APIAccessUnmanaged"]); n != 1 || events["APIAccessUnmanaged"][0].Count > 1 {
		t.Errorf("the notice was repeated: %+v", events["APIAccessUnmanaged"])
	}
	writes, err := framework.Writes(env.cp.AuditLogPath, framework.OperatorUser, since)
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range writes {
		if w.ObjectRef != nil && w.ObjectRef.Resource == "clusterextensions" {
			t.Errorf("the operator wrote a ClusterExtension: %s", w)
		}
	}

	// The notice outlives its Event: the API server deletes an Event when
	// its TTL runs out (1 h here, 3 h on OpenShift), and the operator, which
	// watches its notices, records it again. Deleted here as the TTL would.
	gone := events["APIAccessUnmanaged"][0]
	if err := env.kube.CoreV1().Events(gone.Namespace).Delete(context.Background(), gone.Name, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	framework.Eventually(t, 30*time.Second, func(ctx context.Context) error {
		events, err := eventsOn(ctx, uid)
		if err != nil {
			return err
		}
		if n := len(events["APIAccessUnmanaged"]); n != 1 || events["APIAccessUnmanaged"][0].UID == gone.UID {
			return fmt.Errorf("after the notice's Event was deleted: %+v", events["APIAccessUnmanaged"])
		}
		return nil
	})

	// A policy in Aggregate mode whose roles are all someone else's
	// (Conflicts) generates nothing for the CRD, and manages nothing: the
	// notice stays Unmanaged.
	for _, role := range crdaccess.API(gizmos).Roles() {
		foreign := &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: role.Name}}
		if _, err := env.kube.RbacV1().ClusterRoles().Create(context.Background(), foreign, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() {
			_ = env.kube.RbacV1().ClusterRoles().Delete(context.Background(), foreign.Name, metav1.DeleteOptions{})
		})
	}
	createPolicy(t, "e2e-unmanaged-conflicts", apiaccessv1alpha1.APIAccessPolicySpec{Mode: apiaccessv1alpha1.ModeAggregate,
		CRDs: apiaccessv1alpha1.CRDSelection{Names: []string{gizmos.Name}}})
	waitPolicy(t, "e2e-unmanaged-conflicts", func(p *apiaccessv1alpha1.APIAccessPolicy) error {
		return conditionIs(p, apiaccessv1alpha1.ConditionConflict, metav1.ConditionTrue, apiaccessv1alpha1.ReasonNotOurs)
	})
	time.Sleep(3 * time.Second)
	if events, err := eventsOn(context.Background(), uid); err != nil || len(events["APIAccessManaged"]) != 0 {
		t.Errorf("a policy whose roles are all Conflicts was counted as managing: %+v %v", events["APIAccessManaged"], err)
	}
	if err := env.operator.APIAccessV1alpha1().APIAccessPolicies().Delete(context.Background(), "e2e-unmanaged-conflicts", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	for _, role := range crdaccess.API(gizmos).Roles() {
		_ = env.kube.RbacV1().ClusterRoles().Delete(context.Background(), role.Name, metav1.DeleteOptions{})
	}

	// A policy takes the CRDs on: the ClusterExtension is told, once.
	createPolicy(t, "e2e-unmanaged", apiaccessv1alpha1.APIAccessPolicySpec{Mode: apiaccessv1alpha1.ModeAggregate,
		CRDs: apiaccessv1alpha1.CRDSelection{ClusterExtension: extension}})
	framework.Eventually(t, time.Minute, func(ctx context.Context) error {
		events, err := eventsOn(ctx, uid)
		if err != nil {
			return err
		}
		if n := len(events["APIAccessManaged"]); n != 1 || !strings.Contains(events["APIAccessManaged"][0].Message, "APIAccessPolicy e2e-unmanaged") {
			return fmt.Errorf("APIAccessManaged events: %+v", events["APIAccessManaged"])
		}
		return nil
	})
}
