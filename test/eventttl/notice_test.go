package eventttl

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"

	apiaccessv1alpha1 "github.com/openshift/cluster-workload-access-operator/pkg/apis/apiaccess/v1alpha1"
	"github.com/openshift/cluster-workload-access-operator/pkg/operator/rbac/unmanagednotice"
	"github.com/openshift/cluster-workload-access-operator/test/framework"
)

// toldWithin bounds how long the notice may be missing after its Event
// expired, and how long the operator gets to act on a change: both take
// one watch event and one sync, well under a second on an idle machine.
const toldWithin = 10 * time.Second

// ownedCRD is a namespaced CRD <plural>.<group> with the owner labels OLM
// v1 sets on the CRDs of a ClusterExtension.
func ownedCRD(group, kind, extension string) *apiextensionsv1.CustomResourceDefinition {
	plural := strings.ToLower(kind) + "s"
	return &apiextensionsv1.CustomResourceDefinition{
		ObjectMeta: metav1.ObjectMeta{Name: plural + "." + group, Labels: map[string]string{
			apiaccessv1alpha1.OLMOwnerKindLabel: apiaccessv1alpha1.OLMOwnerKindClusterExtension,
			apiaccessv1alpha1.OLMOwnerNameLabel: extension}},
		Spec: apiextensionsv1.CustomResourceDefinitionSpec{
			Group: group, Scope: apiextensionsv1.NamespaceScoped,
			Names: apiextensionsv1.CustomResourceDefinitionNames{Kind: kind, Plural: plural, ListKind: kind + "List", Singular: strings.ToLower(kind)},
			Versions: []apiextensionsv1.CustomResourceDefinitionVersion{{Name: "v1", Served: true, Storage: true,
				Schema: &apiextensionsv1.CustomResourceValidation{OpenAPIV3Schema: &apiextensionsv1.JSONSchemaProps{
					Type: "object", XPreserveUnknownFields: ptr.To(true)}}}},
		},
	}
}

// noticesOn are the Events of that reason on the ClusterExtension of that
// UID, as `oc describe clusterextension` lists them.
func noticesOn(ctx context.Context, uid types.UID, reason string) ([]corev1.Event, error) {
	events, err := framework.EventsOn(ctx, env.kube, uid)
	return events[reason], err
}

