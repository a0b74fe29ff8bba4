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
	const advice = `: an IAMRoleRequest has the operator write that ServiceAccount (annotate it, or create it when absent), so whoever may create the request must be able to; ` +
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

// with edits a request as the API server would send it.
func with(t *testing.T, raw []byte, edit func(*podidentityv1alpha1.IAMRoleRequest)) []byte {
	t.Helper()
	var r podidentityv1alpha1.IAMRoleRequest
	if err := json.Unmarshal(raw, &r); err != nil {
		t.Fatal(err)
	}
	edit(&r)
	out, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func pinned(r *podidentityv1alpha1.IAMRoleRequest) { r.Status.NamespaceUID = "uid-payments" }
func withARN(r *podidentityv1alpha1.IAMRoleRequest) {
	r.Status.RoleARN = "arn:aws:iam::123456789012:role/workload-access/infra/reader"
}
func finalized(r *podidentityv1alpha1.IAMRoleRequest) {
	r.Finalizers = append(r.Finalizers, podidentityv1alpha1.IAMRoleFinalizer)
}
func confirmed(uid string) func(*podidentityv1alpha1.IAMRoleRequest) {
	return func(r *podidentityv1alpha1.IAMRoleRequest) {
		r.Annotations = map[string]string{podidentityv1alpha1.ConfirmedNamespaceUIDAnnotation: uid}
	}
}
func both(edits ...func(*podidentityv1alpha1.IAMRoleRequest)) func(*podidentityv1alpha1.IAMRoleRequest) {
	return func(r *podidentityv1alpha1.IAMRoleRequest) {
		for _, e := range edits {
			e(r)
		}
	}
}

// Writes that move no trust are not judged: a change of the statements or
// labels, the operator adding its finalizer, the removal of a confirmation,
// the finalizer removed or the request deleted before any role could
// exist (no pin, no ARN). Nobody is asked anything.
func TestRoleRequestWritesThatMoveNoTrustAreNotJudged(t *testing.T) {
	base := roleRequest(t, "payments", "app", "s3:GetObject")
	for _, tc := range []struct {
		name, operation string
		old, object     []byte
	}{
		{"a change of statements", "UPDATE", with(t, base, both(pinned, finalized)), with(t, roleRequest(t, "payments", "app", "s3:PutObject"), both(pinned, finalized))},
		{"a label", "UPDATE", with(t, base, both(pinned, finalized)), with(t, base, both(pinned, finalized, func(r *podidentityv1alpha1.IAMRoleRequest) {
			r.Labels = map[string]string{"team": "a"}
		}))},
		{"the operator's finalizer added", "UPDATE", base, with(t, base, finalized)},
		{"a confirmation removed", "UPDATE", with(t, base, both(pinned, finalized, confirmed("uid-new"))), with(t, base, both(pinned, finalized))},
		{"a confirmation kept", "UPDATE", with(t, base, both(pinned, finalized, confirmed("uid-new"))), with(t, base, both(pinned, finalized, confirmed("uid-new"), func(r *podidentityv1alpha1.IAMRoleRequest) {
			r.Labels = map[string]string{"team": "a"}
		}))},
		{"the finalizer removed before any pin", "UPDATE", with(t, base, finalized), base},
		{"a delete before any pin", "DELETE", with(t, base, finalized), nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			auth := newFake()
			if d := checkRoleRequest(auth, tc.operation, tc.object, tc.old); !d.Allowed || len(auth.questions()) != 0 {
				t.Errorf("%+v, asked %q", d, auth.questions())
			}
		})
	}
}

