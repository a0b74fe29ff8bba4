package scopes

import (
	"context"
	"errors"
	"strings"
	"testing"
	"unicode/utf8"

	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	clienttesting "k8s.io/client-go/testing"

	scopesv1alpha1 "github.com/openshift/cluster-workload-access-operator/pkg/apis/scopes/v1alpha1"
)

// refuse makes the fake API server refuse verb on resource with a long
// error, as an admission webhook's refusal can be.
func refuse(f *fixture, verb, resource string) (undo func()) {
	refusing := true
	f.kube.PrependReactor(verb, resource, func(action clienttesting.Action) (bool, runtime.Object, error) {
		if !refusing {
			return false, nil, nil
		}
		return true, nil, apierrors.NewForbidden(schema.GroupResource{Group: "rbac.authorization.k8s.io", Resource: resource}, "",
			errors.New("admission webhook refused it: "+strings.Repeat("because ", 400)))
	})
	return func() { refusing = false }
}

func templateStatus(t *testing.T, f *fixture, name string) scopesv1alpha1.ScopeTemplateStatus {
	t.Helper()
	got, err := f.scopes.ScopesV1alpha1().ScopeTemplates().Get(context.Background(), name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return got.Status
}

func instanceStatus(t *testing.T, f *fixture, name string) scopesv1alpha1.ScopeInstanceStatus {
	t.Helper()
	got, err := f.scopes.ScopesV1alpha1().ScopeInstances().Get(context.Background(), name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return got.Status
}

// boundedQuote checks that message quotes the refusal, cut and saying so.
func boundedQuote(t *testing.T, what, message string) {
	t.Helper()
	if !strings.Contains(message, "admission webhook refused it") || !strings.Contains(message, "(cut: ") || len(message) > 2*maxErrorText {
		t.Errorf("%s message (%d bytes) does not quote the refusal, bounded: %q", what, len(message), message)
	}
}

// A ClusterRole the API server refuses is reported on the template's
// RolesReady condition with the API server's error, bounded, and quoted in
// the ClusterRolesNotReady message of the instances naming it; the sync
// fails (retried with backoff); a retry meeting the same refusal writes no
// status; once the write succeeds, both conditions clear.
func TestARefusedRoleWriteIsReportedOnTemplateAndInstance(t *testing.T) {
	f := newFixture(t, newTemplate("t", "reader-"), newInstance("i", "t", nil, nil))
	roleName := ClusterRoleName("t", "reader-")
	allow := refuse(f, "create", "clusterroles")
	if err := f.trySyncTemplate("t"); err == nil || !strings.Contains(err.Error(), roleName) {
		t.Fatalf("sync error %v, want one naming %s", err, roleName)
	}
	ready := condition(t, templateStatus(t, f, "t").Conditions, scopesv1alpha1.ConditionRolesReady)
	if ready.Status != metav1.ConditionFalse || ready.Reason != scopesv1alpha1.ReasonWriteFailed || ready.ObservedGeneration != 1 || !strings.Contains(ready.Message, roleName) {
		t.Errorf("RolesReady %+v", ready)
	}
	boundedQuote(t, "RolesReady", ready.Message)

	if err := f.syncInstance("i"); err != nil {
		t.Fatal(err)
	}
	bound := condition(t, instanceStatus(t, f, "i").Conditions, scopesv1alpha1.ConditionBound)
	if bound.Reason != scopesv1alpha1.ReasonClusterRolesNotReady || !strings.Contains(bound.Message, scopesv1alpha1.ReasonWriteFailed) {
		t.Errorf("Bound %+v", bound)
	}
	boundedQuote(t, "ClusterRolesNotReady", bound.Message)

	f.writes()
	if err := f.trySyncTemplate("t"); err == nil {
		t.Fatal("a retry meeting the same refusal succeeded")
	}
	if err := f.syncInstance("i"); err != nil {
		t.Fatal(err)
	}
	if w := f.writes(); len(w) != 1 || w[0] != "create clusterroles/" {
		t.Errorf("a retry meeting the same refusal wrote %v, want only the refused create", w)
	}

	allow()
	f.syncTemplate("t")
	if ready := condition(t, templateStatus(t, f, "t").Conditions, scopesv1alpha1.ConditionRolesReady); ready.Status != metav1.ConditionTrue || ready.Reason != scopesv1alpha1.ReasonRolesWritten {
		t.Errorf("RolesReady after the write %+v", ready)
	}
	if err := f.syncInstance("i"); err != nil {
		t.Fatal(err)
	}
	if bound := condition(t, instanceStatus(t, f, "i").Conditions, scopesv1alpha1.ConditionBound); bound.Reason != scopesv1alpha1.ReasonAllBound {
		t.Errorf("Bound after the write %+v", bound)
	}
}

// RolesReady is False without an instance, and names a foreign role.
func TestRolesReadyWithoutInstancesAndInConflict(t *testing.T) {
	f := newFixture(t, newTemplate("t", "reader-"))
	f.syncTemplate("t")
	if ready := condition(t, templateStatus(t, f, "t").Conditions, scopesv1alpha1.ConditionRolesReady); ready.Status != metav1.ConditionFalse || ready.Reason != scopesv1alpha1.ReasonNoInstances {
		t.Errorf("RolesReady without instances %+v", ready)
	}
	f.writes()
	f.syncTemplate("t")
	if w := f.writes(); len(w) != 0 {
		t.Errorf("a settled unused template wrote %v", w)
	}
	_, _ = f.kube.RbacV1().ClusterRoles().Create(context.Background(), &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: ClusterRoleName("t", "reader-")}}, metav1.CreateOptions{})
	_, _ = f.scopes.ScopesV1alpha1().ScopeInstances().Create(context.Background(), newInstance("i", "t", nil, nil), metav1.CreateOptions{})
	f.syncTemplate("t")
	ready := condition(t, templateStatus(t, f, "t").Conditions, scopesv1alpha1.ConditionRolesReady)
	if ready.Status != metav1.ConditionFalse || ready.Reason != scopesv1alpha1.ReasonConflict || !strings.Contains(ready.Message, ClusterRoleName("t", "reader-")) {
		t.Errorf("RolesReady in conflict %+v", ready)
	}
	if err := f.syncInstance("i"); err != nil {
		t.Fatal(err)
	}
	if bound := condition(t, instanceStatus(t, f, "i").Conditions, scopesv1alpha1.ConditionBound); !strings.Contains(bound.Message, "RolesReady condition says Conflict") {
		t.Errorf("Bound %+v", bound)
	}
}

