package grants

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	podidentityv1alpha1 "github.com/openshift/cluster-workload-access-operator/pkg/apis/podidentity/v1alpha1"
)

func roleRequest(t *testing.T, namespace, name string, actions ...string) []byte {
	t.Helper()
	raw, err := json.Marshal(podidentityv1alpha1.IAMRoleRequest{
		ObjectMeta: metav1.ObjectMeta{Name: "reader"},
		Spec: podidentityv1alpha1.IAMRoleRequestSpec{
			Storage: podidentityv1alpha1.Storage{ServiceAccount: podidentityv1alpha1.ServiceAccountStorage{Namespace: namespace, Name: name}},
			ProviderSpec: podidentityv1alpha1.AWSProviderSpec{StatementEntries: []podidentityv1alpha1.StatementEntry{
				{Effect: "Allow", Action: actions, Resource: "*"}}},
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	return raw
}

func checkRoleRequest(auth Authorizer, operation string, object, old []byte) Decision {
	c := &Checker{Instances: noInstances, Authorizer: auth}
	return c.Check(context.Background(), Request{Group: podidentityv1alpha1.GroupName, Resource: IAMRoleRequests,
		Operation: operation, Object: object, OldObject: old, Requester: alice})
}

// An IAMRoleRequest has the operator annotate, or create, the
// ServiceAccount it names: its requester must be able to patch and create
// ServiceAccounts there, both asked always; the refusal names what is
// missing and how to get it.
func TestRoleRequestsNeedTheServiceAccountWrites(t *testing.T) {
	patch, create := res("patch", "", "serviceaccounts"), res("create", "", "serviceaccounts")
	const advice = `: an IAMRoleRequest has the operator write that ServiceAccount (annotate it, or create it when absent), so its requester must be able to; ` +
		`ask an admin of payments for edit there (oc adm policy add-role-to-user edit alice -n payments), or have someone who may write its ServiceAccounts create the request`
	for _, tc := range []struct {
		name    string
		auth    *fakeAuthorizer
		allowed bool
		message string
	}{
		{"both in the namespace", newFake().hold("payments", patch, create), true, ""},
		{"both cluster-wide", newFake().hold("", patch, create), true, ""},
		{"neither", newFake(), false,
			`IAMRoleRequest "reader" links ServiceAccount payments/app: user "alice" may not patch or create serviceaccounts in namespace "payments"` + advice},
		{"patch only", newFake().hold("payments", patch), false,
			`IAMRoleRequest "reader" links ServiceAccount payments/app: user "alice" may not create serviceaccounts in namespace "payments"` + advice},
		{"create only", newFake().hold("payments", create), false,
			`IAMRoleRequest "reader" links ServiceAccount payments/app: user "alice" may not patch serviceaccounts in namespace "payments"` + advice},
		{"both, elsewhere", newFake().hold("team-a", patch, create), false,
			`IAMRoleRequest "reader" links ServiceAccount payments/app: user "alice" may not patch or create serviceaccounts in namespace "payments"` + advice},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := checkRoleRequest(tc.auth, "CREATE", roleRequest(t, "payments", "app", "s3:GetObject"), nil)
			if d.Allowed != tc.allowed || d.Message != tc.message {
				t.Errorf("decision %+v\nwant allowed=%v message\n%s", d, tc.allowed, tc.message)
			}
			if !tc.allowed && d.Reason != Escalation {
				t.Errorf("reason %s, want %s", d.Reason, Escalation)
			}
			asked := tc.auth.questions()
			slices.Sort(asked)
			if want := []string{`payments|verb "create" on "serviceaccounts" (group "")`, `payments|verb "patch" on "serviceaccounts" (group "")`}; !slices.Equal(asked, want) || d.Reviews != 2 {
				t.Errorf("asked %q (%d reviews), want %q", asked, d.Reviews, want)
			}
		})
	}
}

// On UPDATE only a change of spec.storage is judged: the operator adds and
// removes its finalizer, and a requester may change the statements,
// without anyone being asked for ServiceAccount writes. A changed storage
// (CEL forbids it; the check does not rely on that) is judged in full.
func TestRoleRequestUpdatesAreJudgedOnlyWhenTheServiceAccountChanges(t *testing.T) {
	old := roleRequest(t, "payments", "app", "s3:GetObject")
	auth := newFake()
	if d := checkRoleRequest(auth, "UPDATE", roleRequest(t, "payments", "app", "s3:PutObject"), old); !d.Allowed || len(auth.questions()) != 0 {
		t.Errorf("a change of statements: %+v, asked %q", d, auth.questions())
	}
	var withFinalizer map[string]any
	_ = json.Unmarshal(old, &withFinalizer)
	withFinalizer["metadata"].(map[string]any)["finalizers"] = []string{"podidentity.openshift.io/iam-role"}
	updated, _ := json.Marshal(withFinalizer)
	if d := checkRoleRequest(auth, "UPDATE", updated, old); !d.Allowed || len(auth.questions()) != 0 {
		t.Errorf("the operator's finalizer: %+v, asked %q", d, auth.questions())
	}
	if d := checkRoleRequest(auth, "UPDATE", roleRequest(t, "openshift-monitoring", "prometheus-k8s", "s3:GetObject"), old); d.Allowed ||
		!strings.Contains(d.Message, `may not patch or create serviceaccounts in namespace "openshift-monitoring"`) {
		t.Errorf("a changed ServiceAccount: %+v", d)
	}
	// Deleting writes nothing the requester chose: the operator only
	// removes what it added.
	if d := checkRoleRequest(newFake(), "DELETE", nil, old); !d.Allowed {
		t.Errorf("a delete: %+v", d)
	}
}

// What cannot be read or checked is refused, never admitted: an object
// that does not decode, one without a ServiceAccount, and a review that
// fails (retry).
func TestRoleRequestsFailClosed(t *testing.T) {
	failing := newFake()
	failing.err = errors.New("the server is currently unable to handle the request")
	for name, tc := range map[string]struct {
		auth   *fakeAuthorizer
		object []byte
		reason Reason
		part   string
	}{
		"not JSON":          {newFake(), []byte(`{`), Invalid, "decoding the iamrolerequests"},
		"no object":         {newFake(), nil, Invalid, "the request carries no iamrolerequests"},
		"no ServiceAccount": {newFake(), []byte(`{"metadata":{"name":"x"},"spec":{}}`), Invalid, "spec.storage.serviceAccount needs a namespace and a name"},
		"review fails": {failing, roleRequest(t, "payments", "app", "s3:GetObject"), CheckFailed,
			`could not check whether user "alice" may patch and create serviceaccounts in namespace "payments", which IAMRoleRequest "reader" has the operator write: the server is currently unable to handle the request; it is refused until the check succeeds; retry`},
	} {
		d := checkRoleRequest(tc.auth, "CREATE", tc.object, nil)
		if d.Allowed || d.Reason != tc.reason || !strings.Contains(d.Message, tc.part) {
			t.Errorf("%s: %+v, want %s containing %q", name, d, tc.reason, tc.part)
		}
	}
}