// Every write that decides whom the role trusts is judged as a create: a
// confirmation (set or changed), the finalizer removed while a role may
// exist (pinned, or with an ARN), a delete then, with or without the
// finalizer, and a changed ServiceAccount (CEL forbids it; the check does
// not rely on that). Whoever may patch and create ServiceAccounts in the
// namespace may; the refusal names the write and what is missing. The
// operator, which holds both cluster-wide, removes its finalizer after it
// deleted the role.
func TestRoleRequestWritesThatMoveTrustAreJudgedAsACreate(t *testing.T) {
	base := roleRequest(t, "payments", "app", "s3:GetObject")
	patch, create := res("patch", "", "serviceaccounts"), res("create", "", "serviceaccounts")
	refused := func(doing, why string) string {
		return `IAMRoleRequest "reader" links ServiceAccount payments/app; ` + why + `: user "alice" may not patch or create serviceaccounts in namespace "payments": ` +
			`an IAMRoleRequest has the operator write that ServiceAccount (annotate it, or create it when absent), so whoever may ` + doing + ` must be able to; ` +
			`ask an admin of payments for edit there (oc adm policy add-role-to-user edit alice -n payments), or have someone who may write its ServiceAccounts ` + doing
	}
	const arn = "arn:aws:iam::123456789012:role/workload-access/infra/reader"
	for _, tc := range []struct {
		name, operation string
		old, object     []byte
		message         string
	}{
		{"a confirmation", "UPDATE", with(t, base, finalized), with(t, base, both(finalized, confirmed("uid-squatted"))),
			refused("confirm a namespace", "setting podidentity.openshift.io/confirmed-namespace-uid=uid-squatted makes its IAM role trust that ServiceAccount in the namespace of that UID")},
		{"a changed confirmation", "UPDATE", with(t, base, both(pinned, finalized, confirmed("uid-payments"))), with(t, base, both(pinned, finalized, confirmed("uid-squatted"))),
			refused("confirm a namespace", "setting podidentity.openshift.io/confirmed-namespace-uid=uid-squatted makes its IAM role trust that ServiceAccount in the namespace of that UID")},
		{"the finalizer removed, pinned", "UPDATE", with(t, base, both(pinned, finalized)), with(t, base, pinned),
			refused("remove the finalizer", "removing the finalizer podidentity.openshift.io/iam-role while its IAM role may exist (status.namespaceUID uid-payments) "+
				"would leave that role trusting that ServiceAccount with no request to revoke it when the namespace goes")},
		{"the finalizer removed, with an ARN", "UPDATE", with(t, base, both(withARN, finalized)), with(t, base, withARN),
			refused("remove the finalizer", "removing the finalizer podidentity.openshift.io/iam-role while its IAM role may exist (status.roleARN "+arn+") "+
				"would leave that role trusting that ServiceAccount with no request to revoke it when the namespace goes")},
		{"the finalizer removed while deleting", "UPDATE", with(t, base, both(pinned, withARN, finalized, func(r *podidentityv1alpha1.IAMRoleRequest) {
			r.DeletionTimestamp = &metav1.Time{}
		})), with(t, base, both(pinned, withARN, func(r *podidentityv1alpha1.IAMRoleRequest) { r.DeletionTimestamp = &metav1.Time{} })),
			refused("remove the finalizer", "removing the finalizer podidentity.openshift.io/iam-role while its IAM role may exist (status.roleARN "+arn+") "+
				"would leave that role trusting that ServiceAccount with no request to revoke it when the namespace goes")},
		{"a delete with the finalizer", "DELETE", with(t, base, both(pinned, finalized)), nil,
			refused("delete the request", "deleting it while its IAM role may exist (status.namespaceUID uid-payments) ends that role's trust of that ServiceAccount "+
				"(the operator deletes the role), a decision for who may write it")},
		{"a delete without the finalizer", "DELETE", with(t, base, withARN), nil,
			refused("delete the request", "deleting it without its finalizer podidentity.openshift.io/iam-role while its IAM role may exist (status.roleARN "+arn+") "+
				"would leave that role trusting that ServiceAccount with no request to revoke it when the namespace goes")},
		{"a changed ServiceAccount", "UPDATE", with(t, base, pinned), with(t, roleRequest(t, "payments", "other", "s3:GetObject"), pinned),
			`IAMRoleRequest "reader" links ServiceAccount payments/other: user "alice" may not patch or create serviceaccounts in namespace "payments": ` +
				`an IAMRoleRequest has the operator write that ServiceAccount (annotate it, or create it when absent), so whoever may change the request's ServiceAccount must be able to; ` +
				`ask an admin of payments for edit there (oc adm policy add-role-to-user edit alice -n payments), or have someone who may write its ServiceAccounts change the request's ServiceAccount`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			auth := newFake()
			d := checkRoleRequest(auth, tc.operation, tc.object, tc.old)
			if d.Allowed || d.Reason != Escalation || d.Message != tc.message {
				t.Errorf("without ServiceAccount writes: %+v\nwant %s\n%s", d, Escalation, tc.message)
			}
			asked := auth.questions()
			slices.Sort(asked)
			if want := []string{`payments|verb "create" on "serviceaccounts" (group "")`, `payments|verb "patch" on "serviceaccounts" (group "")`}; !slices.Equal(asked, want) || d.Reviews != 2 {
				t.Errorf("asked %q (%d reviews), want %q", asked, d.Reviews, want)
			}
			if d := checkRoleRequest(newFake().hold("payments", patch, create), tc.operation, tc.object, tc.old); !d.Allowed {
				t.Errorf("with edit in payments: %+v", d)
			}
			// The operator's own ServiceAccount holds both cluster-wide.
			operator := newFake().hold("", patch, create)
			c := &Checker{Authorizer: operator}
			if d := c.Check(context.Background(), Request{Group: podidentityv1alpha1.GroupName, Resource: IAMRoleRequests, Operation: tc.operation, Object: tc.object, OldObject: tc.old,
				Requester: Requester{Name: "system:serviceaccount:openshift-workload-access-operator:cluster-workload-access-operator"}}); !d.Allowed {
				t.Errorf("as the operator: %+v", d)
			}
		})
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
			`could not check whether user "alice" may patch and create serviceaccounts in namespace "payments", which IAMRoleRequest "reader" has the operator write, to create the request: the server is currently unable to handle the request; it is refused until the check succeeds; retry`},
	} {
		d := checkRoleRequest(tc.auth, "CREATE", tc.object, nil)
		if d.Allowed || d.Reason != tc.reason || !strings.Contains(d.Message, tc.part) {
			t.Errorf("%s: %+v, want %s containing %q", name, d, tc.reason, tc.part)
		}
	}
	// A delete whose object cannot be read is refused too.
	if d := checkRoleRequest(newFake(), "DELETE", nil, []byte(`{`)); d.Allowed || d.Reason != Invalid {
		t.Errorf("a delete of an unreadable object: %+v", d)
	}
}

