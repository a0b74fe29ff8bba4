package iamrolerequest

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"

	podidentityv1alpha1 "github.com/openshift/cluster-workload-access-operator/pkg/apis/podidentity/v1alpha1"
	"github.com/openshift/cluster-workload-access-operator/pkg/operator/podidentity/iamrole"
)

const teamLabel = podidentityv1alpha1.NamespaceTrustLabelPrefix + "team"

var setCreated = time.Date(2026, 12, 7, 10, 0, 0, 0, time.UTC)

func setRequest(set podidentityv1alpha1.ServiceAccountSetStorage, confirmed string, pins ...podidentityv1alpha1.TrustedNamespace) *podidentityv1alpha1.IAMRoleRequest {
	r := &podidentityv1alpha1.IAMRoleRequest{ObjectMeta: metav1.ObjectMeta{Name: "r", UID: "req", CreationTimestamp: metav1.NewTime(setCreated)}}
	r.Spec.Storage.ServiceAccounts = &set
	r.Status.Namespaces = pins
	if confirmed != "" {
		r.Annotations = map[string]string{podidentityv1alpha1.ConfirmedNamespaceUIDAnnotation: confirmed}
	}
	return r
}

func setNamespace(name, uid string, age time.Duration, team string, deleting bool) corev1.Namespace {
	ns := corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name, UID: types.UID(uid), CreationTimestamp: metav1.NewTime(setCreated.Add(age))}}
	if team != "" {
		ns.Labels = map[string]string{teamLabel: team}
	}
	if deleting {
		ns.DeletionTimestamp = &metav1.Time{Time: setCreated}
	}
	return ns
}

func pin(name, uid string, at time.Duration) podidentityv1alpha1.TrustedNamespace {
	return podidentityv1alpha1.TrustedNamespace{Name: name, UID: uid, JudgedAt: metav1.NewTime(setCreated.Add(at))}
}

func trustedNames(v setVerdict) []string {
	var out []string
	for _, ns := range v.trusted {
		out = append(out, ns.Name+"/"+ns.UID)
	}
	return out
}

func TestJudgeSetBySelector(t *testing.T) {
	bySelector := podidentityv1alpha1.ServiceAccountSetStorage{Name: "app",
		NamespaceSelector: &podidentityv1alpha1.NamespaceTrustSelector{MatchLabels: map[string]string{teamLabel: "a"}}}
	selector, err := trustSelector(bySelector.NamespaceSelector)
	if err != nil {
		t.Fatal(err)
	}
	now := metav1.NewTime(setCreated.Add(time.Hour))
	request := setRequest(bySelector, "", pin("a-old", "u1", time.Minute), pin("a-replaced", "u2", 2*time.Minute), pin("a-unlabelled", "u3", 0))
	found := []corev1.Namespace{
		setNamespace("a-new", "u4", 30*time.Minute, "a", false),      // judged now, so last
		setNamespace("a-old", "u1", -time.Hour, "a", false),          // keeps its judgement
		setNamespace("a-replaced", "u5", 50*time.Minute, "a", false), // another instance: judged anew
		setNamespace("a-unlabelled", "u3", -time.Hour, "", false),    // its label removed
		setNamespace("b-1", "u6", -time.Hour, "b", false),            // another team
		setNamespace("a-going", "u7", -time.Hour, "a", true),         // being deleted
		setNamespace("a-younger", "u8", 2*time.Hour, "a", false),     // younger than the request: a label is the judgement
	}
	v := judgeSet(request, found, selector, now)
	want := []string{"a-old/u1", "a-new/u4", "a-replaced/u5", "a-younger/u8"}
	if got := trustedNames(v); !slices.Equal(got, want) || len(v.waiting) != 0 {
		t.Fatalf("trusted %v waiting %v, want %v", got, v.waiting, want)
	}
	if !v.trusted[0].JudgedAt.Equal(&request.Status.Namespaces[0].JudgedAt) || !v.trusted[1].JudgedAt.Equal(&now) {
		t.Errorf("judgements %v: a pin keeps its time, a new or replaced namespace gets now", v.trusted)
	}
}

