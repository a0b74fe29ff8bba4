package iamrolerequest

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	k8stypes "k8s.io/apimachinery/pkg/types"
	clienttesting "k8s.io/client-go/testing"

	podidentityv1alpha1 "github.com/openshift/cluster-workload-access-operator/pkg/apis/podidentity/v1alpha1"
	"github.com/openshift/cluster-workload-access-operator/pkg/operator/podidentity/awscall"
)

// A namespace replaced while a sync runs cannot be timed on a real API
// server: these tests replace it from the fake clientset's reactors, at
// the moment the sync reaches a given call, through the tracker (the
// clientset is locked while a reactor runs). IAM is versitygw.

var (
	namespacesResource      = corev1.SchemeGroupVersion.WithResource("namespaces")
	serviceAccountsResource = corev1.SchemeGroupVersion.WithResource("serviceaccounts")
)

// replaceNamespace deletes the namespace and its ServiceAccount name, and
// creates both again, as a namespace-only user would, with new UIDs.
func (f *fixture) replaceNamespace(namespace, sa string) *corev1.Namespace {
	tracker := f.kube.Tracker()
	_ = tracker.Delete(serviceAccountsResource, namespace, sa)
	if err := tracker.Delete(namespacesResource, "", namespace); err != nil {
		f.t.Fatal(err)
	}
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: namespace, UID: k8stypes.UID("ns-squatted-" + randomSuffix()), CreationTimestamp: metav1.Now()}}
	if err := tracker.Create(namespacesResource, ns, ""); err != nil {
		f.t.Fatal(err)
	}
	if err := tracker.Create(serviceAccountsResource, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{
		Namespace: namespace, Name: sa, UID: k8stypes.UID("sa-squatted-" + randomSuffix())}}, namespace); err != nil {
		f.t.Fatal(err)
	}
	return ns
}

// wantUnlinked checks that the ServiceAccount does not name the role, that
// ServiceAccountLinked says the namespace was replaced, and that the next
// sync revokes the role.
func (f *fixture) wantUnlinked(request, namespace, sa string, syncErr error) {
	f.t.Helper()
	if syncErr == nil || !strings.Contains(syncErr.Error(), "is another namespace now") {
		f.t.Errorf("sync: %v, want an error saying the namespace was replaced (retried at once)", syncErr)
	}
	got, err := f.kube.CoreV1().ServiceAccounts(namespace).Get(context.Background(), sa, metav1.GetOptions{})
	if err != nil {
		f.t.Fatal(err)
	}
	if arn, ok := got.Annotations[podidentityv1alpha1.RoleARNAnnotation]; ok || got.Annotations[podidentityv1alpha1.LinkedByAnnotation] != "" {
		f.t.Errorf("the ServiceAccount of the replaced namespace names the role: %s (annotations %v)", arn, got.Annotations)
	}
	f.wantCondition(request, podidentityv1alpha1.ConditionServiceAccountLinked, metav1.ConditionFalse, podidentityv1alpha1.ReasonNamespaceReplaced, "is another namespace now")
	if f.get(request).Status.RoleARN == "" {
		f.t.Error("the role's ARN was not recorded: its revocation would not know it")
	}
	if err := f.sync(request); err != nil {
		f.t.Fatal(err)
	}
	f.wantCondition(request, podidentityv1alpha1.ConditionProvisioned, metav1.ConditionFalse, podidentityv1alpha1.ReasonNamespaceReplaced)
	if _, err := f.getRole(request); awscall.ErrorCode(err) != "NoSuchEntity" {
		f.t.Errorf("the role after the next sync: %v, want NoSuchEntity", err)
	}
}

