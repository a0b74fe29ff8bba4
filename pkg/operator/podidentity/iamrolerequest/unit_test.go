package iamrolerequest

import (
	"errors"
	"net"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/aws/smithy-go"
	operatorv1 "github.com/openshift/api/operator/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	clienttesting "k8s.io/client-go/testing"

	operatorv1alpha1 "github.com/openshift/cluster-workload-access-operator/pkg/apis/operator/v1alpha1"
	podidentityv1alpha1 "github.com/openshift/cluster-workload-access-operator/pkg/apis/podidentity/v1alpha1"
	"github.com/openshift/cluster-workload-access-operator/pkg/operator/frame/informerkit"
	"github.com/openshift/cluster-workload-access-operator/pkg/operator/podidentity/awscall"
)

func TestDescribe(t *testing.T) {
	creds := awscall.Credentials{AccessKeyID: "AKIDEXAMPLE", SecretAccessKey: "s3cr3t"}
	for _, tc := range []struct {
		name   string
		err    error
		call   string
		reason string
		retry  bool
		says   []string
	}{
		{"throttled", &smithy.GenericAPIError{Code: "Throttling", Message: "Rate exceeded"}, "iam:GetRole",
			podidentityv1alpha1.ReasonThrottled, true, []string{"iam:GetRole on role r", "Throttling: Rate exceeded", "backoff"}},
		{"denied", &smithy.GenericAPIError{Code: "AccessDenied", Message: "User AKIDEXAMPLE is not authorized s3cr3t"}, "iam:PutRolePolicy",
			podidentityv1alpha1.ReasonAccessDenied, true, []string{"AccessDenied", "workload-access-iam", "must allow iam:PutRolePolicy", "[redacted]"}},
		{"denied create", &smithy.GenericAPIError{Code: "AccessDenied"}, "iam:CreateRole",
			podidentityv1alpha1.ReasonAccessDenied, true, []string{"spec.podIdentity.roles.permissionsBoundary"}},
		{"denied write", &smithy.GenericAPIError{Code: "AccessDenied"}, "iam:DeleteRole",
			podidentityv1alpha1.ReasonAccessDenied, true, []string{"whose permissions boundary is under", "aws iam put-role-permissions-boundary --role-name r "}},
		{"bad key", &smithy.GenericAPIError{Code: "InvalidClientTokenId"}, "sts:GetCallerIdentity",
			podidentityv1alpha1.ReasonAccessDenied, true, []string{"InvalidClientTokenId"}},
		{"malformed policy", &smithy.GenericAPIError{Code: "MalformedPolicyDocument", Message: "bad action"}, "iam:PutRolePolicy",
			podidentityv1alpha1.ReasonInvalidPolicy, false, []string{"statementEntries"}},
		{"other", &smithy.GenericAPIError{Code: "ServiceFailure", Message: "oops"}, "iam:DeleteRole",
			podidentityv1alpha1.ReasonIAMError, true, []string{"ServiceFailure: oops"}},
		{"unreachable", &smithy.OperationError{ServiceID: "IAM", OperationName: "GetRole", Err: &url.Error{Op: "Post", URL: "https://iam.amazonaws.com/?secret", Err: &net.OpError{Op: "dial", Err: errors.New("connection refused")}}},
			"iam:GetRole", podidentityv1alpha1.ReasonIAMError, true, []string{"no answer", "connection refused"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := describe(tc.call, "role r", tc.err, creds)
			if f.Reason != tc.reason || f.Retry != tc.retry {
				t.Errorf("reason %s retry %v, want %s %v (%s)", f.Reason, f.Retry, tc.reason, tc.retry, f.Message)
			}
			for _, part := range tc.says {
				if !strings.Contains(f.Message, part) {
					t.Errorf("message %q does not say %q", f.Message, part)
				}
			}
			if strings.Contains(f.Message, "s3cr3t") || strings.Contains(f.Message, "AKIDEXAMPLE") || strings.Contains(f.Message, "?secret") {
				t.Errorf("message holds a credential or URL: %s", f.Message)
			}
		})
	}
}

