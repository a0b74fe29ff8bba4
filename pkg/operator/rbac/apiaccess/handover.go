package apiaccess

import (
	"fmt"
	"slices"
	"strings"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	apiaccessv1alpha1 "github.com/openshift/cluster-workload-access-operator/pkg/apis/apiaccess/v1alpha1"
)

// HandoverWindow is how long a policy leaves the name of a generated role
// that someone else deleted to the ClusterExtension's own role. An upgrade
// that brings the bundle's role of that name stops on the generated one
// (OLM v1 adopts nothing it did not create), and OLM v1 retries a failed
// ClusterExtension on controller-runtime's default backoff, which grows to
// 1000 s between attempts: a window longer than that sees at least one
// retry, however long the upgrade had been failing before the deletion.
const HandoverWindow = 20 * time.Minute

// handover is what the policy does with a generated role's name.
type handover int

const (
	// create the role (absent) or keep it in sync (present).
	manage handover = iota
	// await the bundle's role: the generated one was deleted by someone else.
	await
	// recreate the role: the bundle's did not come within the window.
	recreate
)

// handoverOf decides for a role finding: a role the policy made before (in
// its status) of a ClusterExtension's CRD, now gone, was deleted by someone
// else, since the policy deletes only roles it no longer wants. since is when
// the policy first found it gone.
func (c *controller) handoverOf(policy *apiaccessv1alpha1.APIAccessPolicy, f *roleFinding) (handover, time.Time) {
	if f.existing != nil || !ofClusterExtension(f.crd) {
		return manage, time.Time{}
	}
	now := c.now()
	var since time.Time
	if i := slices.IndexFunc(policy.Status.AwaitingBundleRoles, func(a apiaccessv1alpha1.AwaitedRole) bool { return a.Name == f.desired.Name }); i >= 0 {
		since = policy.Status.AwaitingBundleRoles[i].Since.Time
	} else if madeBefore(policy, f.desired.Name) {
		// Whole seconds, as the status stores it: a resync compares equal.
		since = metav1.NewTime(now).Rfc3339Copy().Time
	} else {
		return manage, time.Time{}
	}
	if now.Before(since.Add(HandoverWindow)) {
		return await, since
	}
	return recreate, since
}

func ofClusterExtension(crd *apiextensionsv1.CustomResourceDefinition) bool {
	return crd.Labels[apiaccessv1alpha1.OLMOwnerKindLabel] == apiaccessv1alpha1.OLMOwnerKindClusterExtension &&
		crd.Labels[apiaccessv1alpha1.OLMOwnerNameLabel] != ""
}

func madeBefore(policy *apiaccessv1alpha1.APIAccessPolicy, role string) bool {
	return slices.ContainsFunc(policy.Status.ManagedObjects, func(m apiaccessv1alpha1.ManagedObject) bool {
		return m.Kind == "ClusterRole" && m.Name == role
	})
}

// awaitedUntil is when the first of the awaited names is created again.
func awaitedUntil(awaiting []apiaccessv1alpha1.AwaitedRole) time.Time {
	var first time.Time
	for _, a := range awaiting {
		if until := a.Since.Add(HandoverWindow); first.IsZero() || until.Before(first) {
			first = until
		}
	}
	return first
}

// awaitingMessage is the RBACManaged message's part on awaited names.
func awaitingMessage(awaiting []apiaccessv1alpha1.AwaitedRole) string {
	names := make([]string, 0, len(awaiting))
	for _, a := range awaiting {
		names = append(names, a.Name)
	}
	return fmt.Sprintf("%d generated roles were deleted and their names are left to the ClusterExtension's own roles until %s, "+
		"then created again if none has come: %s", len(awaiting), awaitedUntil(awaiting).UTC().Format(time.RFC3339), named(names))
}

// newlyAwaited are the names awaited now that were not before.
func newlyAwaited(before, now []apiaccessv1alpha1.AwaitedRole) []string {
	var names []string
	for _, a := range now {
		if !slices.ContainsFunc(before, func(b apiaccessv1alpha1.AwaitedRole) bool { return b.Name == a.Name }) {
			names = append(names, a.Name)
		}
	}
	return names
}

func joined(names []string) string { return strings.Join(names, ", ") }
