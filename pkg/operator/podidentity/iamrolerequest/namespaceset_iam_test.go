package iamrolerequest

// A set's sync against versitygw's IAM: what leaves the set leaves the role
// and its ServiceAccount, even when IAM or the API server refuses part of
// the work.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	clienttesting "k8s.io/client-go/testing"

	podidentityv1alpha1 "github.com/openshift/cluster-workload-access-operator/pkg/apis/podidentity/v1alpha1"
	"github.com/openshift/cluster-workload-access-operator/pkg/operator/podidentity/iamrole"
)

// labelledNamespace creates a namespace with labels, created an hour ago.
func (f *fixture) labelledNamespace(name string, labels map[string]string) {
	f.t.Helper()
	if _, err := f.createNamespace(name, time.Now().Add(-time.Hour), labels); err != nil {
		f.t.Fatal(err)
	}
}

// syncedPair creates the request team-<team> for ServiceAccount sa in the
// namespaces labelled team=<team>, <team>1 and <team>2, syncs it once, and
// returns the label.
func (f *fixture) syncedPair(team, sa string) map[string]string {
	f.t.Helper()
	labels := map[string]string{podidentityv1alpha1.NamespaceTrustLabelPrefix + "team": team}
	f.labelledNamespace(team+"1", labels)
	f.labelledNamespace(team+"2", labels)
	f.setRequest("team-"+team, sa, labels)
	if err := f.sync("team-" + team); err != nil {
		f.t.Fatal(err)
	}
	return labels
}

// unlabel takes every label off a namespace: it leaves the sets it was in.
func (f *fixture) unlabel(name string) {
	f.t.Helper()
	ns, err := f.kube.CoreV1().Namespaces().Get(context.Background(), name, metav1.GetOptions{})
	if err != nil {
		f.t.Fatal(err)
	}
	ns.Labels = nil
	if _, err := f.kube.CoreV1().Namespaces().Update(context.Background(), ns, metav1.UpdateOptions{}); err != nil {
		f.t.Fatal(err)
	}
}

// setRequest creates a request for ServiceAccount sa in every namespace
// with labels.
func (f *fixture) setRequest(name, sa string, labels map[string]string) {
	f.t.Helper()
	r := &podidentityv1alpha1.IAMRoleRequest{
		ObjectMeta: metav1.ObjectMeta{Name: name, UID: types.UID("uid-" + name + "-" + randomSuffix()), Generation: 1,
			CreationTimestamp: metav1.NewTime(time.Now().Truncate(time.Second))},
		Spec: podidentityv1alpha1.IAMRoleRequestSpec{
			Storage: podidentityv1alpha1.Storage{ServiceAccounts: &podidentityv1alpha1.ServiceAccountSetStorage{Name: sa,
				NamespaceSelector: &podidentityv1alpha1.NamespaceTrustSelector{MatchLabels: labels}}},
			ProviderSpec: podidentityv1alpha1.AWSProviderSpec{StatementEntries: []podidentityv1alpha1.StatementEntry{
				{Effect: "Allow", Action: []string{"s3:GetObject"}, Resource: "arn:aws:s3:::data/*"}}},
		},
	}
	if _, err := f.requests.PodIdentityV1alpha1().IAMRoleRequests().Create(context.Background(), r, metav1.CreateOptions{}); err != nil {
		f.t.Fatal(err)
	}
}

// trustedNamespaces are the namespaces whose ServiceAccount sa the role's
// trust policy, as IAM holds it, names, sorted.
func (f *fixture) trustedNamespaces(request, sa string) []string {
	f.t.Helper()
	got, err := f.getRole(request)
	if err != nil {
		f.t.Fatal(err)
	}
	var doc struct {
		Statement []struct {
			Condition map[string]map[string][]string
		}
	}
	if err := json.Unmarshal([]byte(decoded(f.t, *got.Role.AssumeRolePolicyDocument)), &doc); err != nil {
		f.t.Fatal(err)
	}
	var out []string
	for _, s := range doc.Statement {
		for _, sub := range s.Condition["StringEquals"][f.hostPath+":sub"] {
			out = append(out, strings.TrimSuffix(strings.TrimPrefix(sub, "system:serviceaccount:"), ":"+sa))
		}
	}
	slices.Sort(out)
	return out
}

