package stschain

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/iam"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	podidentityv1alpha1 "github.com/openshift/cluster-workload-access-operator/pkg/apis/podidentity/v1alpha1"
	operatorclientset "github.com/openshift/cluster-workload-access-operator/pkg/generated/clientset/versioned"
	"github.com/openshift/cluster-workload-access-operator/test/framework"
)

// iamRoleRequesterRole is the shipped ClusterRole an admin binds to let
// someone ask for roles.
const iamRoleRequesterRole = "workload-access-iam-role-requester"

// Property: whatever a user who may make and delete namespaces (and
// ServiceAccounts in them) does, in whatever order with an admin's
// IAMRoleRequests and confirmations and the attempts of a user bound only
// to the shipped requester role (confirm a namespace, strip the finalizer,
// delete the request), a ServiceAccount is linked to a request's role only
// in a namespace whose UID the admin judged (it existed when the admin
// made the request, or the admin confirmed it), and the role stands in IAM
// only while the namespace of its name is such a one (or gone). Checked
// after every step and once more when the operator has settled at the end
// of each sequence, when every request whose judged namespace is still
// there must be linked (so the check is not vacuous). Fixed seeds.
func TestRoleTrustFollowsOnlyWhatAnAdminJudged(t *testing.T) {
	dumpOnFailure(t)
	if err := waitRoleRequestsChecked(context.Background(), time.Minute); err != nil {
		t.Fatal(err)
	}
	squatter := "prop-squatter"
	grant(t, squatter, rbacv1.PolicyRule{APIGroups: []string{""}, Resources: []string{"namespaces"}, Verbs: []string{"create", "delete", "get"}},
		rbacv1.PolicyRule{APIGroups: []string{""}, Resources: []string{"serviceaccounts"}, Verbs: []string{"create", "get"}})
	requester := "prop-requester"
	bindingName := "prop-requester"
	if _, err := env.kube.RbacV1().ClusterRoleBindings().Create(context.Background(), &rbacv1.ClusterRoleBinding{ObjectMeta: metav1.ObjectMeta{Name: bindingName},
		RoleRef:  rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: iamRoleRequesterRole},
		Subjects: []rbacv1.Subject{{APIGroup: rbacv1.GroupName, Kind: "User", Name: requester}}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = env.kube.RbacV1().ClusterRoleBindings().Delete(context.Background(), bindingName, metav1.DeleteOptions{})
	})

	const stepsPerSequence = 20
	seeds := []uint64{46, 4603, 4604}
	var total roleStats
	start := time.Now()
	for _, seed := range seeds {
		s := newRoleSequence(t, seed, kubernetes.NewForConfigOrDie(as(squatter)), operatorclientset.NewForConfigOrDie(as(requester)))
		for range stepsPerSequence {
			s.step()
			time.Sleep(500 * time.Millisecond)
			s.check(false)
		}
		s.settle()
		total.requests += s.requests
		total.refusals += s.refusals
		total.linkedSeen += s.linkedSeen
		total.checks += s.checks
	}
	t.Logf("FIGURE role trust property: %d sequences, %d steps, %d requests made, %d refusals of the requester, %d links seen in judged namespaces, %d checks, in %s",
		len(seeds), len(seeds)*stepsPerSequence, total.requests, total.refusals, total.linkedSeen, total.checks, time.Since(start).Round(time.Second))
	if total.linkedSeen == 0 {
		t.Errorf("no request was ever linked: the property was never put to the test")
	}
}

// as is the control plane's config acting as user.
func as(user string) *rest.Config {
	config := rest.CopyConfig(env.cp.Config)
	config.Impersonate = rest.ImpersonationConfig{UserName: user, Groups: []string{"system:authenticated"}}
	return config
}