// The namespace is replaced, with a ServiceAccount of the same name, after
// the sync judged it and read the account, while it calls IAM: the
// squatter's account is not annotated.
func TestNamespaceReplacedDuringTheIAMCallsGetsNoLink(t *testing.T) {
	f := newFixture(t, true)
	f.request("app", "apps", "app")
	if _, err := f.kube.CoreV1().ServiceAccounts("apps").Create(context.Background(), &corev1.ServiceAccount{
		ObjectMeta: metav1.ObjectMeta{Namespace: "apps", Name: "app", UID: "sa-original"}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	replaced := false
	f.kube.PrependReactor("get", "serviceaccounts", func(a clienttesting.Action) (bool, runtime.Object, error) {
		if replaced {
			return false, nil, nil
		}
		replaced = true
		read, err := f.kube.Tracker().Get(serviceAccountsResource, "apps", "app")
		f.replaceNamespace("apps", "app")
		return true, read, err
	})
	err := f.sync("app")
	if !replaced {
		t.Fatal("the ServiceAccount was never read")
	}
	f.wantUnlinked("app", "apps", "app", err)
}

// The namespace is replaced just before the operator creates the
// ServiceAccount, which lands in the new one: the link is taken back from
// it, with the created account's UID and resourceVersion as precondition.
func TestNamespaceReplacedAsTheServiceAccountIsCreatedGetsNoLink(t *testing.T) {
	f := newFixture(t, true)
	f.request("app", "apps", "app")
	replaced := false
	f.kube.PrependReactor("create", "serviceaccounts", func(a clienttesting.Action) (bool, runtime.Object, error) {
		if !replaced {
			replaced = true
			tracker := f.kube.Tracker()
			if err := tracker.Delete(namespacesResource, "", "apps"); err != nil {
				t.Fatal(err)
			}
			if err := tracker.Create(namespacesResource, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "apps", UID: "ns-squatted"}}, ""); err != nil {
				t.Fatal(err)
			}
			sa := a.(clienttesting.CreateAction).GetObject().(*corev1.ServiceAccount).DeepCopy()
			sa.UID, sa.ResourceVersion = "sa-created", "42" // the fake sets none
			if err := tracker.Create(serviceAccountsResource, sa, "apps"); err != nil {
				t.Fatal(err)
			}
			stored, err := tracker.Get(serviceAccountsResource, "apps", sa.Name)
			return true, stored, err
		}
		return false, nil, nil
	})
	err := f.sync("app")
	if !replaced {
		t.Fatal("the ServiceAccount was never created")
	}
	var undo map[string]map[string]any
	for _, a := range f.kube.Actions() {
		if p, ok := a.(clienttesting.PatchAction); ok && a.GetResource().Resource == "serviceaccounts" {
			_ = json.Unmarshal(p.GetPatch(), &undo)
		}
	}
	if undo["metadata"]["uid"] != "sa-created" || undo["metadata"]["resourceVersion"] != "42" {
		t.Errorf("the link was taken back with %v, want the created account's UID and resourceVersion as precondition", undo)
	}
	f.wantUnlinked("app", "apps", "app", err)
}

// The annotation is a patch carrying the UID and resourceVersion of the
// ServiceAccount the operator read: the API server refuses it for an
// account replaced since, whose resourceVersion differs.
func TestServiceAccountIsPatchedWithAPrecondition(t *testing.T) {
	f := newFixture(t, true)
	f.request("app", "apps", "app")
	read, err := f.kube.CoreV1().ServiceAccounts("apps").Create(context.Background(), &corev1.ServiceAccount{
		ObjectMeta: metav1.ObjectMeta{Namespace: "apps", Name: "app", UID: "sa-read", ResourceVersion: "41"}}, metav1.CreateOptions{}) // the fake sets none
	if err != nil {
		t.Fatal(err)
	}
	if err := f.sync("app"); err != nil {
		t.Fatal(err)
	}
	var patches []map[string]map[string]any
	for _, a := range f.kube.Actions() {
		if p, ok := a.(clienttesting.PatchAction); ok && a.GetResource().Resource == "serviceaccounts" {
			var patch map[string]map[string]any
			if err := json.Unmarshal(p.GetPatch(), &patch); err != nil {
				t.Fatal(err)
			}
			patches = append(patches, patch)
		}
	}
	if len(patches) != 1 || patches[0]["metadata"]["uid"] != string(read.UID) || patches[0]["metadata"]["resourceVersion"] != read.ResourceVersion || read.ResourceVersion == "" {
		t.Errorf("patches %v, want one with uid %s and resourceVersion %q", patches, read.UID, read.ResourceVersion)
	}
	f.wantCondition("app", podidentityv1alpha1.ConditionServiceAccountLinked, metav1.ConditionTrue, podidentityv1alpha1.ReasonLinked)
}