func (f *fixture) roleARNOf(namespace, sa string) string {
	f.t.Helper()
	got, err := f.kube.CoreV1().ServiceAccounts(namespace).Get(context.Background(), sa, metav1.GetOptions{})
	if err != nil {
		f.t.Fatal(err)
	}
	return got.Annotations[podidentityv1alpha1.RoleARNAnnotation]
}

// The admin set the trust policy size limit to 4,096 believing IAM's quota
// raised, and it is not (versitygw holds IAM's default, 2,048). A namespace
// leaves the set in the same sync as newcomers that take the policy past
// IAM's quota: IAM refuses the update, and the namespace that left must not
// stay trusted until someone fixes the limit.
func TestANamespaceThatLeavesIsUntrustedWhenIAMRefusesTheNewcomers(t *testing.T) {
	f := newFixture(t, true)
	f.wa.Spec.PodIdentity.Roles.TrustPolicySizeLimit = iamrole.MaxTrustPolicySize
	sa := "app-" + strings.Repeat("x", 150) // long subjects: a few namespaces pass 2,048
	team := f.syncedPair("b", sa)
	if got := f.trustedNamespaces("team-b", sa); !slices.Equal(got, []string{"b1", "b2"}) {
		t.Fatalf("the role trusts %v, want b1 and b2", got)
	}

	newcomers := []string{"b1"}
	for i := range 10 {
		newcomers = append(newcomers, fmt.Sprintf("c%d", i))
		f.labelledNamespace(newcomers[len(newcomers)-1], team)
	}
	providers := []iamrole.Provider{{ARN: f.providerARN, HostPath: f.hostPath}}
	if size := iamrole.TrustPolicySize(iamrole.FillTrustPolicy(providers, newcomers, sa, testAudience, 1<<20).Policy); size <= 2048 {
		t.Fatalf("the test's newcomers make a policy of %d characters, which IAM's default quota accepts", size)
	}
	f.unlabel("b2")
	f.resetRecords()
	if err := f.sync("team-b"); err != nil {
		t.Fatal(err)
	}
	f.wantRetry(retryInitial)
	if got := f.trustedNamespaces("team-b", sa); !slices.Equal(got, []string{"b1"}) {
		t.Errorf("after IAM refused the newcomers, the role trusts %v, want b1 alone: b2 left the set", got)
	}
	f.wantCondition("team-b", podidentityv1alpha1.ConditionProvisioned, metav1.ConditionFalse, podidentityv1alpha1.ReasonIAMError,
		"LimitExceeded", "trustPolicySizeLimit (4096)", "taken out of the trust policy alone")
	if events := strings.Join(f.drainEvents(), "\n"); !strings.Contains(events, "RoleTrustNarrowed") {
		t.Errorf("no RoleTrustNarrowed event: %s", events)
	}
	if got := f.http.writes(); !slices.Equal(got, []string{"UpdateAssumeRolePolicy", "UpdateAssumeRolePolicy"}) {
		t.Errorf("IAM writes %v, want the refused update and the narrowed one", got)
	}
	// Until b2's ServiceAccount is unlinked (at the next sync that
	// succeeds), the status names b2.
	if !slices.ContainsFunc(f.get("team-b").Status.Namespaces, func(n podidentityv1alpha1.TrustedNamespace) bool { return n.Name == "b2" }) {
		t.Errorf("status.namespaces %+v no longer names b2, whose ServiceAccount is still linked", f.get("team-b").Status.Namespaces)
	}
	// The retry while IAM still refuses: one refused update, nothing
	// narrowed again, no second Event.
	f.resetRecords()
	if err := f.sync("team-b"); err != nil {
		t.Fatal(err)
	}
	if got := f.http.writes(); !slices.Equal(got, []string{"UpdateAssumeRolePolicy"}) {
		t.Errorf("IAM writes on the retry %v, want the refused update alone", got)
	}
	if events := f.drainEvents(); len(events) > 0 {
		t.Errorf("Events on the retry: %v", events)
	}

	// The admin lowers the limit to IAM's quota: the oldest judged that fit.
	f.wa.Spec.PodIdentity.Roles.TrustPolicySizeLimit = 0
	if err := f.sync("team-b"); err != nil {
		t.Fatal(err)
	}
	got := f.trustedNamespaces("team-b", sa)
	if len(got) < 2 || len(got) >= len(newcomers) || got[0] != "b1" || slices.Contains(got, "b2") {
		t.Errorf("with IAM's default limit the role trusts %v, want b1 and some of the c namespaces, not all", got)
	}
	f.wantCondition("team-b", podidentityv1alpha1.ConditionProvisioned, metav1.ConditionTrue, podidentityv1alpha1.ReasonProvisioned)
	f.wantCondition("team-b", podidentityv1alpha1.ConditionNamespacesTrusted, metav1.ConditionFalse, podidentityv1alpha1.ReasonTrustPolicyFull)
	if arn := f.roleARNOf("b2", sa); arn != "" {
		t.Errorf("ServiceAccount b2/%s still names %s after b2 left the set", sa, arn)
	}
	if slices.ContainsFunc(f.get("team-b").Status.Namespaces, func(n podidentityv1alpha1.TrustedNamespace) bool { return n.Name == "b2" }) {
		t.Errorf("status.namespaces still names b2 once its ServiceAccount was unlinked")
	}
}