func TestJudgeSetByList(t *testing.T) {
	byList := podidentityv1alpha1.ServiceAccountSetStorage{Name: "app", Namespaces: []string{"older", "younger", "confirmed", "pinned", "missing", "going", "replaced"}}
	request := setRequest(byList, "u3, other", pin("pinned", "u4", time.Minute), pin("replaced", "u6", time.Minute))
	found := []corev1.Namespace{
		setNamespace("older", "u1", -time.Hour, "", false),
		setNamespace("younger", "u2", time.Hour, "", false),
		setNamespace("confirmed", "u3", time.Hour, "", false),
		setNamespace("pinned", "u4", time.Hour, "", false),
		setNamespace("going", "u5", -time.Hour, "", true),
		setNamespace("replaced", "u7", time.Hour, "", false),
	}
	v := judgeSet(request, found, labels.Everything(), metav1.NewTime(setCreated.Add(2*time.Hour)))
	want := []string{"pinned/u4", "confirmed/u3", "older/u1"}
	if got := trustedNames(v); !slices.Equal(got, want) {
		t.Errorf("trusted %v, want %v", got, want)
	}
	waiting := strings.Join(v.waiting, "; ")
	for _, w := range []string{"younger (UID u2) was created after the request", "missing does not exist", "going is being deleted", "replaced (UID u7) was created after the request"} {
		if !strings.Contains(waiting, w) {
			t.Errorf("waiting %q lacks %q", waiting, w)
		}
	}
}

func TestTrustSelectorRefusesWhatAnyoneCouldMatch(t *testing.T) {
	for _, s := range []*podidentityv1alpha1.NamespaceTrustSelector{
		nil,
		{},
		{MatchLabels: map[string]string{"team": "a"}},
		{MatchExpressions: []podidentityv1alpha1.NamespaceTrustRequirement{{Key: teamLabel, Operator: "NotIn", Values: []string{"b"}}}},
		{MatchExpressions: []podidentityv1alpha1.NamespaceTrustRequirement{{Key: teamLabel, Operator: "DoesNotExist"}}},
		{MatchExpressions: []podidentityv1alpha1.NamespaceTrustRequirement{{Key: "kubernetes.io/metadata.name", Operator: "Exists"}}},
	} {
		if sel, err := trustSelector(s); err == nil {
			t.Errorf("%+v accepted as %s", s, sel)
		}
	}
	sel, err := trustSelector(&podidentityv1alpha1.NamespaceTrustSelector{MatchExpressions: []podidentityv1alpha1.NamespaceTrustRequirement{{Key: teamLabel, Operator: "In", Values: []string{"a", "b"}}}})
	if err != nil || !sel.Matches(labels.Set{teamLabel: "b"}) || sel.Matches(labels.Set{"team": "b"}) {
		t.Errorf("In selector %v, %v", sel, err)
	}
}

func TestNamespacesTrustedCondition(t *testing.T) {
	in := podidentityv1alpha1.TrustedNamespace{Name: "a-1", InTrustPolicy: true}
	out := podidentityv1alpha1.TrustedNamespace{Name: "a-2"}
	c := namespacesTrusted([]podidentityv1alpha1.TrustedNamespace{in, out}, 600, 1, "limit", "")
	if c.Status != metav1.ConditionFalse || c.Reason != podidentityv1alpha1.ReasonTrustPolicyFull || !strings.Contains(c.Message, "1 of 2 namespaces fit") || !strings.Contains(c.Message, "left out: a-2") {
		t.Errorf("%+v", c)
	}
	if strings.Contains(c.Message, "issuer moves") {
		t.Errorf("one issuer, yet the message speaks of a move: %s", c.Message)
	}
	c = namespacesTrusted([]podidentityv1alpha1.TrustedNamespace{in, out}, 600, 2, "limit", "")
	if c.Reason != podidentityv1alpha1.ReasonTrustPolicyFull || !strings.Contains(c.Message, "once for each of 2 issuers") {
		t.Errorf("two issuers: %+v, want the message to say the move halves what fits", c)
	}
	c = namespacesTrusted([]podidentityv1alpha1.TrustedNamespace{in}, 600, 1, "limit", "")
	if c.Status != metav1.ConditionTrue || c.Reason != podidentityv1alpha1.ReasonAllNamespacesTrusted {
		t.Errorf("%+v", c)
	}
	c = namespacesTrusted([]podidentityv1alpha1.TrustedNamespace{in}, 600, 1, "limit", "; not trusted: b")
	if c.Status != metav1.ConditionFalse || c.Reason != podidentityv1alpha1.ReasonNamespaceNotConfirmed {
		t.Errorf("%+v", c)
	}
}

