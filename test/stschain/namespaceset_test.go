package stschain

import (
	"context"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials/stscreds"
	"github.com/aws/aws-sdk-go-v2/service/iam"
	authenticationv1 "k8s.io/api/authentication/v1"
	authorizationv1 "k8s.io/api/authorization/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/rand"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/util/retry"

	podidentityv1alpha1 "github.com/openshift/cluster-workload-access-operator/pkg/apis/podidentity/v1alpha1"
	"github.com/openshift/cluster-workload-access-operator/test/framework"
)

// namespaceUser is a user who may create, read, update and patch namespaces
// and, with labeler, also holds the payload's
// workload-access-namespace-trust-labeler.
func namespaceUser(t *testing.T, name string, labeler bool) kubernetes.Interface {
	t.Helper()
	ctx := context.Background()
	role := &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: "stschain-" + name}, Rules: []rbacv1.PolicyRule{
		{APIGroups: []string{""}, Resources: []string{"namespaces"}, Verbs: []string{"create", "get", "update", "patch"}},
		// As automation that clears stuck namespaces holds them: an update
		// through either subresource keeps the caller's labels.
		{APIGroups: []string{""}, Resources: []string{"namespaces/status", "namespaces/finalize"}, Verbs: []string{"update", "patch"}},
	}}
	if _, err := env.kube.RbacV1().ClusterRoles().Create(ctx, role, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	roles := []string{role.Name}
	if labeler {
		roles = append(roles, "workload-access-namespace-trust-labeler")
	}
	for _, r := range roles {
		binding := &rbacv1.ClusterRoleBinding{ObjectMeta: metav1.ObjectMeta{Name: "stschain-" + name + "-" + rand.String(5)},
			RoleRef:  rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: r},
			Subjects: []rbacv1.Subject{{APIGroup: rbacv1.GroupName, Kind: "User", Name: name}}}
		if _, err := env.kube.RbacV1().ClusterRoleBindings().Create(ctx, binding, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() {
			_ = env.kube.RbacV1().ClusterRoleBindings().Delete(context.Background(), binding.Name, metav1.DeleteOptions{})
		})
	}
	t.Cleanup(func() {
		_ = env.kube.RbacV1().ClusterRoles().Delete(context.Background(), role.Name, metav1.DeleteOptions{})
	})
	// The authorizer sees new bindings a moment later.
	framework.Eventually(t, 30*time.Second, func(ctx context.Context) error {
		for _, attrs := range []authorizationv1.ResourceAttributes{{Verb: "patch", Resource: "namespaces"},
			{Verb: "label", Group: podidentityv1alpha1.GroupName, Resource: podidentityv1alpha1.NamespaceTrustLabelsResource, Name: "any"}} {
			review, err := env.kube.AuthorizationV1().SubjectAccessReviews().Create(ctx, &authorizationv1.SubjectAccessReview{Spec: authorizationv1.SubjectAccessReviewSpec{
				User: name, Groups: []string{"system:authenticated"}, ResourceAttributes: &attrs}}, metav1.CreateOptions{})
			if err != nil {
				return err
			}
			if want := attrs.Resource == "namespaces" || labeler; review.Status.Allowed != want {
				return fmt.Errorf("%s: %s %s allowed %v, want %v", name, attrs.Verb, attrs.Resource, review.Status.Allowed, want)
			}
		}
		return nil
	})
	config := rest.CopyConfig(env.cp.Config)
	config.Impersonate = rest.ImpersonationConfig{UserName: name, Groups: []string{"system:authenticated"}}
	return kubernetes.NewForConfigOrDie(config)
}

func createNamespaceAs(t *testing.T, client kubernetes.Interface, name string, labels map[string]string) error {
	t.Helper()
	_, err := client.CoreV1().Namespaces().Create(context.Background(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: labels}}, metav1.CreateOptions{})
	if err == nil {
		t.Cleanup(func() { _ = env.kube.CoreV1().Namespaces().Delete(context.Background(), name, metav1.DeleteOptions{}) })
	}
	return err
}

