package stschain

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/iam"
	authorizationv1 "k8s.io/api/authorization/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	podidentityv1alpha1 "github.com/openshift/cluster-workload-access-operator/pkg/apis/podidentity/v1alpha1"
	"github.com/openshift/cluster-workload-access-operator/pkg/operator/frame/operatorclient"
	"github.com/openshift/cluster-workload-access-operator/test/framework"
)

// namespaceCreator is a user who may create namespaces and, in them,
// ServiceAccounts, as any OpenShift user may through a project request.
func namespaceCreator(t *testing.T, name string) kubernetes.Interface {
	t.Helper()
	ctx := context.Background()
	role := &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: "stschain-" + name}, Rules: []rbacv1.PolicyRule{
		{APIGroups: []string{""}, Resources: []string{"namespaces"}, Verbs: []string{"create", "get"}},
		{APIGroups: []string{""}, Resources: []string{"serviceaccounts"}, Verbs: []string{"create", "get", "update", "patch"}},
	}}
	if _, err := env.kube.RbacV1().ClusterRoles().Create(ctx, role, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	binding := &rbacv1.ClusterRoleBinding{ObjectMeta: metav1.ObjectMeta{Name: role.Name},
		RoleRef:  rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: role.Name},
		Subjects: []rbacv1.Subject{{APIGroup: rbacv1.GroupName, Kind: "User", Name: name}}}
	if _, err := env.kube.RbacV1().ClusterRoleBindings().Create(ctx, binding, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = env.kube.RbacV1().ClusterRoleBindings().Delete(context.Background(), binding.Name, metav1.DeleteOptions{})
		_ = env.kube.RbacV1().ClusterRoles().Delete(context.Background(), role.Name, metav1.DeleteOptions{})
	})
	// The API server's RBAC authorizer sees a new binding a moment later,
	// through its own informer: wait until it does.
	framework.Eventually(t, 30*time.Second, func(ctx context.Context) error {
		review, err := env.kube.AuthorizationV1().SubjectAccessReviews().Create(ctx, &authorizationv1.SubjectAccessReview{Spec: authorizationv1.SubjectAccessReviewSpec{
			User: name, Groups: []string{"system:authenticated"},
			ResourceAttributes: &authorizationv1.ResourceAttributes{Verb: "create", Resource: "namespaces"},
		}}, metav1.CreateOptions{})
		if err != nil {
			return err
		}
		if !review.Status.Allowed {
			return fmt.Errorf("%s may not create namespaces yet: %s", name, review.Status.Reason)
		}
		return nil
	})
	config := rest.CopyConfig(env.cp.Config)
	config.Impersonate = rest.ImpersonationConfig{UserName: name, Groups: []string{"system:authenticated"}}
	return kubernetes.NewForConfigOrDie(config)
}

// waitForReason waits until both of the request's conditions are False with
// reason, and returns the request.
func waitForReason(t *testing.T, name, reason string, timeout time.Duration) *podidentityv1alpha1.IAMRoleRequest {
	t.Helper()
	var request *podidentityv1alpha1.IAMRoleRequest
	framework.Eventually(t, timeout, func(ctx context.Context) error {
		got, err := env.operator.PodIdentityV1alpha1().IAMRoleRequests().Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		for _, conditionType := range []string{podidentityv1alpha1.ConditionProvisioned, podidentityv1alpha1.ConditionServiceAccountLinked} {
			c := meta.FindStatusCondition(got.Status.Conditions, conditionType)
			if c == nil || c.Status != metav1.ConditionFalse || c.Reason != reason {
				return fmt.Errorf("IAMRoleRequest %s: %s", name, describeConditions(got.Status.Conditions))
			}
		}
		request = got
		return nil
	})
	return request
}

// describedEvents are the Events `oc describe iamrolerequest` shows: it
// lists Events in every namespace whose involvedObject is the request (a
// cluster-scoped object: involvedObject.namespace empty). Each is
// "<namespace> <type> <reason>: <message>", sorted.
func describedEvents(ctx context.Context, request *podidentityv1alpha1.IAMRoleRequest) ([]string, error) {
	list, err := env.kube.CoreV1().Events(metav1.NamespaceAll).List(ctx, metav1.ListOptions{FieldSelector: fields.Set{
		"involvedObject.name": request.Name, "involvedObject.namespace": "", "involvedObject.kind": "IAMRoleRequest", "involvedObject.uid": string(request.UID),
	}.AsSelector().String()})
	if err != nil {
		return nil, err
	}
	var out []string
	for _, e := range list.Items {
		out = append(out, fmt.Sprintf("%s %s %s: %s", e.Namespace, e.Type, e.Reason, e.Message))
	}
	sort.Strings(out)
	return out, nil
}

