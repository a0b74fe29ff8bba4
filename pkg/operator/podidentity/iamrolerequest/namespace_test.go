package iamrolerequest

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	operatorv1 "github.com/openshift/api/operator/v1"
	"github.com/openshift/library-go/pkg/operator/v1helpers"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	k8stypes "k8s.io/apimachinery/pkg/types"

	podidentityv1alpha1 "github.com/openshift/cluster-workload-access-operator/pkg/apis/podidentity/v1alpha1"
	"github.com/openshift/cluster-workload-access-operator/pkg/operator/podidentity/awscall"
)

// confirm is the admin's `oc annotate iamrolerequest <name> confirmed-namespace-uid=<uid>`.
func (f *fixture) confirm(name, uid string) {
	f.t.Helper()
	r := f.get(name)
	if r.Annotations == nil {
		r.Annotations = map[string]string{}
	}
	r.Annotations[podidentityv1alpha1.ConfirmedNamespaceUIDAnnotation] = uid
	if _, err := f.requests.PodIdentityV1alpha1().IAMRoleRequests().Update(context.Background(), r, metav1.UpdateOptions{}); err != nil {
		f.t.Fatal(err)
	}
}

// terminate marks a namespace deleted, as the API server does while its
// contents go.
func (f *fixture) terminate(name string) {
	f.t.Helper()
	ns, err := f.kube.CoreV1().Namespaces().Get(context.Background(), name, metav1.GetOptions{})
	if err != nil {
		f.t.Fatal(err)
	}
	now := metav1.Now()
	ns.DeletionTimestamp = &now
	if _, err := f.kube.CoreV1().Namespaces().Update(context.Background(), ns, metav1.UpdateOptions{}); err != nil {
		f.t.Fatal(err)
	}
}

// deleteNamespace deletes a namespace and its ServiceAccounts, as the
// namespace controller does.
func (f *fixture) deleteNamespace(name string) {
	f.t.Helper()
	ctx := context.Background()
	list, err := f.kube.CoreV1().ServiceAccounts(name).List(ctx, metav1.ListOptions{})
	if err != nil {
		f.t.Fatal(err)
	}
	for _, sa := range list.Items {
		if err := f.kube.CoreV1().ServiceAccounts(name).Delete(ctx, sa.Name, metav1.DeleteOptions{}); err != nil {
			f.t.Fatal(err)
		}
	}
	if err := f.kube.CoreV1().Namespaces().Delete(ctx, name, metav1.DeleteOptions{}); err != nil {
		f.t.Fatal(err)
	}
}

// lateNamespace is a namespace created a minute after the request, by
// whoever may create namespaces.
func (f *fixture) lateNamespace(request, name string) *corev1.Namespace {
	f.t.Helper()
	ns, err := f.namespaceCreatedAt(name, f.get(request).CreationTimestamp.Add(time.Minute))
	if err != nil {
		f.t.Fatal(err)
	}
	return ns
}

// wantNothingMade checks that the request has no role in IAM, that the sync
// wrote nothing to IAM, and that the ServiceAccount is absent or carries
// none of the operator's annotations.
func (f *fixture) wantNothingMade(request, namespace, sa string) {
	f.t.Helper()
	if _, err := f.getRole(request); awscall.ErrorCode(err) != "NoSuchEntity" {
		f.t.Errorf("IAM role %s: %v, want NoSuchEntity", f.roleName(request), err)
	}
	for _, w := range f.http.writes() {
		if w != "DeleteRolePolicy" && w != "DeleteRole" {
			f.t.Errorf("IAM write %s", w)
		}
	}
	got, err := f.kube.CoreV1().ServiceAccounts(namespace).Get(context.Background(), sa, metav1.GetOptions{})
	switch {
	case apierrors.IsNotFound(err):
	case err != nil:
		f.t.Fatal(err)
	default:
		if _, ok := got.Annotations[podidentityv1alpha1.RoleARNAnnotation]; ok || got.Annotations[podidentityv1alpha1.LinkedByAnnotation] != "" || len(got.OwnerReferences) > 0 {
			f.t.Errorf("ServiceAccount %s/%s was written: annotations %v, owners %v", namespace, sa, got.Annotations, got.OwnerReferences)
		}
	}
	for _, w := range f.kubeWrites() {
		if w != "update iamrolerequests/status" && w != "update iamrolerequests/" { // the status and the finalizer
			f.t.Errorf("API write %s", w)
		}
	}
}