// A selector may match thousands of namespaces; the condition names some
// and counts the rest, within the API's 32,768 characters for a message,
// else every status write of the request would be refused.
func TestNamespacesTrustedConditionFitsItsMessageLimit(t *testing.T) {
	var namespaces []podidentityv1alpha1.TrustedNamespace
	for i := range 3000 {
		namespaces = append(namespaces, podidentityv1alpha1.TrustedNamespace{Name: fmt.Sprintf("team-a-preview-environment-for-pull-request-%06d", i), InTrustPolicy: i < 1000})
	}
	c := namespacesTrusted(namespaces, 4096, 1, "4,096", "")
	if len(c.Message) > 32768 || !strings.Contains(c.Message, "1000 of 3000 namespaces fit") || !strings.Contains(c.Message, "and 1950 more") {
		t.Errorf("condition message of %d characters: %.300s...; want at most 32,768, counting those it does not name", len(c.Message), c.Message)
	}
}

// FuzzTrustSelector: a selector trustSelector accepts never matches a
// namespace without a label under the trust prefix, whatever its keys,
// operators and values.
func FuzzTrustSelector(f *testing.F) {
	f.Add(teamLabel, "a", teamLabel, "In", "a", "team", "a")
	f.Add("team", "a", teamLabel, "NotIn", "b", "other", "x")
	f.Add(teamLabel, "", teamLabel+"x", "Exists", "", teamLabel, "")
	f.Fuzz(func(t *testing.T, labelKey, labelValue, exprKey, op, exprValue, nsKey, nsValue string) {
		s := &podidentityv1alpha1.NamespaceTrustSelector{}
		if labelKey != "" {
			s.MatchLabels = map[string]string{labelKey: labelValue}
		}
		if exprKey != "" {
			s.MatchExpressions = []podidentityv1alpha1.NamespaceTrustRequirement{{Key: exprKey, Operator: op, Values: []string{exprValue}}}
			if op == "Exists" {
				s.MatchExpressions[0].Values = nil
			}
		}
		sel, err := trustSelector(s)
		if err != nil {
			return
		}
		nsLabels := labels.Set{nsKey: nsValue}
		if !strings.HasPrefix(nsKey, podidentityv1alpha1.NamespaceTrustLabelPrefix) && sel.Matches(nsLabels) {
			t.Fatalf("selector %s matches %v, which has no trust label", sel, nsLabels)
		}
		if sel.Empty() {
			t.Fatalf("an empty selector was accepted from %+v", s)
		}
	})
}

// The condition blames an issuer move only when the current issuer alone
// would hold more namespaces.
func TestIssuersCrowdingOnlyWhenTheMoveLeavesNamespacesOut(t *testing.T) {
	old := provider{Provider: iamrole.Provider{ARN: "arn:aws:iam::111122223333:oidc-provider/old.example.com", HostPath: "old.example.com"}}
	current := provider{Provider: iamrole.Provider{ARN: "arn:aws:iam::111122223333:oidc-provider/new.example.com", HostPath: "new.example.com"}}
	names := []string{"team-a-1", "team-a-2", "team-a-3", "team-a-4"}
	moving := chosenTrust{providers: []provider{old, current}, current: &current}
	roleWith := func(trust chosenTrust, limit int) role {
		r := role{trust: trust, audience: "sts.amazonaws.com", trustLimit: limit}
		r.fill = iamrole.FillTrustPolicy(trust.policyProviders(), names, "app", r.audience, limit)
		return r
	}
	aloneAll := iamrole.FillTrustPolicy([]iamrole.Provider{current.Provider}, names, "app", "sts.amazonaws.com", 1<<20).Size
	for _, c := range []struct {
		name string
		r    role
		want int
	}{
		{"the move leaves some out that the current issuer alone would hold", roleWith(moving, aloneAll), 2},
		{"everything fits even during the move", roleWith(moving, 1<<20), 1},
		{"so small that the current issuer alone holds no more", roleWith(moving, 10), 1},
		{"one issuer", roleWith(chosenTrust{providers: []provider{current}, current: &current}, aloneAll-1), 1},
	} {
		if got := issuersCrowding(c.r, "app", names); got != c.want {
			t.Errorf("%s: %d (fitted %d), want %d", c.name, got, c.r.fill.Fitted, c.want)
		}
	}
}
