package clusterbundles

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/openshift/library-go/pkg/controller/factory"
	authorizationv1 "k8s.io/api/authorization/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	clienttesting "k8s.io/client-go/testing"

	subscriptionv1alpha1 "github.com/openshift/cluster-workload-access-operator/pkg/apis/subscription/v1alpha1"
	"github.com/openshift/cluster-workload-access-operator/pkg/operator/subscription/bundlerefs"
)

// A source the driver may not get makes the bundle Invalid, names the
// driver's service account, and creates nothing; granting access makes it
// valid at the next sync.
func TestSourceTheDriverCannotReadMakesTheBundleInvalid(t *testing.T) {
	b := clusterBundle("rhel", []string{"edit"}, []subscriptionv1alpha1.ClusterReference{ref("certs", "a")}, ref("repos", "satellite"))
	f := newFixture(t, b, secret("certs", "a", "a.pem"), configMap("repos", "satellite", "redhat.repo"))
	f.driverDenied["secrets certs/a"] = true
	f.driverDenied["configmaps repos/satellite"] = true
	f.sync("rhel")

	if got, want := f.writes(), []string{"update clusterbundles/status"}; !reflect.DeepEqual(got, want) {
		t.Errorf("writes %v, want %v", got, want)
	}
	cond := invalid(t, f.bundle("rhel"))
	want := "the Shared Resource CSI driver's service account openshift-builds/csi-driver-shared-resource may not get secret certs/a, configmap repos/satellite, " +
		"so pods could not mount them: grant it get, list and watch on them with a Role and a RoleBinding in each of the namespaces certs, repos"
	if cond.Status != metav1.ConditionTrue || cond.Reason != subscriptionv1alpha1.ReasonDriverCannotRead || cond.Message != want {
		t.Errorf("Invalid %+v\nwant message %s", cond, want)
	}
	if got := f.shareNames(); len(got) != 0 {
		t.Errorf("shares %v for a bundle the driver cannot read", got)
	}
	wantReviews := []authorizationv1.SubjectAccessReviewSpec{{
		User:               "system:serviceaccount:openshift-builds:csi-driver-shared-resource",
		Groups:             []string{"system:serviceaccounts", "system:serviceaccounts:openshift-builds", "system:authenticated"},
		ResourceAttributes: &authorizationv1.ResourceAttributes{Namespace: "certs", Verb: "get", Resource: "secrets", Name: "a"},
	}, {
		User:               "system:serviceaccount:openshift-builds:csi-driver-shared-resource",
		Groups:             []string{"system:serviceaccounts", "system:serviceaccounts:openshift-builds", "system:authenticated"},
		ResourceAttributes: &authorizationv1.ResourceAttributes{Namespace: "repos", Verb: "get", Resource: "configmaps", Name: "satellite"},
	}}
	if !reflect.DeepEqual(f.reviews, wantReviews) {
		t.Errorf("reviews %+v, want %+v", f.reviews, wantReviews)
	}

	// Still denied: one review per source, no write, no new event.
	f.sync("rhel")
	if w := f.writes(); len(w) != 0 {
		t.Errorf("a resync of the unreadable bundle wrote %v", w)
	}
	if len(f.reviews) != 2 {
		t.Errorf("a resync asked %d reviews, want one per source", len(f.reviews))
	}
	if events := f.recorder.Events(); len(events) != 1 {
		t.Errorf("events %v", events)
	}

	// Only the Secret still unreadable: the message narrows to it.
	delete(f.driverDenied, "configmaps repos/satellite")
	f.sync("rhel")
	if cond := invalid(t, f.bundle("rhel")); !strings.Contains(cond.Message, "may not get secret certs/a, so pods") || !strings.HasSuffix(cond.Message, "in namespace certs") {
		t.Errorf("Invalid %+v", cond)
	}

	delete(f.driverDenied, "secrets certs/a")
	f.sync("rhel")
	if cond := invalid(t, f.bundle("rhel")); cond.Status != metav1.ConditionFalse {
		t.Errorf("Invalid %+v after the driver was granted access", cond)
	}
	if got := f.shareNames(); len(got) != 2 {
		t.Errorf("shares %v", got)
	}
}