// trustedSubjects are the :sub values of the role's trust policy, sorted,
// and the policy's size as IAM counts it (whitespace not counted).
func trustedSubjects(ctx context.Context, roleName string) ([]string, int, error) {
	role, err := readRole(ctx, roleName)
	if err != nil {
		return nil, 0, err
	}
	if len(role.Trust.Statement) != 1 {
		return nil, 0, fmt.Errorf("role %s: %d trust statements, want 1: %s", roleName, len(role.Trust.Statement), role.Trust)
	}
	cond := role.Trust.Statement[0].Condition["StringEquals"]
	if aud := cond[issuerHostPath()+":aud"]; !slices.Equal(aud, []string{stsAudience}) {
		return nil, 0, fmt.Errorf("role %s: :aud %v, want %s", roleName, aud, stsAudience)
	}
	subs := slices.Clone([]string(cond[issuerHostPath()+":sub"]))
	slices.Sort(subs)
	got, err := env.iam.GetRole(ctx, &iam.GetRoleInput{RoleName: aws.String(roleName)})
	if err != nil {
		return nil, 0, err
	}
	text, err := url.QueryUnescape(aws.ToString(got.Role.AssumeRolePolicyDocument))
	if err != nil {
		return nil, 0, err
	}
	size := 0
	for _, r := range text {
		if !unicode.IsSpace(r) {
			size++
		}
	}
	return subs, size, nil
}

func subjectsOf(serviceAccount string, namespaces ...string) []string {
	var out []string
	for _, ns := range namespaces {
		out = append(out, "system:serviceaccount:"+ns+":"+serviceAccount)
	}
	slices.Sort(out)
	return out
}

// waitForTrust waits until the request's role trusts exactly the
// namespaces' ServiceAccount, its conditions are as wanted and the
// ServiceAccount in each namespace names the role.
func waitForTrust(t *testing.T, name, serviceAccount string, trustedReason string, namespaces ...string) (*podidentityv1alpha1.IAMRoleRequest, int) {
	t.Helper()
	var request *podidentityv1alpha1.IAMRoleRequest
	size := 0
	framework.Eventually(t, 90*time.Second, func(ctx context.Context) error {
		got, err := env.operator.PodIdentityV1alpha1().IAMRoleRequests().Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		for conditionType, reason := range map[string]string{podidentityv1alpha1.ConditionProvisioned: podidentityv1alpha1.ReasonProvisioned,
			podidentityv1alpha1.ConditionServiceAccountLinked: podidentityv1alpha1.ReasonLinked, podidentityv1alpha1.ConditionNamespacesTrusted: trustedReason} {
			if c := meta.FindStatusCondition(got.Status.Conditions, conditionType); c == nil || c.Reason != reason {
				return fmt.Errorf("IAMRoleRequest %s: want %s %s: %s", name, conditionType, reason, describeConditions(got.Status.Conditions))
			}
		}
		subs, n, err := trustedSubjects(ctx, roleNameFor(name))
		if err != nil {
			return err
		}
		if want := subjectsOf(serviceAccount, namespaces...); !slices.Equal(subs, want) {
			return fmt.Errorf("role %s trusts %v, want %v", roleNameFor(name), subs, want)
		}
		for _, ns := range namespaces {
			sa, err := env.kube.CoreV1().ServiceAccounts(ns).Get(ctx, serviceAccount, metav1.GetOptions{})
			if err != nil {
				return err
			}
			if sa.Annotations[roleARNAnnotation] != got.Status.RoleARN || got.Status.RoleARN == "" {
				return fmt.Errorf("ServiceAccount %s/%s: %s=%q, want %q", ns, serviceAccount, roleARNAnnotation, sa.Annotations[roleARNAnnotation], got.Status.RoleARN)
			}
		}
		request, size = got, n
		return nil
	})
	return request, size
}

// setTrustPolicySizeLimit sets the WorkloadAccess's trust policy size limit.
func setTrustPolicySizeLimit(t *testing.T, limit int32) {
	t.Helper()
	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		wa, err := env.operator.OperatorV1alpha1().WorkloadAccesses().Get(context.Background(), "cluster", metav1.GetOptions{})
		if err != nil {
			return err
		}
		wa.Spec.PodIdentity.Roles.TrustPolicySizeLimit = limit
		_, err = env.operator.OperatorV1alpha1().WorkloadAccesses().Update(context.Background(), wa, metav1.UpdateOptions{})
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
}

