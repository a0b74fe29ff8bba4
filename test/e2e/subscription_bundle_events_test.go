package e2e

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/types"

	"github.com/openshift/cluster-workload-access-operator/test/framework"

	v1alpha1 "github.com/openshift/cluster-workload-access-operator/pkg/apis/subscription/v1alpha1"
)

// describedEvents lists the Events `oc describe` shows for an object: those
// in its namespace ("default" for a cluster-scoped one) whose involvedObject
// is it, as "<type> <reason>: <message>", sorted.
func describedEvents(ctx context.Context, namespace, kind, name string, uid types.UID) ([]string, error) {
	if namespace == "" {
		namespace = metav1.NamespaceDefault
	}
	list, err := env.kube.CoreV1().Events(namespace).List(ctx, metav1.ListOptions{FieldSelector: fields.Set{
		"involvedObject.kind": kind, "involvedObject.name": name, "involvedObject.uid": string(uid),
	}.AsSelector().String()})
	if err != nil {
		return nil, err
	}
	var out []string
	for _, e := range list.Items {
		out = append(out, fmt.Sprintf("%s %s: %s", e.Type, e.Reason, e.Message))
	}
	sort.Strings(out)
	return out, nil
}

// waitForEvent waits until the object's described Events include one that
// starts with want, and returns them all.
func waitForEvent(t *testing.T, namespace, kind, name string, uid types.UID, want string) []string {
	t.Helper()
	var got []string
	framework.Eventually(t, 30*time.Second, func(ctx context.Context) error {
		var err error
		if got, err = describedEvents(ctx, namespace, kind, name, uid); err != nil {
			return err
		}
		for _, e := range got {
			if strings.HasPrefix(e, want) {
				return nil
			}
		}
		return fmt.Errorf("no Event %q on %s %s/%s yet: %q", want, kind, namespace, name, got)
	})
	return got
}

// A Bundle's owner sees, on the Bundle, why it cannot be injected and when
// it can; a ClusterBundle's owner sees its shares created and deleted,
// access revoked, and its validity. No Event carries Secret contents.
func TestBundlesGetEventsOnTheirTransitions(t *testing.T) {
	dumpOnFailure(t)
	ctx := context.Background()
	ns := testNamespace(t, "events-")
	b := createBundle(t, ns, "rhel", nil, v1alpha1.BundleSpec{Entitlements: localRefs("ent")}, metav1.ConditionTrue)
	waitForEvent(t, ns, "Bundle", b.Name, b.UID, corev1.EventTypeWarning+" "+v1alpha1.ReasonMissingReference+": Bundle cannot be injected: secret "+ns+"/ent")
	createSecret(t, ns, "ent", "a.pem")
	waitForEvent(t, ns, "Bundle", b.Name, b.UID, corev1.EventTypeNormal+" Valid: Bundle can be injected")

	source := testNamespace(t, "events-source-")
	createSecret(t, source, "one", "one.pem")
	createSecret(t, source, "two", "two.pem")
	cb := createClusterBundle(t, "e2e-events-", nil, v1alpha1.ClusterBundleSpec{Entitlements: []v1alpha1.ClusterReference{
		{Namespace: source, Name: "one"}, {Namespace: source, Name: "two"},
	}}, metav1.ConditionFalse)
	waitForEvent(t, "", "ClusterBundle", cb.Name, cb.UID, corev1.EventTypeNormal+" SharedSecretCreated")
	waitForEvent(t, "", "ClusterBundle", cb.Name, cb.UID, corev1.EventTypeNormal+" ClusterRoleCreated")
	waitForEvent(t, "", "ClusterBundle", cb.Name, cb.UID, corev1.EventTypeNormal+" Valid")

	// Drop one Secret and name one that does not exist yet: the dropped
	// share's access is revoked at once, while the bundle is Invalid.
	cb, err := env.operator.SubscriptionV1alpha1().ClusterBundles().Get(ctx, cb.Name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	cb.Spec.Entitlements = []v1alpha1.ClusterReference{{Namespace: source, Name: "one"}, {Namespace: source, Name: "later"}}
	if _, err := env.operator.SubscriptionV1alpha1().ClusterBundles().Update(ctx, cb, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	waitForEvent(t, "", "ClusterBundle", cb.Name, cb.UID, corev1.EventTypeNormal+" AccessRevoked")
	waitForEvent(t, "", "ClusterBundle", cb.Name, cb.UID, corev1.EventTypeNormal+" SharedSecretDeleted")
	clusterBundleEvents := waitForEvent(t, "", "ClusterBundle", cb.Name, cb.UID, corev1.EventTypeWarning+" "+v1alpha1.ReasonMissingReference)

	bundleEvents, err := describedEvents(ctx, ns, "Bundle", b.Name, b.UID)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range append(bundleEvents, clusterBundleEvents...) {
		if strings.Contains(e, "not a real key") {
			t.Errorf("an Event carries Secret contents: %s", e)
		}
	}
}