// A request for a set of namespaces has the operator write the
// ServiceAccount in each: a list asks in each listed namespace, a selector
// cluster-wide, since any namespace may be labelled into it later.
func TestSetRequestsNeedTheServiceAccountWritesWhereverTheSetReaches(t *testing.T) {
	patch, create := res("patch", "", "serviceaccounts"), res("create", "", "serviceaccounts")
	set := func(s podidentityv1alpha1.ServiceAccountSetStorage) []byte {
		return with(t, roleRequest(t, "x", "app", "s3:GetObject"), func(r *podidentityv1alpha1.IAMRoleRequest) {
			r.Spec.Storage.ServiceAccount = podidentityv1alpha1.ServiceAccountStorage{}
			r.Spec.Storage.ServiceAccounts = &s
		})
	}
	list := set(podidentityv1alpha1.ServiceAccountSetStorage{Name: "app", Namespaces: []string{"team-a-1", "team-a-2"}})
	selector := set(podidentityv1alpha1.ServiceAccountSetStorage{Name: "app", NamespaceSelector: &podidentityv1alpha1.NamespaceTrustSelector{
		MatchLabels: map[string]string{podidentityv1alpha1.NamespaceTrustLabelPrefix + "team": "a"}}})
	for _, tc := range []struct {
		name    string
		object  []byte
		auth    *fakeAuthorizer
		allowed bool
		message string
		asked   []string
	}{
		{"list, both in each", list, newFake().hold("team-a-1", patch, create).hold("team-a-2", patch, create), true, "",
			[]string{`team-a-1|verb "create" on "serviceaccounts" (group "")`, `team-a-1|verb "patch" on "serviceaccounts" (group "")`,
				`team-a-2|verb "create" on "serviceaccounts" (group "")`, `team-a-2|verb "patch" on "serviceaccounts" (group "")`}},
		{"list, one namespace short", list, newFake().hold("team-a-1", patch, create), false, "may not patch serviceaccounts in namespace team-a-2, create serviceaccounts in namespace team-a-2", nil},
		{"selector, cluster-wide", selector, newFake().hold("", patch, create), true, "",
			[]string{`|verb "create" on "serviceaccounts" (group "")`, `|verb "patch" on "serviceaccounts" (group "")`}},
		{"selector, only in namespaces", selector, newFake().hold("team-a-1", patch, create), false, "may not patch serviceaccounts cluster-wide, create serviceaccounts cluster-wide", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := checkRoleRequest(tc.auth, "CREATE", tc.object, nil)
			if d.Allowed != tc.allowed || !strings.Contains(d.Message, tc.message) {
				t.Errorf("decision %+v\nwant allowed=%v, a message with %q", d, tc.allowed, tc.message)
			}
			if !tc.allowed && d.Reason != Escalation {
				t.Errorf("reason %s, want %s", d.Reason, Escalation)
			}
			if tc.asked != nil {
				asked := tc.auth.questions()
				slices.Sort(asked)
				if !slices.Equal(asked, tc.asked) {
					t.Errorf("asked %q, want %q", asked, tc.asked)
				}
			}
		})
	}
}