// A ServiceAccount left out of the trust policy whose unlink the API server
// refused stays linked; when its namespace then leaves the set, the
// operator must still unlink it, and keep it in status.namespaces until it
// has.
func TestAServiceAccountWhoseUnlinkFailedIsUnlinkedAfterItsNamespaceLeaves(t *testing.T) {
	f := newFixture(t, true)
	f.syncedPair("e", "app")
	arn := f.get("team-e").Status.RoleARN
	if f.roleARNOf("e2", "app") != arn || arn == "" {
		t.Fatalf("ServiceAccount e2/app names %q, want the role %q", f.roleARNOf("e2", "app"), arn)
	}

	// A limit that holds e1 alone; the API server refuses the patch that
	// would unlink e2's ServiceAccount.
	providers := []iamrole.Provider{{ARN: f.providerARN, HostPath: f.hostPath}}
	f.wa.Spec.PodIdentity.Roles.TrustPolicySizeLimit = int32(iamrole.TrustPolicySize(iamrole.TrustPolicy(providers, "e1", "app", testAudience)))
	refuse := true
	f.kube.PrependReactor("patch", "serviceaccounts", func(a clienttesting.Action) (bool, runtime.Object, error) {
		if refuse && a.GetNamespace() == "e2" {
			return true, nil, errors.New("refused by the test")
		}
		return false, nil, nil
	})
	if err := f.sync("team-e"); err != nil {
		t.Fatal(err)
	}
	f.wantRetry(retryInitial) // the request's backoff, not the queue's 5 ms
	if got := f.trustedNamespaces("team-e", "app"); !slices.Equal(got, []string{"e1"}) {
		t.Fatalf("the role trusts %v, want e1 alone", got)
	}
	if f.roleARNOf("e2", "app") != arn {
		t.Fatal("the refused unlink happened")
	}

	// e2 leaves the set; the API server takes patches again.
	f.unlabel("e2")
	refuse = false
	if err := f.sync("team-e"); err != nil {
		t.Fatal(err)
	}
	if got := f.roleARNOf("e2", "app"); got != "" {
		t.Errorf("ServiceAccount e2/app still names %s after e2 left the set", got)
	}
	var names []string
	for _, ns := range f.get("team-e").Status.Namespaces {
		names = append(names, ns.Name)
	}
	if !slices.Equal(names, []string{"e1"}) {
		t.Errorf("status.namespaces %v, want e1 alone", names)
	}
}