// Removal of access never waits for validity: a Secret dropped from the
// spec loses its share even when a newly added one is unreadable.
func TestDroppedReferenceIsRevokedWhileTheDriverCannotRead(t *testing.T) {
	b := clusterBundle("rhel", nil, []subscriptionv1alpha1.ClusterReference{ref("certs", "a"), ref("certs", "b")})
	f := newFixture(t, b, secret("certs", "a", "a.pem"), secret("certs", "b", "b.pem"), secret("other", "c", "c.pem"))
	f.sync("rhel")

	updated := f.bundle("rhel")
	updated.Spec.Entitlements = []subscriptionv1alpha1.ClusterReference{ref("certs", "a"), ref("other", "c")}
	updated.Generation = 2
	if _, err := f.subs.SubscriptionV1alpha1().ClusterBundles().Update(context.Background(), updated, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	f.driverDenied["secrets other/c"] = true
	f.sync("rhel")

	if got, want := f.writes(), []string{"update clusterroles", "delete sharedsecrets", "update clusterbundles/status"}; !reflect.DeepEqual(got, want) {
		t.Errorf("writes %v, want %v", got, want)
	}
	if cond := invalid(t, f.bundle("rhel")); cond.Reason != subscriptionv1alpha1.ReasonDriverCannotRead {
		t.Errorf("Invalid %+v", cond)
	}
	if got, want := f.shareNames(), []string{"SharedSecret/rhel-entitlement-certs-a"}; !reflect.DeepEqual(got, want) {
		t.Errorf("shares %v, want %v", got, want)
	}
}

// A failed review is not a denial: the sync fails and is retried, and the
// bundle's status is left as it was.
func TestFailedAccessReviewIsRetriedNotInvalid(t *testing.T) {
	b := clusterBundle("rhel", nil, []subscriptionv1alpha1.ClusterReference{ref("certs", "a")})
	f := newFixture(t, b, secret("certs", "a", "a.pem"))
	f.kube.PrependReactor("create", "subjectaccessreviews", func(clienttesting.Action) (bool, runtime.Object, error) {
		return true, nil, errors.New("the server is currently unable to handle the request")
	})
	f.refresh()
	f.subs.ClearActions()
	err := f.loop.Sync(context.Background(), keyedContext{factory.NewSyncContext("test", f.recorder), "rhel"})
	if err == nil || !strings.Contains(err.Error(), "may read secret certs/a") {
		t.Errorf("sync error %v", err)
	}
	if w := f.writes(); len(w) != 0 {
		t.Errorf("a failed review wrote %v", w)
	}
}

func TestDriverServiceAccountValidation(t *testing.T) {
	for _, tc := range []struct {
		sa DriverServiceAccount
		ok bool
	}{
		{DefaultDriverServiceAccount, true},
		{DriverServiceAccount{Namespace: "openshift-cluster-csi-drivers", Name: "csi-driver-shared-resource-plugin"}, true},
		{DriverServiceAccount{Namespace: "", Name: "x"}, false},
		{DriverServiceAccount{Namespace: "a/b", Name: "x"}, false},
		{DriverServiceAccount{Namespace: "ns", Name: "Bad Name"}, false},
	} {
		if err := tc.sa.Validate(); (err == nil) != tc.ok {
			t.Errorf("%q: %v", tc.sa, err)
		}
	}
	if got := (Inputs{}).driver(); got != DefaultDriverServiceAccount {
		t.Errorf("no driver in Inputs gives %v", got)
	}
}

func TestDriverCannotReadMessageNamesOneNamespace(t *testing.T) {
	got := DriverCannotReadMessage(DriverServiceAccount{Namespace: "d", Name: "sa"}, []bundlerefs.Ref{
		{Kind: bundlerefs.Secret, Namespace: "openshift-config", Name: "etc-pki-entitlement"},
		{Kind: bundlerefs.ConfigMap, Namespace: "openshift-config", Name: "repos"},
	})
	want := "the Shared Resource CSI driver's service account d/sa may not get secret openshift-config/etc-pki-entitlement, configmap openshift-config/repos, " +
		"so pods could not mount them: grant it get, list and watch on them with a Role and a RoleBinding in namespace openshift-config"
	if got != want {
		t.Errorf("message\n%s\nwant\n%s", got, want)
	}
}