// While a ClusterExtension's CRDs are unmanaged, an admin who looks at any
// time finds the APIAccessUnmanaged notice: its Event expires after the
// event TTL, and the operator, which watches its own notices, records it
// again at once. Looked for every 250 ms for twice the TTL. Once a policy
// manages the CRDs, the ClusterExtension is told APIAccessManaged within
// seconds (the policy's status wakes the notice; nothing waits for a
// resync), and the Unmanaged notice, once its Event expires, is not
// recorded again.
func TestTheUnmanagedNoticeOutlivesItsEvent(t *testing.T) {
	t.Cleanup(func() {
		if t.Failed() {
			t.Log(env.running.Tail(60))
		}
	})
	framework.ServeClusterExtensions(t, env.cp.Config)
	const extension = "ttl-unmanaged"
	uid := framework.CreateClusterExtension(t, env.cp.Config, extension)
	crd := ownedCRD("ttl.example.com", "Gizmo", extension)
	framework.CreateCRD(t, env.cp.Config, crd)

	var first corev1.Event
	framework.Eventually(t, time.Minute, func(ctx context.Context) error {
		notices, err := noticesOn(ctx, uid, unmanagednotice.ReasonUnmanaged)
		if err != nil {
			return err
		}
		if len(notices) != 1 {
			return fmt.Errorf("%d %s Events: %+v", len(notices), unmanagednotice.ReasonUnmanaged, notices)
		}
		first = notices[0]
		return nil
	})
	if !strings.Contains(first.Message, crd.Name) {
		t.Errorf("the notice does not name %s: %q", crd.Name, first.Message)
	}

	// Twice the TTL, looking all the time: the notice's Event expires at
	// least once, and the notice is never missing for longer than
	// toldWithin.
	seen := map[types.UID]bool{first.UID: true}
	var missingSince time.Time
	var longestGap time.Duration
	for end := time.Now().Add(2*eventTTL + 5*time.Second); time.Now().Before(end); time.Sleep(250 * time.Millisecond) {
		notices, err := noticesOn(context.Background(), uid, unmanagednotice.ReasonUnmanaged)
		if err != nil {
			t.Fatal(err)
		}
		if len(notices) == 0 {
			if missingSince.IsZero() {
				missingSince = time.Now()
			}
			continue
		}
		if !missingSince.IsZero() {
			longestGap, missingSince = max(longestGap, time.Since(missingSince)), time.Time{}
		}
		for _, e := range notices {
			if !seen[e.UID] {
				t.Logf("notice %s (count %d) at %s", e.Name, e.Count, time.Now().Format(time.TimeOnly))
			}
			seen[e.UID] = true
			if !strings.Contains(e.Message, crd.Name) {
				t.Errorf("a notice does not name %s: %q", crd.Name, e.Message)
			}
		}
	}
	if !missingSince.IsZero() {
		longestGap = max(longestGap, time.Since(missingSince))
	}
	if longestGap > toldWithin {
		t.Fatalf("after its Event expired, the %s notice was missing for %s (want it recorded again within %s): "+
			"`oc describe clusterextension %s` shows nothing while its CRDs are still unmanaged",
			unmanagednotice.ReasonUnmanaged, longestGap.Round(time.Second), toldWithin, extension)
	}
	if len(seen) < 2 {
		t.Fatalf("in %s the notice's Event never expired: is the API server's --event-ttl %s?", 2*eventTTL, eventTTL)
	}
	t.Logf("the notice was recorded %d times in %s; missing at most %s (looked every 250 ms)", len(seen), 2*eventTTL, longestGap.Round(time.Millisecond))
	framework.Eventually(t, toldWithin, func(ctx context.Context) error {
		if notices, err := noticesOn(ctx, uid, unmanagednotice.ReasonUnmanaged); err != nil || len(notices) == 0 {
			return fmt.Errorf("no %s notice after twice the event TTL: %v", unmanagednotice.ReasonUnmanaged, err)
		}
		return nil
	})

	// A policy takes the CRDs on: told Managed, then the Unmanaged notice
	// expires for good.
	const policy = "ttl-unmanaged"
	policies := env.operator.APIAccessV1alpha1().APIAccessPolicies()
	framework.Eventually(t, time.Minute, func(ctx context.Context) error { // until the access-grants check is registered
		_, err := policies.Create(ctx, &apiaccessv1alpha1.APIAccessPolicy{ObjectMeta: metav1.ObjectMeta{Name: policy},
			Spec: apiaccessv1alpha1.APIAccessPolicySpec{Mode: apiaccessv1alpha1.ModeAggregate,
				CRDs: apiaccessv1alpha1.CRDSelection{ClusterExtension: extension}}}, metav1.CreateOptions{})
		if apierrors.IsAlreadyExists(err) {
			return nil
		}
		return err
	})
	t.Cleanup(func() { _ = policies.Delete(context.Background(), policy, metav1.DeleteOptions{}) })
	created := time.Now()
	framework.Eventually(t, toldWithin, func(ctx context.Context) error {
		managed, err := noticesOn(ctx, uid, unmanagednotice.ReasonManaged)
		if err != nil {
			return err
		}
		if len(managed) != 1 || !strings.Contains(managed[0].Message, "APIAccessPolicy "+policy) {
			return fmt.Errorf("%s Events: %+v", unmanagednotice.ReasonManaged, managed)
		}
		return nil
	})
	t.Logf("%s %s after the policy was created", unmanagednotice.ReasonManaged, time.Since(created).Round(time.Millisecond))
	framework.Eventually(t, eventTTL+toldWithin, func(ctx context.Context) error {
		if notices, err := noticesOn(ctx, uid, unmanagednotice.ReasonUnmanaged); err != nil || len(notices) != 0 {
			return fmt.Errorf("the %s notice is still there once the CRDs are managed: %+v %v", unmanagednotice.ReasonUnmanaged, notices, err)
		}
		return nil
	})
	framework.Consistently(t, toldWithin, func(ctx context.Context) error {
		if notices, err := noticesOn(ctx, uid, unmanagednotice.ReasonUnmanaged); err != nil || len(notices) != 0 {
			return fmt.Errorf("the %s notice was recorded again once the CRDs were managed: %+v %v", unmanagednotice.ReasonUnmanaged, notices, err)
		}
		return nil
	})
}