func TestEventFilters(t *testing.T) {
	r := &podidentityv1alpha1.IAMRoleRequest{ObjectMeta: metav1.ObjectMeta{Name: "r", UID: "u", Generation: 1, ResourceVersion: "1"}}
	statusOnly := r.DeepCopy()
	statusOnly.ResourceVersion = "2"
	statusOnly.Status.RoleARN = "arn"
	if requestChanged(r, statusOnly) || requestChanged(r, r) {
		t.Error("a status write or a resync wakes the controller")
	}
	spec := r.DeepCopy()
	spec.Generation = 2
	deleted := r.DeepCopy()
	deleted.DeletionTimestamp = &metav1.Time{}
	finalized := r.DeepCopy()
	finalized.Finalizers = []string{Finalizer}
	confirmed := r.DeepCopy()
	confirmed.Annotations = map[string]string{podidentityv1alpha1.ConfirmedNamespaceUIDAnnotation: "ns-uid"}
	labelled := r.DeepCopy()
	labelled.Labels = map[string]string{"team": "a"}
	if requestChanged(r, labelled) {
		t.Error("a label wakes the controller")
	}
	for _, n := range []*podidentityv1alpha1.IAMRoleRequest{spec, deleted, finalized, confirmed} {
		if !requestChanged(r, n) {
			t.Errorf("%+v does not wake the controller", n.ObjectMeta)
		}
	}
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "apps", UID: "a", ResourceVersion: "1"}}
	relabelled := ns.DeepCopy()
	relabelled.Labels = map[string]string{"x": "y"}
	if namespaceChanged(ns, relabelled) || namespaceChanged(ns, ns.DeepCopy()) {
		t.Error("a namespace's labels or resync wake its requests")
	}
	terminating := ns.DeepCopy()
	terminating.DeletionTimestamp = &metav1.Time{}
	replaced := ns.DeepCopy()
	replaced.UID = "b"
	if !namespaceChanged(ns, terminating) || !namespaceChanged(ns, replaced) {
		t.Error("a terminating or replaced namespace does not wake its requests")
	}
	if slim, _ := informerkit.SlimNamespace(relabelled); len(slim.(*corev1.Namespace).Labels) > 0 {
		t.Errorf("the namespace cache keeps labels: %+v", slim)
	}
	wa := &operatorv1alpha1.WorkloadAccess{ObjectMeta: metav1.ObjectMeta{Generation: 1}}
	conditions := wa.DeepCopy()
	conditions.Status.Conditions = []operatorv1.OperatorCondition{{Type: "X"}}
	if podIdentityChanged(wa, conditions) {
		t.Error("another controller's condition wakes the controller")
	}
	published := wa.DeepCopy()
	published.Status.PodIdentity.IssuerURL = "https://x"
	if !podIdentityChanged(wa, published) {
		t.Error("a published issuer does not wake the controller")
	}
	secret := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: CredentialsSecret, UID: "s", ResourceVersion: "7"}}
	if credentialsChanged(secret, secret.DeepCopy()) {
		t.Error("an informer resync of the credentials Secret wakes every request")
	}
	rotated := secret.DeepCopy()
	rotated.ResourceVersion = "8"
	if !credentialsChanged(secret, rotated) {
		t.Error("rotated credentials do not wake the controller")
	}
}

// A namespace that does not exist: NamespaceMissing, looked at again.
func TestNamespaceMissing(t *testing.T) {
	f := newFixture(t, true)
	f.kube.PrependReactor("create", "serviceaccounts", func(action clienttesting.Action) (bool, runtime.Object, error) {
		return true, nil, apierrors.NewNotFound(schema.GroupResource{Resource: "namespaces"}, "gone")
	})
	f.request("lost", "gone", "lost")
	if err := f.sync("lost"); err != nil {
		t.Fatal(err)
	}
	f.wantCondition("lost", podidentityv1alpha1.ConditionProvisioned, metav1.ConditionTrue, podidentityv1alpha1.ReasonProvisioned)
	f.wantCondition("lost", podidentityv1alpha1.ConditionServiceAccountLinked, metav1.ConditionFalse, podidentityv1alpha1.ReasonNamespaceMissing, "namespace gone does not exist")
	f.wantRetry(waitingRecheck)
}