// A binding the API server refuses: Bound is False with BindingFailed
// quoting the error, bounded; the sync fails (retried with backoff); a
// retry meeting the same refusal writes no status; once the write
// succeeds, the instance is bound.
func TestARefusedBindingWriteIsReported(t *testing.T) {
	f := newFixture(t, newTemplate("t", "reader-"), newInstance("i", "t", []string{"a"}, nil), newNamespace("a", nil))
	f.syncTemplate("t")
	allow := refuse(f, "create", "rolebindings")
	if err := f.syncInstance("i"); err == nil {
		t.Fatal("a refused binding write did not fail the sync")
	}
	bound := condition(t, instanceStatus(t, f, "i").Conditions, scopesv1alpha1.ConditionBound)
	if bound.Status != metav1.ConditionFalse || bound.Reason != scopesv1alpha1.ReasonBindingFailed || !strings.Contains(bound.Message, "a/"+BindingName(ClusterRoleName("t", "reader-"), "i")) {
		t.Errorf("Bound %+v", bound)
	}
	boundedQuote(t, "BindingFailed", bound.Message)
	f.writes()
	if err := f.syncInstance("i"); err == nil {
		t.Fatal("a retry meeting the same refusal succeeded")
	}
	if w := f.writes(); len(w) != 1 || w[0] != "create rolebindings/" {
		t.Errorf("a retry meeting the same refusal wrote %v, want only the refused create", w)
	}
	allow()
	if err := f.syncInstance("i"); err != nil {
		t.Fatal(err)
	}
	if bound := condition(t, instanceStatus(t, f, "i").Conditions, scopesv1alpha1.ConditionBound); bound.Reason != scopesv1alpha1.ReasonAllBound {
		t.Errorf("Bound after the write %+v", bound)
	}
}

func TestErrorTextIsCutOnACharacterBoundary(t *testing.T) {
	short := errors.New("forbidden")
	if got := errorText(short); got != "forbidden" {
		t.Errorf("short error %q", got)
	}
	long := errors.New(strings.Repeat("é", maxErrorText)) // two bytes each
	got := errorText(long)
	if !strings.HasSuffix(got, "... (cut: 1024 of 2048 bytes)") || !strings.HasPrefix(got, "éé") {
		t.Errorf("cut %q", got[len(got)-40:])
	}
	odd := errors.New("a" + strings.Repeat("é", maxErrorText))
	if got := errorText(odd); !strings.Contains(got, "(cut: 1023 of 2049 bytes)") {
		t.Errorf("cut mid-character: %q", got[len(got)-40:])
	}
}

// errorText quotes any API server's text: a prefix of it, cut on a
// character boundary, never longer than the bound and its note.
func FuzzErrorText(f *testing.F) {
	f.Add("forbidden")
	f.Add(strings.Repeat("é", maxErrorText))
	f.Add("a" + strings.Repeat("€", maxErrorText))
	f.Fuzz(func(t *testing.T, text string) {
		got := errorText(errors.New(text))
		if len(text) <= maxErrorText {
			if got != text {
				t.Fatalf("a short text changed: %q", got)
			}
			return
		}
		// The text may hold the note's words itself: the note is the last one.
		at := strings.LastIndex(got, "... (cut: ")
		if at < 0 {
			t.Fatalf("no note on a cut of %d bytes: %q", len(text), got)
		}
		cut, note := got[:at], got[at:]
		if !strings.HasPrefix(text, cut) || len(cut) > maxErrorText || len(cut) < maxErrorText-utf8.UTFMax || len(note) > 40 {
			t.Fatalf("cut %d bytes of %d: %q", len(cut), len(text), note)
		}
		if utf8.ValidString(text) && !utf8.ValidString(cut) {
			t.Fatalf("cut inside a character: %q", cut[len(cut)-4:])
		}
	})
}