// grant makes a ClusterRole of rules bound to user until t ends.
func grant(t *testing.T, user string, rules ...rbacv1.PolicyRule) {
	t.Helper()
	ctx := context.Background()
	name := "stschain-" + user
	if _, err := env.kube.RbacV1().ClusterRoles().Create(ctx, &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: name}, Rules: rules}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := env.kube.RbacV1().ClusterRoleBindings().Create(ctx, &rbacv1.ClusterRoleBinding{ObjectMeta: metav1.ObjectMeta{Name: name},
		RoleRef:  rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: name},
		Subjects: []rbacv1.Subject{{APIGroup: rbacv1.GroupName, Kind: "User", Name: user}}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = env.kube.RbacV1().ClusterRoleBindings().Delete(context.Background(), name, metav1.DeleteOptions{})
		_ = env.kube.RbacV1().ClusterRoles().Delete(context.Background(), name, metav1.DeleteOptions{})
	})
}

type roleStats struct{ requests, refusals, linkedSeen, checks int }

// roleSequence is one random sequence and what the test knows of it.
type roleSequence struct {
	t         *testing.T
	rng       *rand.Rand
	seed      uint64
	squatter  kubernetes.Interface
	requester operatorclientset.Interface
	// namespaces is the pool of names; each has at most one request, named
	// after it.
	namespaces []string
	// judged are, per request name, the namespace UIDs the admin judged.
	judged map[string]sets.Set[types.UID]
	// createdAt is when the sequence saw each namespace UID made.
	createdAt map[types.UID]time.Time
	log       []string
	roleStats
}

const propAccount = "app"

func newRoleSequence(t *testing.T, seed uint64, squatter kubernetes.Interface, requester operatorclientset.Interface) *roleSequence {
	id := "prop-" + strconv.FormatUint(seed, 36)
	s := &roleSequence{t: t, rng: rand.New(rand.NewPCG(seed, 46)), seed: seed, squatter: squatter, requester: requester,
		judged: map[string]sets.Set[types.UID]{}, createdAt: map[types.UID]time.Time{}}
	for i := range 2 {
		s.namespaces = append(s.namespaces, fmt.Sprintf("%s-ns%d", id, i))
	}
	t.Cleanup(func() {
		ctx := context.Background()
		for _, ns := range s.namespaces {
			_ = env.operator.PodIdentityV1alpha1().IAMRoleRequests().Delete(ctx, ns, metav1.DeleteOptions{})
			_ = env.kube.CoreV1().Namespaces().Delete(ctx, ns, metav1.DeleteOptions{})
		}
	})
	return s
}

func (s *roleSequence) note(format string, args ...any) {
	s.log = append(s.log, fmt.Sprintf(format, args...))
}

func (s *roleSequence) fail(format string, args ...any) {
	s.t.Helper()
	s.t.Errorf("seed %d: "+format+"\nsteps so far:\n  %s", append(append([]any{s.seed}, args...), strings.Join(s.log, "\n  "))...)
}

func liveNamespace(ctx context.Context, name string) *corev1.Namespace {
	ns, err := env.kube.CoreV1().Namespaces().Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		return nil
	}
	return ns
}