// A request for a ServiceAccount in a namespace that does not exist makes
// no role: whoever creates the namespace (any user may, on OpenShift)
// controls the account the role trusts. Once the namespace exists, still
// nothing is made until an admin confirms it, since it is younger than the
// request; then the role and the account are.
func TestNoRoleBeforeTheNamespaceExists(t *testing.T) {
	f := newFixture(t, true)
	request := f.requestOnly("early", "later", "reader")
	f.resetRecords()
	if err := f.sync("early"); err != nil {
		t.Fatal(err)
	}
	f.wantCondition("early", podidentityv1alpha1.ConditionProvisioned, metav1.ConditionFalse, podidentityv1alpha1.ReasonNamespaceMissing,
		"namespace later does not exist", "no IAM role is made", "oc annotate --overwrite iamrolerequest early "+podidentityv1alpha1.ConfirmedNamespaceUIDAnnotation)
	f.wantCondition("early", podidentityv1alpha1.ConditionServiceAccountLinked, metav1.ConditionFalse, podidentityv1alpha1.ReasonNamespaceMissing)
	f.wantRetry(waitingRecheck)
	if len(f.http.calls) > 0 {
		t.Errorf("IAM calls before the namespace exists: %+v", f.http.calls)
	}
	if _, err := f.getRole("early"); awscall.ErrorCode(err) != "NoSuchEntity" {
		t.Errorf("a role was made before the namespace exists: %v", err)
	}

	ns, err := f.namespaceCreatedAt("later", request.CreationTimestamp.Add(time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	if err := f.sync("early"); err != nil {
		t.Fatal(err)
	}
	f.wantCondition("early", podidentityv1alpha1.ConditionProvisioned, metav1.ConditionFalse, podidentityv1alpha1.ReasonNamespaceNotConfirmed)
	if _, err := f.getRole("early"); awscall.ErrorCode(err) != "NoSuchEntity" {
		t.Errorf("a role was made for a namespace younger than the request: %v", err)
	}
	f.confirm("early", string(ns.UID))
	if err := f.sync("early"); err != nil {
		t.Fatal(err)
	}
	f.wantCondition("early", podidentityv1alpha1.ConditionProvisioned, metav1.ConditionTrue, podidentityv1alpha1.ReasonProvisioned)
	f.wantCondition("early", podidentityv1alpha1.ConditionServiceAccountLinked, metav1.ConditionTrue, podidentityv1alpha1.ReasonLinked)
}

// throttler answers every call of one action as IAM does when it throttles.
type throttler struct {
	next   http.RoundTripper
	action string
}

func (t *throttler) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := t.next.RoundTrip(req)
	if err != nil {
		return nil, err
	}
	if r, ok := t.next.(*recorder); ok {
		r.mu.Lock()
		last := r.calls[len(r.calls)-1].action
		r.mu.Unlock()
		if last == t.action {
			resp.Body.Close()
			body := `<ErrorResponse><Error><Type>Sender</Type><Code>Throttling</Code><Message>Rate exceeded</Message></Error><RequestId>1</RequestId></ErrorResponse>`
			return &http.Response{StatusCode: http.StatusBadRequest, Header: http.Header{"Content-Type": {"text/xml"}},
				Body: newBody(body), Request: req}, nil
		}
	}
	return resp, nil
}

// Throttling is reported as such and retried.
func TestThrottled(t *testing.T) {
	f := newFixture(t, true)
	f.request("slow", "apps", "slow")
	f.controller().transport = &throttler{next: f.http, action: "CreateRole"}
	if err := f.sync("slow"); err != nil {
		t.Fatal(err)
	}
	f.wantRetry(retryInitial)
	f.wantCondition("slow", podidentityv1alpha1.ConditionProvisioned, metav1.ConditionFalse, podidentityv1alpha1.ReasonThrottled, "iam:CreateRole", "Throttling")
	var attempts int
	for _, c := range f.http.calls {
		if c.action == "CreateRole" {
			attempts++
		}
	}
	if attempts != 3 {
		t.Errorf("CreateRole sent %d times, want the SDK's 3 attempts", attempts)
	}
}

func newBody(s string) *readCloser { return &readCloser{strings.NewReader(s)} }

type readCloser struct{ *strings.Reader }

func (readCloser) Close() error { return nil }

// A throttled read of a role linked before leaves ServiceAccountLinked as
// it was: the account still carries the role, and the condition does not
// flap (nor its transition time move) on every passing failure.
func TestPassingFailureKeepsTheLink(t *testing.T) {
	f := newFixture(t, true)
	f.serviceAccount("apps", "steady", nil)
	f.request("steady", "apps", "steady")
	if err := f.sync("steady"); err != nil {
		t.Fatal(err)
	}
	before := meta.FindStatusCondition(f.get("steady").Status.Conditions, podidentityv1alpha1.ConditionServiceAccountLinked)
	if before == nil || before.Status != metav1.ConditionTrue {
		t.Fatalf("not linked first: %+v", before)
	}
	f.controller().transport = &throttler{next: f.http, action: "GetRole"}
	f.controller().iam = nil // built again, on the throttling transport
	if err := f.sync("steady"); err != nil {
		t.Fatal(err)
	}
	f.wantCondition("steady", podidentityv1alpha1.ConditionProvisioned, metav1.ConditionFalse, podidentityv1alpha1.ReasonThrottled, "iam:GetRole")
	after := meta.FindStatusCondition(f.get("steady").Status.Conditions, podidentityv1alpha1.ConditionServiceAccountLinked)
	if after == nil || after.Status != metav1.ConditionTrue || after.Reason != podidentityv1alpha1.ReasonLinked || !after.LastTransitionTime.Equal(&before.LastTransitionTime) {
		t.Errorf("ServiceAccountLinked after a throttled GetRole: %+v, want as before %+v", after, before)
	}
}

// A ServiceAccount create the API server refuses is retried on the
// request's own backoff (5 s, doubling), not the queue's 5 ms: each pass
// reads the role from IAM again.
func TestRefusedServiceAccountCreateBacksOff(t *testing.T) {
	f := newFixture(t, true)
	f.kube.PrependReactor("create", "serviceaccounts", func(action clienttesting.Action) (bool, runtime.Object, error) {
		return true, nil, apierrors.NewForbidden(schema.GroupResource{Resource: "serviceaccounts"}, "refused", nil)
	})
	f.request("refused", "apps", "refused")
	if err := f.sync("refused"); err != nil {
		t.Fatalf("sync returned %v: the queue's fast backoff would retry it", err)
	}
	f.wantRetry(retryInitial)
	f.wantCondition("refused", podidentityv1alpha1.ConditionServiceAccountLinked, metav1.ConditionFalse, podidentityv1alpha1.ReasonWaitingForRole, "creating ServiceAccount apps/refused failed")
}