// One role, one audience: a ServiceAccount of the set that asks for another
// audience would have its pods' tokens refused at STS, and the request says
// which one and what to do, while the others stay linked.
func TestASetServiceAccountAskingAnotherAudienceIsNamed(t *testing.T) {
	f := newFixture(t, true)
	team := map[string]string{podidentityv1alpha1.NamespaceTrustLabelPrefix + "team": "g"}
	f.labelledNamespace("g1", team)
	f.labelledNamespace("g2", team)
	f.serviceAccount("g2", "app", map[string]string{podidentityv1alpha1.AudienceAnnotation: "other-audience"})
	f.labelledNamespace("g3", team)
	f.serviceAccount("g3", "app", map[string]string{podidentityv1alpha1.AudienceAnnotation: testAudience})
	f.setRequest("team-g", "app", team)
	if err := f.sync("team-g"); err != nil {
		t.Fatal(err)
	}
	f.wantCondition("team-g", podidentityv1alpha1.ConditionServiceAccountLinked, metav1.ConditionFalse, podidentityv1alpha1.ReasonAudienceMismatch,
		"ServiceAccount g2/app carries "+podidentityv1alpha1.AudienceAnnotation+`="other-audience"`, "audience "+testAudience+" only")
	if c := f.condition("team-g", podidentityv1alpha1.ConditionServiceAccountLinked); strings.Contains(c.Message, "g1/") || strings.Contains(c.Message, "g3/") {
		t.Errorf("the condition names g1 or g3, whose ServiceAccounts ask no other audience: %s", c.Message)
	}
	arn := f.get("team-g").Status.RoleARN
	for _, ns := range []string{"g1", "g2", "g3"} {
		if got := f.roleARNOf(ns, "app"); got != arn {
			t.Errorf("ServiceAccount %s/app names %q, want the role %s", ns, got, arn)
		}
	}
}

// An audience a ServiceAccount of the set is given after the role was
// linked is named at the next sync, as the 5-minute read-back is one
// (aws-roles.md): the status is not only what the first sync saw.
func TestAnAudienceAddedLaterIsNamedAtTheNextSync(t *testing.T) {
	f := newFixture(t, true)
	f.syncedPair("h", "app")
	f.wantCondition("team-h", podidentityv1alpha1.ConditionServiceAccountLinked, metav1.ConditionTrue, podidentityv1alpha1.ReasonLinked)
	sa, err := f.kube.CoreV1().ServiceAccounts("h2").Get(context.Background(), "app", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	sa.Annotations[podidentityv1alpha1.AudienceAnnotation] = "other-audience"
	if _, err := f.kube.CoreV1().ServiceAccounts("h2").Update(context.Background(), sa, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := f.sync("team-h"); err != nil {
		t.Fatal(err)
	}
	f.wantCondition("team-h", podidentityv1alpha1.ConditionServiceAccountLinked, metav1.ConditionFalse, podidentityv1alpha1.ReasonAudienceMismatch,
		"ServiceAccount h2/app carries "+podidentityv1alpha1.AudienceAnnotation+`="other-audience"`)
}

// Many ServiceAccounts of a set asking another audience, each with a long
// value: the condition names some and counts the rest, within the 32,768
// characters of a condition's message, else no status write would pass.
func TestManyAudienceMismatchesFitTheConditionMessage(t *testing.T) {
	f := newFixture(t, true)
	team := map[string]string{podidentityv1alpha1.NamespaceTrustLabelPrefix + "team": "m"}
	for i := range 30 {
		ns := fmt.Sprintf("m%02d", i)
		f.labelledNamespace(ns, team)
		f.serviceAccount(ns, "a", map[string]string{podidentityv1alpha1.AudienceAnnotation: strings.Repeat("x", 40000)})
	}
	f.wa.Spec.PodIdentity.Roles.TrustPolicySizeLimit = iamrole.MaxTrustPolicySize
	f.setRequest("team-m", "a", team)
	if err := f.sync("team-m"); err != nil {
		t.Fatal(err)
	}
	c := f.wantCondition("team-m", podidentityv1alpha1.ConditionServiceAccountLinked, metav1.ConditionFalse, podidentityv1alpha1.ReasonAudienceMismatch, "and 10 more")
	if len(c.Message) > 32768 {
		t.Errorf("ServiceAccountLinked's message has %d characters, over the API's 32,768", len(c.Message))
	}
}