func (s *roleSequence) step() {
	ctx := context.Background()
	ns := s.namespaces[s.rng.IntN(len(s.namespaces))]
	requests := env.operator.PodIdentityV1alpha1().IAMRoleRequests()
	switch r := s.rng.IntN(100); {
	case r < 22: // the squatter makes the namespace, and the account the role names
		created, err := s.squatter.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{})
		if err == nil {
			s.createdAt[created.UID] = time.Now()
			_, err = s.squatter.CoreV1().ServiceAccounts(ns).Create(ctx, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: propAccount}}, metav1.CreateOptions{})
			s.note("squatter creates %s (uid %s) and %s: %v", ns, created.UID, propAccount, err)
			return
		}
		s.note("squatter creates %s: %v", ns, err)
	case r < 38:
		s.note("squatter deletes %s: %v", ns, s.squatter.CoreV1().Namespaces().Delete(ctx, ns, metav1.DeleteOptions{}))
	case r < 56: // the admin asks for a role for ns/app
		if _, err := requests.Get(ctx, ns, metav1.GetOptions{}); err == nil {
			return
		}
		uids := sets.New[types.UID]()
		if live := liveNamespace(ctx, ns); live != nil && live.DeletionTimestamp == nil {
			uids.Insert(live.UID)
		}
		_, err := requests.Create(ctx, roleRequest(ns), metav1.CreateOptions{})
		s.note("admin requests a role for %s/%s (judging %v): %v", ns, propAccount, sets.List(uids), err)
		if err == nil {
			s.requests++
			s.judged[ns] = uids
			// A namespace made in the request's second counts as older
			// (creation times are whole seconds): none is made in it.
			time.Sleep(time.Second)
		}
	case r < 64: // the admin confirms the namespace as it is
		live := liveNamespace(ctx, ns)
		if live == nil || live.DeletionTimestamp != nil {
			return
		}
		err := s.confirm(ctx, requests, ns, live.UID)
		s.note("admin confirms %s (uid %s): %v", ns, live.UID, err)
		if err == nil {
			s.judged[ns].Insert(live.UID)
		}
	case r < 76: // the requester, who may not write its ServiceAccounts, confirms
		live := liveNamespace(ctx, ns)
		request, err := requests.Get(ctx, ns, metav1.GetOptions{})
		if live == nil || live.DeletionTimestamp != nil || err != nil ||
			request.Annotations[podidentityv1alpha1.ConfirmedNamespaceUIDAnnotation] == string(live.UID) {
			return // nothing to confirm: a write that changes nothing moves no trust
		}
		s.requesterMay("confirm "+string(live.UID), s.confirm(ctx, s.requester.PodIdentityV1alpha1().IAMRoleRequests(), ns, live.UID))
	case r < 84: // the requester strips the finalizer of a request whose role may exist
		if s.mayHoldRole(ctx, ns) {
			s.requesterMay("strip the finalizer", s.stripFinalizer(ctx, ns))
		}
	case r < 90: // the requester deletes a request whose role may exist
		if s.mayHoldRole(ctx, ns) {
			s.requesterMay("delete the request", s.requester.PodIdentityV1alpha1().IAMRoleRequests().Delete(ctx, ns, metav1.DeleteOptions{}))
		}
	default: // the admin deletes the request; the operator deletes its role
		err := requests.Delete(ctx, ns, metav1.DeleteOptions{})
		s.note("admin deletes request %s: %v", ns, err)
	}
}

// mayHoldRole says whether the request of that name may have a role: it
// recorded an ARN or pinned a namespace. One that never did holds no trust
// to move, and its requester may let it go.
func (s *roleSequence) mayHoldRole(ctx context.Context, name string) bool {
	got, err := env.operator.PodIdentityV1alpha1().IAMRoleRequests().Get(ctx, name, metav1.GetOptions{})
	return err == nil && (got.Status.RoleARN != "" || got.Status.NamespaceUID != "")
}

// requesterMay records one of the requester's attempts: each must be
// refused, since she may not write ServiceAccounts anywhere.
func (s *roleSequence) requesterMay(what string, err error) {
	s.note("requester tries to %s: %v", what, err)
	switch {
	case apierrors.IsNotFound(err):
	case err == nil:
		s.fail("the requester, who may not write ServiceAccounts, may %s", what)
	default:
		s.refusals++
	}
}

func (s *roleSequence) confirm(ctx context.Context, client interface {
	Patch(context.Context, string, types.PatchType, []byte, metav1.PatchOptions, ...string) (*podidentityv1alpha1.IAMRoleRequest, error)
}, name string, uid types.UID) error {
	patch := fmt.Sprintf(`{"metadata":{"annotations":{%q:%q}}}`, podidentityv1alpha1.ConfirmedNamespaceUIDAnnotation, uid)
	_, err := client.Patch(ctx, name, types.MergePatchType, []byte(patch), metav1.PatchOptions{})
	return err
}

func (s *roleSequence) stripFinalizer(ctx context.Context, name string) error {
	got, err := s.requester.PodIdentityV1alpha1().IAMRoleRequests().Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		return err
	}
	if len(got.Finalizers) == 0 {
		return apierrors.NewNotFound(podidentityv1alpha1.Resource("iamrolerequests"), name) // nothing to strip
	}
	got.Finalizers = nil
	_, err = s.requester.PodIdentityV1alpha1().IAMRoleRequests().Update(ctx, got, metav1.UpdateOptions{})
	return err
}