// wantResyncWritesNothing syncs again and checks that nothing was written or
// recorded, and IAM not even read.
func (f *fixture) wantResyncWritesNothing(name string) {
	f.t.Helper()
	f.resetRecords()
	if err := f.sync(name); err != nil {
		f.t.Fatal(err)
	}
	if len(f.http.calls) > 0 || len(f.kubeWrites()) > 0 {
		f.t.Errorf("a resync with nothing changed called IAM %+v and wrote %v", f.http.calls, f.kubeWrites())
	}
	if evs := f.drainEvents(); len(evs) > 0 {
		f.t.Errorf("a resync with nothing changed recorded %v", evs)
	}
	f.wantRetry(waitingRecheck)
}

// A namespace created after the request, by anyone allowed to create
// namespaces (on OpenShift, any user): no role is made and no ServiceAccount
// created or annotated, with or without the account, until an admin
// confirms the namespace; then both are.
func TestNamespaceCreatedAfterTheRequestIsNotTrusted(t *testing.T) {
	for _, withAccount := range []bool{false, true} {
		name := map[bool]string{false: "without-the-serviceaccount", true: "with-the-serviceaccount"}[withAccount]
		t.Run(name, func(t *testing.T) {
			f := newFixture(t, true)
			f.requestOnly("payments", "payments", "app")
			if err := f.sync("payments"); err != nil {
				t.Fatal(err)
			}
			f.wantCondition("payments", podidentityv1alpha1.ConditionProvisioned, metav1.ConditionFalse, podidentityv1alpha1.ReasonNamespaceMissing)

			ns := f.lateNamespace("payments", "payments")
			if withAccount {
				f.serviceAccount("payments", "app", map[string]string{"theirs": "yes"})
			}
			f.resetRecords()
			if err := f.sync("payments"); err != nil {
				t.Fatal(err)
			}
			for _, conditionType := range []string{podidentityv1alpha1.ConditionProvisioned, podidentityv1alpha1.ConditionServiceAccountLinked} {
				f.wantCondition("payments", conditionType, metav1.ConditionFalse, podidentityv1alpha1.ReasonNamespaceNotConfirmed,
					"namespace payments (UID "+string(ns.UID)+") was created at", "after this request", "no IAM role is made",
					"ServiceAccount payments/app is neither created nor annotated", "Only if it is the namespace this role is meant for",
					"`oc annotate --overwrite iamrolerequest payments "+podidentityv1alpha1.ConfirmedNamespaceUIDAnnotation+"=$(oc get namespace payments -o jsonpath='{.metadata.uid}')`")
			}
			f.wantRetry(waitingRecheck)
			f.wantNothingMade("payments", "payments", "app")
			if len(f.http.calls) > 0 {
				t.Errorf("IAM calls for an unconfirmed namespace: %+v", f.http.calls)
			}
			if got := f.get("payments").Status.NamespaceUID; got != "" {
				t.Errorf("status.namespaceUID %q pinned to an unconfirmed namespace", got)
			}
			f.wantResyncWritesNothing("payments")

			// Confirmed by an admin: made and linked, and pinned.
			f.confirm("payments", string(ns.UID))
			f.resetRecords()
			if err := f.sync("payments"); err != nil {
				t.Fatal(err)
			}
			f.wantCondition("payments", podidentityv1alpha1.ConditionProvisioned, metav1.ConditionTrue, podidentityv1alpha1.ReasonProvisioned)
			f.wantCondition("payments", podidentityv1alpha1.ConditionServiceAccountLinked, metav1.ConditionTrue, podidentityv1alpha1.ReasonLinked)
			if got := f.get("payments").Status.NamespaceUID; got != string(ns.UID) {
				t.Errorf("status.namespaceUID %q, want the confirmed %s", got, ns.UID)
			}
			role, err := f.getRole("payments")
			if err != nil {
				t.Fatal(err)
			}
			sa, err := f.kube.CoreV1().ServiceAccounts("payments").Get(context.Background(), "app", metav1.GetOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if sa.Annotations[podidentityv1alpha1.RoleARNAnnotation] != aws.ToString(role.Role.Arn) {
				t.Errorf("ServiceAccount annotations %v after the confirmation", sa.Annotations)
			}
		})
	}
}

// A confirmation names a UID: one of another namespace (a stale one, or the
// namespace before it was replaced) confirms nothing.
func TestConfirmationOfAnotherUIDConfirmsNothing(t *testing.T) {
	f := newFixture(t, true)
	f.requestOnly("stale", "payments", "app")
	f.lateNamespace("stale", "payments")
	f.confirm("stale", "some-other-uid")
	f.resetRecords()
	if err := f.sync("stale"); err != nil {
		t.Fatal(err)
	}
	f.wantCondition("stale", podidentityv1alpha1.ConditionProvisioned, metav1.ConditionFalse, podidentityv1alpha1.ReasonNamespaceNotConfirmed)
	f.wantNothingMade("stale", "payments", "app")
}

// The namespace the role trusted is deleted: the role is deleted from IAM at
// once, while the namespace terminates, and the request keeps its finalizer.
// A namespace of the same name created again, with the same ServiceAccount
// name, gets nothing until an admin confirms it.
func TestDeletedNamespaceRevokesTheRole(t *testing.T) {
	f := newFixture(t, true)
	ctx := context.Background()
	f.serviceAccount("apps", "app", nil)
	created := f.request("app", "apps", "app")
	if err := f.sync("app"); err != nil {
		t.Fatal(err)
	}
	original, _ := f.kube.CoreV1().Namespaces().Get(ctx, "apps", metav1.GetOptions{})
	linked := f.get("app")
	if linked.Status.RoleARN == "" {
		t.Fatalf("no role after the first sync: %+v", linked.Status)
	}
	if linked.Status.NamespaceUID != string(original.UID) {
		t.Errorf("status.namespaceUID %q after the first sync, want %s", linked.Status.NamespaceUID, original.UID)
	}
	arn := linked.Status.RoleARN
	f.drainEvents()

	f.terminate("apps")
	f.resetRecords()
	if err := f.sync("app"); err != nil {
		t.Fatal(err)
	}
	if w := strings.Join(f.http.writes(), ","); w != "DeleteRolePolicy,DeleteRole" {
		t.Errorf("revocation wrote %s to IAM", w)
	}
	if _, err := f.getRole("app"); awscall.ErrorCode(err) != "NoSuchEntity" {
		t.Errorf("GetRole after the namespace started terminating: %v, want NoSuchEntity", err)
	}
	for _, conditionType := range []string{podidentityv1alpha1.ConditionProvisioned, podidentityv1alpha1.ConditionServiceAccountLinked} {
		f.wantCondition("app", conditionType, metav1.ConditionFalse, podidentityv1alpha1.ReasonNamespaceDeleted,
			"namespace apps (UID "+string(original.UID)+"), which the role trusted, is being deleted", "IAM role is deleted", "oc annotate --overwrite iamrolerequest app")
	}
	got := f.get("app")
	if got.Status.RoleARN != "" || got.Status.NamespaceUID != string(original.UID) || len(got.Finalizers) != 1 {
		t.Errorf("after the revocation: roleARN %q (want none), namespaceUID %q (want %s), finalizers %v", got.Status.RoleARN, got.Status.NamespaceUID, original.UID, got.Finalizers)
	}
	if evs := strings.Join(f.drainEvents(), "\n"); strings.Count(evs, "Warning "+podidentityv1alpha1.ReasonNamespaceDeleted+" Deleted IAM role "+arn) != 1 {
		t.Errorf("events: %s", evs)
	}
	f.wantResyncWritesNothing("app")

	// Gone, and created again by someone else with an account of the same
	// name: still nothing, and NamespaceReplaced says so once.
	f.deleteNamespace("apps")
	f.resetRecords()
	if err := f.sync("app"); err != nil {
		t.Fatal(err)
	}
	f.wantCondition("app", podidentityv1alpha1.ConditionProvisioned, metav1.ConditionFalse, podidentityv1alpha1.ReasonNamespaceDeleted, "was deleted")
	if len(f.http.calls) > 0 || len(f.drainEvents()) > 0 {
		t.Errorf("a revoked request called IAM %+v or recorded Events again", f.http.calls)
	}
	replacement := f.lateNamespace("app", "apps")
	f.serviceAccount("apps", "app", nil)
	f.resetRecords()
	if err := f.sync("app"); err != nil {
		t.Fatal(err)
	}
	for _, conditionType := range []string{podidentityv1alpha1.ConditionProvisioned, podidentityv1alpha1.ConditionServiceAccountLinked} {
		f.wantCondition("app", conditionType, metav1.ConditionFalse, podidentityv1alpha1.ReasonNamespaceReplaced,
			"namespace apps is another namespace now (UID "+string(replacement.UID), "not the one the role trusted (UID "+string(original.UID)+")",
			"ServiceAccount apps/app is neither created nor annotated", "oc annotate --overwrite iamrolerequest app", "or delete this request")
	}
	f.wantNothingMade("app", "apps", "app")
	if evs := strings.Join(f.drainEvents(), "\n"); strings.Count(evs, "Warning "+podidentityv1alpha1.ReasonNamespaceReplaced) != 1 {
		t.Errorf("events: %s", evs)
	}
	f.wantResyncWritesNothing("app")

	// The admin confirms the new namespace: pinned again, made and linked.
	f.confirm("app", string(replacement.UID))
	if err := f.sync("app"); err != nil {
		t.Fatal(err)
	}
	f.wantCondition("app", podidentityv1alpha1.ConditionProvisioned, metav1.ConditionTrue, podidentityv1alpha1.ReasonProvisioned)
	f.wantCondition("app", podidentityv1alpha1.ConditionServiceAccountLinked, metav1.ConditionTrue, podidentityv1alpha1.ReasonLinked)
	if got := f.get("app"); got.Status.NamespaceUID != string(replacement.UID) || got.Status.RoleARN != arn {
		t.Errorf("after the confirmation: namespaceUID %q, roleARN %q; want %s, %s", got.Status.NamespaceUID, got.Status.RoleARN, replacement.UID, arn)
	}
	sa, _ := f.kube.CoreV1().ServiceAccounts("apps").Get(ctx, "app", metav1.GetOptions{})
	if sa.Annotations[podidentityv1alpha1.RoleARNAnnotation] != arn || sa.Annotations[podidentityv1alpha1.LinkedByAnnotation] != string(created.UID) {
		t.Errorf("ServiceAccount annotations %v", sa.Annotations)
	}
}

// A role made before the operator pinned namespaces (an upgrade): the
// request has a role and no pin, and its namespace is younger than it, so
// the role is deleted until an admin confirms the namespace.
func TestUnpinnedRoleOfAYoungerNamespaceIsRevoked(t *testing.T) {
	f := newFixture(t, true)
	f.request("old", "apps", "old")
	if err := f.sync("old"); err != nil {
		t.Fatal(err)
	}
	// As the previous version left it: no pin; and the namespace was
	// replaced after the request.
	r := f.get("old")
	r.Status.NamespaceUID = ""
	if _, err := f.requests.PodIdentityV1alpha1().IAMRoleRequests().UpdateStatus(context.Background(), r, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	f.deleteNamespace("apps")
	f.lateNamespace("old", "apps")
	f.resetRecords()
	if err := f.sync("old"); err != nil {
		t.Fatal(err)
	}
	f.wantCondition("old", podidentityv1alpha1.ConditionProvisioned, metav1.ConditionFalse, podidentityv1alpha1.ReasonNamespaceNotConfirmed)
	if _, err := f.getRole("old"); awscall.ErrorCode(err) != "NoSuchEntity" {
		t.Errorf("the role made before the upgrade: %v, want NoSuchEntity", err)
	}
	if got := f.get("old").Status.RoleARN; got != "" {
		t.Errorf("roleARN %q after the revocation", got)
	}
	if evs := strings.Join(f.drainEvents(), "\n"); !strings.Contains(evs, "Warning "+podidentityv1alpha1.ReasonNamespaceNotConfirmed+" Deleted IAM role") {
		t.Errorf("events: %s", evs)
	}
	f.wantResyncWritesNothing("old")
}

// A revocation IAM refuses is retried with backoff, and says so.
func TestRefusedRevocationIsRetried(t *testing.T) {
	f := newFixture(t, true)
	f.request("kept", "apps", "kept")
	if err := f.sync("kept"); err != nil {
		t.Fatal(err)
	}
	f.useReadOnlyKeys()
	f.terminate("apps")
	if err := f.sync("kept"); err != nil {
		t.Fatal(err)
	}
	f.wantRetry(retryInitial)
	f.wantCondition("kept", podidentityv1alpha1.ConditionProvisioned, metav1.ConditionFalse, podidentityv1alpha1.ReasonNamespaceDeleted,
		"Deleting the role failed, and is retried", "iam:DeleteRolePolicy")
	if got := f.get("kept").Status.RoleARN; got == "" {
		t.Error("roleARN cleared while the role is still in IAM")
	}
	if _, err := f.getRole("kept"); err != nil {
		t.Errorf("the role: %v", err)
	}
}

func TestJudge(t *testing.T) {
	requested := time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)
	request := func(pin, confirmed string) *podidentityv1alpha1.IAMRoleRequest {
		r := &podidentityv1alpha1.IAMRoleRequest{ObjectMeta: metav1.ObjectMeta{Name: "r", CreationTimestamp: metav1.NewTime(requested)},
			Spec:   podidentityv1alpha1.IAMRoleRequestSpec{Storage: podidentityv1alpha1.Storage{ServiceAccount: podidentityv1alpha1.ServiceAccountStorage{Namespace: "ns", Name: "sa"}}},
			Status: podidentityv1alpha1.IAMRoleRequestStatus{NamespaceUID: pin}}
		if confirmed != "" {
			r.Annotations = map[string]string{podidentityv1alpha1.ConfirmedNamespaceUIDAnnotation: confirmed}
		}
		return r
	}
	namespace := func(uid string, created time.Duration, terminating bool) *corev1.Namespace {
		ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "ns", CreationTimestamp: metav1.NewTime(requested.Add(created))}}
		if uid != "" {
			ns.UID = k8stypes.UID("ns-" + uid)
		}
		if terminating {
			now := metav1.Now()
			ns.DeletionTimestamp = &now
		}
		return ns
	}
	for _, tc := range []struct {
		name    string
		request *podidentityv1alpha1.IAMRoleRequest
		ns      *corev1.Namespace
		pin     string
		reason  string
	}{
		{"older namespace is pinned", request("", ""), namespace("a", -time.Hour, false), "ns-a", ""},
		{"same second counts as older", request("", ""), namespace("a", 0, false), "ns-a", ""},
		{"younger namespace", request("", ""), namespace("a", time.Second, false), "", podidentityv1alpha1.ReasonNamespaceNotConfirmed},
		{"younger namespace confirmed", request("", "ns-a"), namespace("a", time.Hour, false), "ns-a", ""},
		{"younger namespace, another confirmed", request("", "ns-b"), namespace("a", time.Hour, false), "", podidentityv1alpha1.ReasonNamespaceNotConfirmed},
		{"absent", request("", ""), nil, "", podidentityv1alpha1.ReasonNamespaceMissing},
		{"terminating, never pinned", request("", ""), namespace("a", -time.Hour, true), "", podidentityv1alpha1.ReasonNamespaceMissing},
		{"terminating and confirmed", request("", "ns-a"), namespace("a", time.Hour, true), "", podidentityv1alpha1.ReasonNamespaceMissing},
		{"no UID is never trusted", request("", ""), namespace("", -time.Hour, false), "", podidentityv1alpha1.ReasonNamespaceNotConfirmed},
		{"pinned", request("ns-a", ""), namespace("a", time.Hour, false), "ns-a", ""},
		{"pinned, deleted", request("ns-a", ""), nil, "ns-a", podidentityv1alpha1.ReasonNamespaceDeleted},
		{"pinned, terminating", request("ns-a", "ns-a"), namespace("a", -time.Hour, true), "ns-a", podidentityv1alpha1.ReasonNamespaceDeleted},
		{"pinned, replaced by an older-looking one", request("ns-a", ""), namespace("b", -time.Hour, false), "ns-a", podidentityv1alpha1.ReasonNamespaceReplaced},
		{"pinned, replaced, stale confirmation", request("ns-a", "ns-a"), namespace("b", time.Hour, false), "ns-a", podidentityv1alpha1.ReasonNamespaceReplaced},
		{"pinned, replaced and confirmed", request("ns-a", "ns-b"), namespace("b", time.Hour, false), "ns-b", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v := judge(tc.request, tc.ns)
			if v.pin != tc.pin || v.reason != tc.reason {
				t.Errorf("pin %q reason %q, want %q %q (%s)", v.pin, v.reason, tc.pin, tc.reason, v.message)
			}
			if v.reason != "" && (!strings.Contains(v.message, "oc annotate --overwrite iamrolerequest r "+podidentityv1alpha1.ConfirmedNamespaceUIDAnnotation) || v.what == "") {
				t.Errorf("message %q gives no command, or no short form %q", v.message, v.what)
			}
		})
	}
}