// waitForEvents waits until the request's described Events include one
// starting with each of want (given without the namespace), checks that
// every one of them is in kube-system, and returns them.
func waitForEvents(t *testing.T, request *podidentityv1alpha1.IAMRoleRequest, want ...string) []string {
	t.Helper()
	var got []string
	framework.Eventually(t, 30*time.Second, func(ctx context.Context) error {
		var err error
		if got, err = describedEvents(ctx, request); err != nil {
			return err
		}
		for _, w := range want {
			found := false
			for _, e := range got {
				_, rest, _ := strings.Cut(e, " ")
				found = found || strings.HasPrefix(rest, w)
			}
			if !found {
				return fmt.Errorf("no Event %q on IAMRoleRequest %s yet: %q", w, request.Name, got)
			}
		}
		return nil
	})
	for _, e := range got {
		if !strings.HasPrefix(e, metav1.NamespaceSystem+" ") {
			t.Errorf("an Event on IAMRoleRequest %s outside %s, where who may list Events is not only cluster admins: %s", request.Name, metav1.NamespaceSystem, e)
		}
	}
	return got
}

// The operator's own namespace would keep IAMRoleRequest Events from
// everyone but cluster admins too, but the API server takes an Event about a
// cluster-scoped object only in default or (with an eventTime) kube-system.
func TestClusterScopedEventsCannotGoToTheOperatorNamespace(t *testing.T) {
	ctx := context.Background()
	about := corev1.ObjectReference{APIVersion: podidentityv1alpha1.SchemeGroupVersion.String(), Kind: "IAMRoleRequest", Name: "stschain-events", UID: "0d5c4e9e-0000-4000-8000-000000000000"}
	now := metav1.Now()
	for _, eventTime := range []bool{false, true} {
		event := &corev1.Event{ObjectMeta: metav1.ObjectMeta{GenerateName: "stschain-events.", Namespace: operatorclient.OperatorNamespace},
			InvolvedObject: about, Type: corev1.EventTypeNormal, Reason: "RoleCreated", Message: "m",
			FirstTimestamp: now, LastTimestamp: now, Count: 1, Source: corev1.EventSource{Component: operatorclient.OperatorName}}
		if eventTime {
			event.EventTime = metav1.NewMicroTime(now.Time)
			event.ReportingController, event.ReportingInstance, event.Action = operatorclient.OperatorName, "stschain", "RoleCreated"
		}
		_, err := env.kube.CoreV1().Events(operatorclient.OperatorNamespace).Create(ctx, event, metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
		if !apierrors.IsInvalid(err) || !strings.Contains(err.Error(), "does not match event.namespace") {
			t.Errorf("an Event (eventTime %v) in %s about a cluster-scoped object: %v; want Invalid, does not match event.namespace", eventTime, operatorclient.OperatorNamespace, err)
		}
	}
}

// An admin asks for a role for ns/app; the namespace is deleted and a user
// who may only create namespaces creates it again, with a ServiceAccount
// app. The role is deleted from IAM as soon as the namespace terminates; the
// new namespace gets no role, no annotation, and no credentials even when
// its creator annotates the account with the role's ARN, until the admin
// confirms it. The request's Events are where only cluster admins read them
// and where `oc describe` finds them.
func TestRoleIsNotInheritedByARecreatedNamespace(t *testing.T) {
	dumpOnFailure(t)
	ctx := context.Background()
	requests := env.operator.PodIdentityV1alpha1().IAMRoleRequests()
	ns := createNamespace(t)
	original, err := env.kube.CoreV1().Namespaces().Get(ctx, ns, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	createServiceAccount(t, ns, "app", nil)
	created := createRoleRequest(t, ns+"-app", ns, "app")
	linked := waitForRole(t, created.Name)
	if linked.Status.NamespaceUID != string(original.UID) {
		t.Errorf("status.namespaceUID %q, want namespace %s's UID %s", linked.Status.NamespaceUID, ns, original.UID)
	}
	arn := linked.Status.RoleARN
	roleName := roleNameFor(created.Name)
	waitForEvents(t, linked, "Normal RoleCreated: Created IAM role "+arn, "Normal ServiceAccountLinked: Annotated ServiceAccount "+ns+"/app")
	if list, err := env.kube.CoreV1().Events(metav1.NamespaceDefault).List(ctx, metav1.ListOptions{
		FieldSelector: fields.OneTermEqualSelector("involvedObject.uid", string(linked.UID)).String()}); err != nil || len(list.Items) > 0 {
		t.Errorf("Events on IAMRoleRequest %s in default: %v, %v", linked.Name, err, list)
	}

	// Deleted: the role goes while the namespace terminates, not at the
	// next resync.
	deleting := time.Now()
	if err := env.kube.CoreV1().Namespaces().Delete(ctx, ns, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	waitForReason(t, created.Name, podidentityv1alpha1.ReasonNamespaceDeleted, 30*time.Second)
	t.Logf("namespace deleted -> role revoked: %s", time.Since(deleting).Round(10*time.Millisecond))
	if _, err := env.iam.GetRole(ctx, &iam.GetRoleInput{RoleName: aws.String(roleName)}); !isNoSuchEntity(err) {
		t.Errorf("GetRole %s after its namespace was deleted: %v; want NoSuchEntity", roleName, err)
	}
	if got, err := requests.Get(ctx, created.Name, metav1.GetOptions{}); err != nil || got.Status.RoleARN != "" || len(got.Finalizers) != 1 {
		t.Errorf("the revoked request: %v, roleARN %q, finalizers %v; want no ARN and its finalizer", err, got.Status.RoleARN, got.Finalizers)
	}
	waitForEvents(t, linked, "Warning NamespaceDeleted: Deleted IAM role "+arn)
	framework.Eventually(t, 2*time.Minute, func(ctx context.Context) error {
		if _, err := env.kube.CoreV1().Namespaces().Get(ctx, ns, metav1.GetOptions{}); !apierrors.IsNotFound(err) {
			return fmt.Errorf("namespace %s still exists: %v", ns, err)
		}
		return nil
	})

	// Created again by someone else, with the account the role named.
	mallory := namespaceCreator(t, "mallory-"+ns)
	replacement, err := mallory.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := mallory.CoreV1().ServiceAccounts(ns).Create(ctx, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "app"}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	replaced := waitForReason(t, created.Name, podidentityv1alpha1.ReasonNamespaceReplaced, 30*time.Second)
	if c := meta.FindStatusCondition(replaced.Status.Conditions, podidentityv1alpha1.ConditionProvisioned); !strings.Contains(c.Message, string(replacement.UID)) ||
		!strings.Contains(c.Message, "oc annotate --overwrite iamrolerequest "+created.Name+" "+podidentityv1alpha1.ConfirmedNamespaceUIDAnnotation) {
		t.Errorf("Provisioned message %q names neither the new namespace's UID %s nor the confirmation", c.Message, replacement.UID)
	}
	waitForEvents(t, linked, "Warning NamespaceReplaced: ")
	// Nothing comes later either: the recheck is every minute, and the
	// namespace's own events have passed.
	time.Sleep(5 * time.Second)
	sa, err := env.kube.CoreV1().ServiceAccounts(ns).Get(ctx, "app", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(sa.Annotations) > 0 {
		t.Errorf("the new namespace's ServiceAccount was annotated: %v", sa.Annotations)
	}
	if _, err := env.iam.GetRole(ctx, &iam.GetRoleInput{RoleName: aws.String(roleName)}); !isNoSuchEntity(err) {
		t.Errorf("GetRole %s with the namespace replaced: %v; want NoSuchEntity", roleName, err)
	}

	// Its creator names the role on the account himself (the ARN is easy to
	// guess): the webhook injects it, and STS has no role to give.
	sa.Annotations = map[string]string{roleARNAnnotation: arn}
	if _, err := mallory.CoreV1().ServiceAccounts(ns).Update(ctx, sa, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	pod := mount(t, createPodOf(t, ns, "app"))
	got, err := runWorkload(ctx, pod.Root, workloadEnv(pod), requestedBucket+"/"+requestedKey)
	if err != nil {
		t.Fatal(err)
	}
	if got.CredentialError == nil {
		t.Errorf("a pod of the re-created namespace got credentials for %s from %q", arn, got.CredentialSource)
	} else {
		t.Logf("the re-created namespace's pod is refused: %v", got.CredentialError)
	}

	// The admin confirms the new namespace: the role is made again.
	confirmed, err := requests.Get(ctx, created.Name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	confirmed.Annotations = map[string]string{podidentityv1alpha1.ConfirmedNamespaceUIDAnnotation: string(replacement.UID)}
	if _, err := requests.Update(ctx, confirmed, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	again := waitForRole(t, created.Name)
	checkRole(t, again)
	if again.Status.NamespaceUID != string(replacement.UID) {
		t.Errorf("status.namespaceUID %q after the confirmation, want %s", again.Status.NamespaceUID, replacement.UID)
	}
}