// createSetRequest creates an admin's IAMRoleRequest for the set, whose
// role may read the requested bucket; deleted at cleanup (the operator
// deletes its role).
func createSetRequest(t *testing.T, name string, set *podidentityv1alpha1.ServiceAccountSetStorage) *podidentityv1alpha1.IAMRoleRequest {
	t.Helper()
	requests := env.operator.PodIdentityV1alpha1().IAMRoleRequests()
	created, err := requests.Create(context.Background(), &podidentityv1alpha1.IAMRoleRequest{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: podidentityv1alpha1.IAMRoleRequestSpec{
			Storage: podidentityv1alpha1.Storage{ServiceAccounts: set},
			ProviderSpec: podidentityv1alpha1.AWSProviderSpec{StatementEntries: []podidentityv1alpha1.StatementEntry{{
				Effect: "Allow", Action: []string{"s3:GetObject"}, Resource: "arn:aws:s3:::" + requestedBucket + "/*"}}},
		},
	}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = requests.Delete(context.Background(), name, metav1.DeleteOptions{}) })
	return created
}

// An admin asks for one role for every namespace of team A: namespaces a
// labeler put the trust label on. The role's trust policy holds exactly
// their ServiceAccount, a pod of one gets credentials and a pod of an
// unlabelled namespace does not; a namespace labelled later is added, one
// deleted is removed; a user without the label right cannot label; a size
// limit too small for all leaves the youngest out and says so.
func TestRoleForEveryNamespaceOfATeam(t *testing.T) {
	dumpOnFailure(t)
	ctx := context.Background()
	suffix := rand.String(5)
	labelKey := podidentityv1alpha1.NamespaceTrustLabelPrefix + "team"
	teamA := map[string]string{labelKey: "a-" + suffix}
	labeler := namespaceUser(t, "labeler-"+suffix, true)
	creator := namespaceUser(t, "creator-"+suffix, false)

	// Who may label: the creator is refused a trust label on create and on
	// update; the labeler is not.
	err := createNamespaceAs(t, creator, "set-forged-"+suffix, teamA)
	if !apierrors.IsForbidden(err) || !strings.Contains(err.Error(), labelKey) {
		t.Errorf("a user without the label right creating a namespace with %s: %v, want Forbidden naming the label", labelKey, err)
	}
	plain := "set-plain-" + suffix
	if err := createNamespaceAs(t, creator, plain, nil); err != nil {
		t.Fatal(err)
	}
	ns, err := creator.CoreV1().Namespaces().Get(ctx, plain, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ns.Labels[labelKey] = teamA[labelKey]
	if _, err := creator.CoreV1().Namespaces().Update(ctx, ns, metav1.UpdateOptions{}); !apierrors.IsForbidden(err) {
		t.Errorf("a user without the label right adding %s to a namespace: %v, want Forbidden", labelKey, err)
	}
	// Nor through the status or finalize subresource.
	for subresource, update := range map[string]func(*corev1.Namespace) error{
		"status": func(ns *corev1.Namespace) error {
			_, err := creator.CoreV1().Namespaces().UpdateStatus(ctx, ns, metav1.UpdateOptions{})
			return err
		},
		"finalize": func(ns *corev1.Namespace) error {
			_, err := creator.CoreV1().Namespaces().Finalize(ctx, ns, metav1.UpdateOptions{})
			return err
		},
	} {
		if err := update(ns.DeepCopy()); !apierrors.IsForbidden(err) {
			t.Errorf("a user without the label right adding %s to a namespace through its %s subresource: %v, want Forbidden", labelKey, subresource, err)
		}
	}
	if got, err := env.kube.CoreV1().Namespaces().Get(ctx, plain, metav1.GetOptions{}); err != nil || got.Labels[labelKey] != "" {
		t.Errorf("namespace %s after the refused writes: labels %v, %v; want no %s", plain, got.Labels, err, labelKey)
	}
	a1, a2, a3 := "set-a1-"+suffix, "set-a2-"+suffix, "set-a3-"+suffix
	for _, name := range []string{a1, a2} {
		if err := createNamespaceAs(t, labeler, name, teamA); err != nil {
			t.Fatalf("the labeler creating namespace %s with %v: %v", name, teamA, err)
		}
	}
	// The creator may not take the label off either.
	labelled, err := creator.CoreV1().Namespaces().Get(ctx, a2, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	delete(labelled.Labels, labelKey)
	if _, err := creator.CoreV1().Namespaces().Update(ctx, labelled, metav1.UpdateOptions{}); !apierrors.IsForbidden(err) {
		t.Errorf("a user without the label right removing %s: %v, want Forbidden", labelKey, err)
	}

	// The request, for ServiceAccount app in every namespace of team A.
	name := "team-a-" + suffix
	requests := env.operator.PodIdentityV1alpha1().IAMRoleRequests()
	createSetRequest(t, name, &podidentityv1alpha1.ServiceAccountSetStorage{Name: "app",
		NamespaceSelector: &podidentityv1alpha1.NamespaceTrustSelector{MatchLabels: teamA}})
	asked := time.Now()
	request, _ := waitForTrust(t, name, "app", podidentityv1alpha1.ReasonAllNamespacesTrusted, a1, a2)
	t.Logf("IAMRoleRequest for a set -> role trusting both namespaces, ServiceAccounts linked: %s", time.Since(asked).Round(10*time.Millisecond))

	// A pod of team A gets credentials; a pod of the unlabelled namespace,
	// its ServiceAccount annotated with the role by hand, does not.
	pod := mount(t, createPodOf(t, a1, "app"))
	got, err := runWorkload(ctx, pod.Root, workloadEnv(pod), requestedBucket+"/"+requestedKey)
	if err != nil {
		t.Fatal(err)
	}
	if got.CredentialError != nil || got.CredentialSource != stscreds.WebIdentityProviderName {
		t.Fatalf("a pod of %s: credentials from %q, error %v", a1, got.CredentialSource, got.CredentialError)
	}
	if allowed := got.Objects[requestedBucket+"/"+requestedKey]; allowed.Error != nil || allowed.Body != requestedBody {
		t.Errorf("GetObject with the set's role: %q, %v; want %q", allowed.Body, allowed.Error, requestedBody)
	}
	outsider := mount(t, createPod(t, plain, "app", request.Status.RoleARN))
	got, err = runWorkload(ctx, outsider.Root, workloadEnv(outsider), requestedBucket+"/"+requestedKey)
	if err != nil {
		t.Fatal(err)
	}
	if got.CredentialError == nil || got.CredentialError.Code != "InvalidIdentityToken" {
		t.Errorf("a pod of the unlabelled namespace: credentials from %q, error %v; want InvalidIdentityToken", got.CredentialSource, got.CredentialError)
	}

	// A namespace labelled later joins; one deleted leaves.
	if err := createNamespaceAs(t, labeler, a3, teamA); err != nil {
		t.Fatal(err)
	}
	waitForTrust(t, name, "app", podidentityv1alpha1.ReasonAllNamespacesTrusted, a1, a2, a3)
	if err := env.kube.CoreV1().Namespaces().Delete(ctx, a2, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	_, size := waitForTrust(t, name, "app", podidentityv1alpha1.ReasonAllNamespacesTrusted, a1, a3)

	// A limit below two namespaces' trust policy (one subject is about 40
	// characters) holds the oldest judged, a1, and names a3 as left out;
	// a3's ServiceAccount is unlinked.
	t.Cleanup(func() { setTrustPolicySizeLimit(t, 0) })
	setTrustPolicySizeLimit(t, int32(size-20))
	request, _ = waitForTrust(t, name, "app", podidentityv1alpha1.ReasonTrustPolicyFull, a1)
	full := meta.FindStatusCondition(request.Status.Conditions, podidentityv1alpha1.ConditionNamespacesTrusted)
	if !strings.Contains(full.Message, "1 of 2 namespaces fit") || !strings.Contains(full.Message, "left out: "+a3) {
		t.Errorf("NamespacesTrusted: %q, want it to say 1 of 2 fit and name %s as left out", full.Message, a3)
	}
	framework.Eventually(t, 30*time.Second, func(ctx context.Context) error {
		sa, err := env.kube.CoreV1().ServiceAccounts(a3).Get(ctx, "app", metav1.GetOptions{})
		if err != nil {
			return err
		}
		if arn, ok := sa.Annotations[roleARNAnnotation]; ok {
			return fmt.Errorf("ServiceAccount %s/app left out of the trust policy still names %s", a3, arn)
		}
		return nil
	})

	// Deleting the request deletes the role.
	if err := requests.Delete(ctx, name, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	framework.Eventually(t, time.Minute, func(ctx context.Context) error {
		if _, err := requests.Get(ctx, name, metav1.GetOptions{}); !apierrors.IsNotFound(err) {
			return fmt.Errorf("IAMRoleRequest %s still there: %v", name, err)
		}
		return nil
	})
	if _, err := env.iam.GetRole(ctx, &iam.GetRoleInput{RoleName: aws.String(roleNameFor(name))}); !isNoSuchEntity(err) {
		t.Errorf("GetRole after the request was deleted: %v; want NoSuchEntity", err)
	}
}

// A set listed by name: each namespace is judged as a single request's. One
// that existed before the request is trusted; one created after it is not,
// and is named, until an admin confirms its UID.
func TestRoleForAListOfNamespaces(t *testing.T) {
	dumpOnFailure(t)
	ctx := context.Background()
	older := createNamespace(t)
	name := "list-" + rand.String(5)
	younger := name + "-younger"
	requests := env.operator.PodIdentityV1alpha1().IAMRoleRequests()
	created := createSetRequest(t, name, &podidentityv1alpha1.ServiceAccountSetStorage{Name: "app", Namespaces: []string{older, younger}})
	// Creation times are whole seconds: the younger namespace must be of a
	// later second than the request to count as created after it.
	framework.Eventually(t, 5*time.Second, func(context.Context) error {
		if now := time.Now(); !now.Truncate(time.Second).After(created.CreationTimestamp.Time) {
			return fmt.Errorf("still the request's second (%s)", now)
		}
		return nil
	})
	if err := createNamespaceAs(t, env.kube, younger, nil); err != nil {
		t.Fatal(err)
	}
	waitForTrust(t, name, "app", podidentityv1alpha1.ReasonNamespaceNotConfirmed, older)
	framework.Eventually(t, 30*time.Second, func(ctx context.Context) error {
		request, err := requests.Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		notConfirmed := meta.FindStatusCondition(request.Status.Conditions, podidentityv1alpha1.ConditionNamespacesTrusted)
		if notConfirmed == nil || !strings.Contains(notConfirmed.Message, younger+" (UID ") || !strings.Contains(notConfirmed.Message, "was created after the request") {
			return fmt.Errorf("NamespacesTrusted: %v, want it to name %s as created after the request", notConfirmed, younger)
		}
		return nil
	})
	// Still only the older one in the trust policy.
	waitForTrust(t, name, "app", podidentityv1alpha1.ReasonNamespaceNotConfirmed, older)

	// An admin confirms the younger namespace by its UID.
	ns, err := env.kube.CoreV1().Namespaces().Get(ctx, younger, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	err = retry.RetryOnConflict(retry.DefaultRetry, func() error {
		latest, err := requests.Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		if latest.Annotations == nil {
			latest.Annotations = map[string]string{}
		}
		latest.Annotations[podidentityv1alpha1.ConfirmedNamespaceUIDAnnotation] = string(ns.UID)
		_, err = requests.Update(ctx, latest, metav1.UpdateOptions{})
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	waitForTrust(t, name, "app", podidentityv1alpha1.ReasonAllNamespacesTrusted, older, younger)
}

// The admin set trustPolicySizeLimit to 4,096 believing IAM's quota raised,
// and it is not (versitygw's IAM holds the default, 2,048). Newcomers take
// the set's trust policy past the quota, so IAM refuses every update that
// adds them; then a namespace leaves the set. Its ServiceAccount's tokens
// must stop being accepted at STS now, not once someone fixes the limit.
func TestANamespaceThatLeavesLosesTheRoleWhenIAMRefusesTheNewcomers(t *testing.T) {
	dumpOnFailure(t)
	ctx := context.Background()
	suffix := rand.String(5)
	team := map[string]string{podidentityv1alpha1.NamespaceTrustLabelPrefix + "team": "b-" + suffix}
	labeler := namespaceUser(t, "labeler-b-"+suffix, true)
	sa := "app-" + strings.Repeat("x", 150) // long subjects: a few namespaces pass 2,048
	b1, b2 := "set-b1-"+suffix, "set-b2-"+suffix
	for _, ns := range []string{b1, b2} {
		if err := createNamespaceAs(t, labeler, ns, team); err != nil {
			t.Fatal(err)
		}
	}
	t.Cleanup(func() { setTrustPolicySizeLimit(t, 0) })
	setTrustPolicySizeLimit(t, 4096)
	name := "team-b-" + suffix
	requests := env.operator.PodIdentityV1alpha1().IAMRoleRequests()
	createSetRequest(t, name, &podidentityv1alpha1.ServiceAccountSetStorage{Name: sa,
		NamespaceSelector: &podidentityv1alpha1.NamespaceTrustSelector{MatchLabels: team}})
	request, _ := waitForTrust(t, name, sa, podidentityv1alpha1.ReasonAllNamespacesTrusted, b1, b2)
	token := func(ns string) string {
		tr, err := env.kube.CoreV1().ServiceAccounts(ns).CreateToken(ctx, sa, &authenticationv1.TokenRequest{
			Spec: authenticationv1.TokenRequestSpec{Audiences: []string{stsAudience}}}, metav1.CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		return tr.Status.Token
	}
	if err := assumeRole(ctx, request.Status.RoleARN, token(b2)); err != nil {
		t.Fatalf("a token of %s/%s while the role trusts it: %v", b2, sa, err)
	}

	// Ten newcomers: the policy passes IAM's quota after the first few,
	// and IAM refuses it from then on.
	for i := range 10 {
		if err := createNamespaceAs(t, labeler, fmt.Sprintf("set-b-new%d-%s", i, suffix), team); err != nil {
			t.Fatal(err)
		}
	}
	framework.Eventually(t, 90*time.Second, func(ctx context.Context) error {
		got, err := requests.Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		if c := meta.FindStatusCondition(got.Status.Conditions, podidentityv1alpha1.ConditionProvisioned); c == nil || !strings.Contains(c.Message, "LimitExceeded") ||
			!strings.Contains(c.Message, "trustPolicySizeLimit (4096)") {
			return fmt.Errorf("want Provisioned to give IAM's LimitExceeded and the limit: %s", describeConditions(got.Status.Conditions))
		}
		return nil
	})

	// b2 leaves the set: its tokens are refused at STS from now on.
	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		ns, err := labeler.CoreV1().Namespaces().Get(ctx, b2, metav1.GetOptions{})
		if err != nil {
			return err
		}
		delete(ns.Labels, podidentityv1alpha1.NamespaceTrustLabelPrefix+"team")
		_, err = labeler.CoreV1().Namespaces().Update(ctx, ns, metav1.UpdateOptions{})
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	framework.Eventually(t, 90*time.Second, func(ctx context.Context) error {
		subs, _, err := trustedSubjects(ctx, roleNameFor(name))
		if err != nil {
			return err
		}
		// The newcomers IAM took before the policy passed its quota stay.
		if !slices.Contains(subs, subjectsOf(sa, b1)[0]) || slices.Contains(subs, subjectsOf(sa, b2)[0]) {
			return fmt.Errorf("role %s trusts %v, want %s and not %s", roleNameFor(name), subs, b1, b2)
		}
		return nil
	})
	if err := assumeRole(ctx, request.Status.RoleARN, token(b2)); err == nil {
		t.Errorf("a token of %s/%s was accepted at STS after %s left the set", b2, sa, b2)
	}
	if err := assumeRole(ctx, request.Status.RoleARN, token(b1)); err != nil {
		t.Errorf("a token of %s/%s, still in the set, was refused: %v", b1, sa, err)
	}
	waitForEvents(t, request, "Warning RoleTrustNarrowed")
}