// wantDegraded checks IAMRoleRequestDegraded on the operator.
func (f *fixture) wantDegraded(degraded bool, messageHas ...string) {
	f.t.Helper()
	_, status, _, err := f.c.operatorClient.GetOperatorState()
	if err != nil {
		f.t.Fatal(err)
	}
	c := v1helpers.FindOperatorCondition(status.Conditions, ControllerName+operatorv1.OperatorStatusTypeDegraded)
	want := operatorv1.ConditionFalse
	if degraded {
		want = operatorv1.ConditionTrue
	}
	if c == nil || c.Status != want {
		f.t.Fatalf("%sDegraded %+v, want %s", ControllerName, c, want)
	}
	for _, part := range messageHas {
		if !strings.Contains(c.Message, part) {
			f.t.Errorf("%sDegraded message %q does not say %q", ControllerName, c.Message, part)
		}
	}
}

// IAM refuses GetRole (an SCP's explicit deny, or a grant narrowed) when a
// namespace the role trusted is deleted: the refusal is not taken for "no
// role". The request keeps its roleARN across retries, with backoff, says
// that IAM refused to read the role and which grant is missing, and
// IAMRoleRequestDegraded is True; once IAM answers again the role is
// deleted and the condition clears. versitygw evaluates the explicit Deny.
func TestRefusedGetRoleNeverForgetsTheRole(t *testing.T) {
	f := newFixture(t, true)
	f.request("app", "apps", "app")
	if err := f.sync("app"); err != nil {
		t.Fatal(err)
	}
	arn := f.get("app").Status.RoleARN
	if arn == "" {
		t.Fatal("no role was provisioned")
	}
	f.wantDegraded(false)
	f.useKeys(f.user("denied", `{"Version":"2012-10-17","Statement":[`+
		`{"Effect":"Allow","Action":"iam:*","Resource":"*"},`+
		`{"Effect":"Deny","Action":"iam:GetRole","Resource":"*"}]}`))
	f.terminate("apps")
	for i, wait := range []time.Duration{retryInitial, 2 * retryInitial} {
		if err := f.sync("app"); err != nil {
			t.Fatal(err)
		}
		f.wantRetry(wait)
		if got := f.get("app").Status.RoleARN; got != arn {
			t.Fatalf("sync %d: roleARN %q, want %s kept while IAM refuses to read the role", i+1, got, arn)
		}
		if _, err := f.getRole("app"); err != nil {
			t.Fatalf("sync %d: the role: %v", i+1, err)
		}
		f.wantCondition("app", podidentityv1alpha1.ConditionProvisioned, metav1.ConditionFalse, podidentityv1alpha1.ReasonNamespaceDeleted,
			"Deleting the role failed, and is retried", "IAM refused to read role "+f.roleName("app"), "AccessDenied",
			"restore iam:GetRole on arn:<partition>:iam::<account>:role/workload-access/*")
		f.wantDegraded(true, "IAMRoleRequest app", arn, "should be deleted")
	}
	f.useKeys(f.s.AccessKeyID, f.s.SecretAccessKey)
	if err := f.sync("app"); err != nil {
		t.Fatal(err)
	}
	if _, err := f.getRole("app"); awscall.ErrorCode(err) != "NoSuchEntity" {
		t.Errorf("with IAM answering again, the role: %v, want NoSuchEntity", err)
	}
	if got := f.get("app").Status.RoleARN; got != "" {
		t.Errorf("roleARN %q once the role is deleted", got)
	}
	f.wantDegraded(false)
}