// check looks at each namespace's ServiceAccount and its request's role.
func (s *roleSequence) check(settled bool) {
	ctx := context.Background()
	s.checks++
	for _, ns := range s.namespaces {
		live := liveNamespace(ctx, ns)
		if live == nil || live.DeletionTimestamp != nil {
			continue
		}
		request, err := env.operator.PodIdentityV1alpha1().IAMRoleRequests().Get(ctx, ns, metav1.GetOptions{})
		if err != nil {
			continue
		}
		deleting := request.DeletionTimestamp != nil
		judged := s.judged[ns].Has(live.UID)
		sa, err := env.kube.CoreV1().ServiceAccounts(ns).Get(ctx, propAccount, metav1.GetOptions{})
		linked := err == nil && sa.Annotations[podidentityv1alpha1.LinkedByAnnotation] == string(request.UID)
		switch {
		case linked && !judged:
			s.fail("ServiceAccount %s/%s is linked to request %s's role in a namespace (uid %s) the admin never judged", ns, propAccount, request.Name, live.UID)
		case linked:
			s.linkedSeen++
		case settled && judged && err == nil && !deleting:
			s.fail("ServiceAccount %s/%s is not linked to request %s's role, in the namespace (uid %s) the admin judged", ns, propAccount, request.Name, live.UID)
		}
		// The role trusts ns/app by name: it may stand only while ns is a
		// judged one. A namespace made moments ago may not be seen yet.
		if judged || time.Since(s.createdAt[live.UID]) < 5*time.Second {
			continue
		}
		if _, err := env.iam.GetRole(ctx, &iam.GetRoleInput{RoleName: aws.String(roleNameFor(request.Name))}); err == nil {
			s.fail("request %s's role stands in IAM while namespace %s is one (uid %s) the admin never judged", request.Name, ns, live.UID)
		} else if !isNoSuchEntity(err) {
			s.t.Fatalf("GetRole: %v", err)
		}
	}
}

// settle waits until every request has caught up, then checks once more.
func (s *roleSequence) settle() {
	framework.Eventually(s.t, 90*time.Second, func(ctx context.Context) error {
		for _, ns := range s.namespaces {
			got, err := env.operator.PodIdentityV1alpha1().IAMRoleRequests().Get(ctx, ns, metav1.GetOptions{})
			if err != nil || got.DeletionTimestamp != nil {
				continue
			}
			live := liveNamespace(ctx, ns)
			if live == nil || live.DeletionTimestamp != nil || !s.judged[ns].Has(live.UID) {
				continue
			}
			if !slices.ContainsFunc(got.Status.Conditions, func(c metav1.Condition) bool {
				return c.Type == podidentityv1alpha1.ConditionServiceAccountLinked && c.Status == metav1.ConditionTrue && c.ObservedGeneration == got.Generation
			}) {
				return fmt.Errorf("request %s not linked yet: %s", ns, describeConditions(got.Status.Conditions))
			}
		}
		return nil
	})
	s.check(true)
}

func roleRequest(ns string) *podidentityv1alpha1.IAMRoleRequest {
	return &podidentityv1alpha1.IAMRoleRequest{
		ObjectMeta: metav1.ObjectMeta{Name: ns},
		Spec: podidentityv1alpha1.IAMRoleRequestSpec{
			Storage: podidentityv1alpha1.Storage{ServiceAccount: podidentityv1alpha1.ServiceAccountStorage{Namespace: ns, Name: propAccount}},
			ProviderSpec: podidentityv1alpha1.AWSProviderSpec{StatementEntries: []podidentityv1alpha1.StatementEntry{{
				Effect: "Allow", Action: []string{"s3:GetObject"}, Resource: "arn:aws:s3:::" + requestedBucket + "/*"}}},
		},
	}
}
