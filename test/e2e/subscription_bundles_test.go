package e2e

import (
	"context"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	consolev1client "github.com/openshift/client-go/console/clientset/versioned/typed/console/v1"
	sharedresourceclient "github.com/openshift/client-go/sharedresource/clientset/versioned"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/rest"

	subscriptionv1alpha1 "github.com/openshift/cluster-workload-access-operator/pkg/apis/subscription/v1alpha1"
	operatorclientset "github.com/openshift/cluster-workload-access-operator/pkg/generated/clientset/versioned"
	"github.com/openshift/cluster-workload-access-operator/test/framework"
)

const clusterBundleLabel = "subscription.openshift.io/cluster-bundle"

func shareClient(t *testing.T) sharedresourceclient.Interface {
	t.Helper()
	c, err := sharedresourceclient.NewForConfig(env.cp.Config)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// settledClusterBundle waits until the operator has described the bundle's
// current generation and returns it.
func settledClusterBundle(t *testing.T, name string, check func(*subscriptionv1alpha1.ClusterBundle) error) *subscriptionv1alpha1.ClusterBundle {
	t.Helper()
	var cb *subscriptionv1alpha1.ClusterBundle
	framework.Eventually(t, 30*time.Second, func(ctx context.Context) error {
		var err error
		cb, err = env.operator.SubscriptionV1alpha1().ClusterBundles().Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		if cb.Status.ObservedGeneration != cb.Generation {
			return fmt.Errorf("observedGeneration %d, generation %d", cb.Status.ObservedGeneration, cb.Generation)
		}
		return check(cb)
	})
	return cb
}

func invalidIs(status metav1.ConditionStatus, reason, message string) func(conditions []metav1.Condition) error {
	return func(conditions []metav1.Condition) error {
		c := meta.FindStatusCondition(conditions, subscriptionv1alpha1.ConditionInvalid)
		if c == nil {
			return fmt.Errorf("no Invalid condition")
		}
		if c.Status != status || c.Reason != reason || c.Message != message {
			return fmt.Errorf("Invalid=%s %s %q, want %s %s %q", c.Status, c.Reason, c.Message, status, reason, message)
		}
		return nil
	}
}

// aggregatedInto reports whether role has aggregated the rule that lets
// holders get the named ClusterBundle.
func aggregatedInto(ctx context.Context, role, bundle string) (bool, error) {
	r, err := env.kube.RbacV1().ClusterRoles().Get(ctx, role, metav1.GetOptions{})
	if err != nil {
		return false, err
	}
	for _, rule := range r.Rules {
		if reflect.DeepEqual(rule.Resources, []string{"clusterbundles"}) && reflect.DeepEqual(rule.ResourceNames, []string{bundle}) {
			return true, nil
		}
	}
	return false, nil
}

func TestClusterBundleSharesRoleAggregationAndGarbageCollection(t *testing.T) {
	dumpOnFailure(t)
	ctx := context.Background()
	shares := shareClient(t)
	ns := testNamespace(t, "cluster-bundle-src-")
	createSecret(t, ns, "ent-a", "a.pem", "a-key.pem")
	createSecret(t, ns, "ent-b", "b.pem")
	createConfigMap(t, ns, "satellite", "redhat.repo")

	// The control plane's kube-apiserver creates the bootstrap roles, so the
	// built-in edit and view roles exist and aggregate by label.
	for _, role := range []string{"edit", "view"} {
		r, err := env.kube.RbacV1().ClusterRoles().Get(ctx, role, metav1.GetOptions{})
		if err != nil {
			t.Fatalf("built-in ClusterRole %s: %v", role, err)
		}
		if r.AggregationRule == nil {
			t.Fatalf("built-in ClusterRole %s does not aggregate", role)
		}
	}

	const name = "e2e-rhel"
	cb, err := env.operator.SubscriptionV1alpha1().ClusterBundles().Create(ctx, &subscriptionv1alpha1.ClusterBundle{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: subscriptionv1alpha1.ClusterBundleSpec{
			AggregateToClusterRoles: []string{"edit"},
			Entitlements:            []subscriptionv1alpha1.ClusterReference{{Namespace: ns, Name: "ent-a"}, {Namespace: ns, Name: "ent-b"}},
			YumRepositories:         []subscriptionv1alpha1.ClusterReference{{Namespace: ns, Name: "satellite"}},
		},
	}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = env.operator.SubscriptionV1alpha1().ClusterBundles().Delete(context.Background(), name, metav1.DeleteOptions{})
	})

	shareA, shareB, shareYum := name+"-entitlement-"+ns+"-ent-a", name+"-entitlement-"+ns+"-ent-b", name+"-yum-"+ns+"-satellite"
	roleName := name + "-subscription-bundle"
	cb = settledClusterBundle(t, name, func(cb *subscriptionv1alpha1.ClusterBundle) error {
		return invalidIs(metav1.ConditionFalse, subscriptionv1alpha1.ReasonValid, "")(cb.Status.Conditions)
	})
	wantStatus := subscriptionv1alpha1.ClusterBundleStatus{
		ObservedGeneration: cb.Generation,
		Conditions:         cb.Status.Conditions,
		ClusterRole:        roleName,
		Shares: []subscriptionv1alpha1.ShareReference{
			{Kind: "SharedConfigMap", Name: shareYum},
			{Kind: "SharedSecret", Name: shareA},
			{Kind: "SharedSecret", Name: shareB},
		},
		Entitlements: []subscriptionv1alpha1.ResolvedReference{
			{Namespace: ns, Name: "ent-a", Keys: []string{"a-key.pem", "a.pem"}, Share: shareA},
			{Namespace: ns, Name: "ent-b", Keys: []string{"b.pem"}, Share: shareB},
		},
		YumRepositories: []subscriptionv1alpha1.ResolvedReference{{Namespace: ns, Name: "satellite", Keys: []string{"redhat.repo"}, Share: shareYum}},
	}
	if !reflect.DeepEqual(cb.Status, wantStatus) {
		t.Errorf("status\n%+v\nwant\n%+v", cb.Status, wantStatus)
	}

	owned := func(o metav1.Object) error {
		refs := o.GetOwnerReferences()
		if len(refs) != 1 || refs[0].Kind != "ClusterBundle" || refs[0].Name != name || refs[0].UID != cb.UID ||
			refs[0].Controller == nil || !*refs[0].Controller || refs[0].BlockOwnerDeletion == nil || !*refs[0].BlockOwnerDeletion {
			return fmt.Errorf("%s has owners %+v", o.GetName(), refs)
		}
		if o.GetLabels()[clusterBundleLabel] != name {
			return fmt.Errorf("%s has labels %v", o.GetName(), o.GetLabels())
		}
		return nil
	}
	for _, s := range []string{shareA, shareB} {
		share, err := shares.SharedresourceV1alpha1().SharedSecrets().Get(ctx, s, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if err := owned(share); err != nil {
			t.Error(err)
		}
		if share.Spec.SecretRef.Namespace != ns || !strings.HasSuffix(s, share.Spec.SecretRef.Name) {
			t.Errorf("%s points at %+v", s, share.Spec.SecretRef)
		}
	}
	yumShare, err := shares.SharedresourceV1alpha1().SharedConfigMaps().Get(ctx, shareYum, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if err := owned(yumShare); err != nil {
		t.Error(err)
	}
	if yumShare.Spec.ConfigMapRef.Namespace != ns || yumShare.Spec.ConfigMapRef.Name != "satellite" {
		t.Errorf("%s points at %+v", shareYum, yumShare.Spec.ConfigMapRef)
	}

	role, err := env.kube.RbacV1().ClusterRoles().Get(ctx, roleName, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if err := owned(role); err != nil {
		t.Error(err)
	}
	if want := map[string]string{clusterBundleLabel: name, "rbac.authorization.k8s.io/aggregate-to-edit": "true"}; !reflect.DeepEqual(role.Labels, want) {
		t.Errorf("role labels %v, want %v", role.Labels, want)
	}
	wantRules := []rbacv1.PolicyRule{
		{Verbs: []string{"get"}, APIGroups: []string{"subscription.openshift.io"}, Resources: []string{"clusterbundles"}, ResourceNames: []string{name}},
		{Verbs: []string{"use"}, APIGroups: []string{"sharedresource.openshift.io"}, Resources: []string{"sharedsecrets"}, ResourceNames: []string{shareA, shareB}},
		{Verbs: []string{"use"}, APIGroups: []string{"sharedresource.openshift.io"}, Resources: []string{"sharedconfigmaps"}, ResourceNames: []string{shareYum}},
	}
	if !reflect.DeepEqual(role.Rules, wantRules) {
		t.Errorf("rules\n%+v\nwant\n%+v", role.Rules, wantRules)
	}

	// kube-controller-manager aggregates the rules into the built-in edit
	// role (and so into admin, which aggregates edit), not into view.
	framework.Eventually(t, 30*time.Second, func(ctx context.Context) error {
		for _, role := range []string{"edit", "admin"} {
			if ok, err := aggregatedInto(ctx, role, name); err != nil || !ok {
				return fmt.Errorf("%s has not aggregated %s (%v)", role, roleName, err)
			}
		}
		return nil
	})
	if ok, err := aggregatedInto(ctx, "view", name); err != nil || ok {
		t.Errorf("view aggregated %s meant for edit (%v)", roleName, err)
	}

	// Someone else annotates the role; the operator's next update keeps it,
	// and the API server its managedFields entry.
	if _, err := env.kube.RbacV1().ClusterRoles().Patch(ctx, roleName, types.MergePatchType,
		[]byte(`{"metadata":{"annotations":{"support.example.com/ticket":"42"}}}`), metav1.PatchOptions{FieldManager: annotator}); err != nil {
		t.Fatal(err)
	}

	// Drop a Secret and aggregate into view instead of edit.
	framework.Eventually(t, 10*time.Second, func(ctx context.Context) error {
		cb, err := env.operator.SubscriptionV1alpha1().ClusterBundles().Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		cb.Spec.Entitlements = cb.Spec.Entitlements[:1]
		cb.Spec.AggregateToClusterRoles = []string{"view"}
		_, err = env.operator.SubscriptionV1alpha1().ClusterBundles().Update(ctx, cb, metav1.UpdateOptions{FieldManager: specEditor})
		return err
	})
	cb = settledClusterBundle(t, name, func(cb *subscriptionv1alpha1.ClusterBundle) error {
		if len(cb.Status.Shares) != 2 || len(cb.Status.Entitlements) != 1 {
			return fmt.Errorf("status still lists %v", cb.Status.Shares)
		}
		return invalidIs(metav1.ConditionFalse, subscriptionv1alpha1.ReasonValid, "")(cb.Status.Conditions)
	})
	framework.Eventually(t, 30*time.Second, func(ctx context.Context) error {
		if _, err := shares.SharedresourceV1alpha1().SharedSecrets().Get(ctx, shareB, metav1.GetOptions{}); !apierrors.IsNotFound(err) {
			return fmt.Errorf("%s is still there (%v)", shareB, err)
		}
		role, err := env.kube.RbacV1().ClusterRoles().Get(ctx, roleName, metav1.GetOptions{})
		if err != nil {
			return err
		}
		if want := map[string]string{clusterBundleLabel: name, "rbac.authorization.k8s.io/aggregate-to-view": "true"}; !reflect.DeepEqual(role.Labels, want) {
			return fmt.Errorf("role labels %v, want %v", role.Labels, want)
		}
		if got := role.Rules[1].ResourceNames; !reflect.DeepEqual(got, []string{shareA}) {
			return fmt.Errorf("role still grants use of %v", got)
		}
		// The built-in view role is itself aggregated into edit, so edit
		// keeps the rules, now through view.
		for _, role := range []string{"view", "edit"} {
			if ok, err := aggregatedInto(ctx, role, name); err != nil || !ok {
				return fmt.Errorf("%s has not aggregated %s (%v)", role, roleName, err)
			}
		}
		return nil
	})
	// The operator caches bundles and the roles it generates without their
	// managedFields and writes from those copies: the API server keeps
	// what other managers own (docs/architecture.md).
	cb, err = env.operator.SubscriptionV1alpha1().ClusterBundles().Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if err := managesFields(cb.ManagedFields, specEditor, "", "f:aggregateToClusterRoles"); err != nil {
		t.Errorf("ClusterBundle after the operator's status write: %v", err)
	}
	if err := managesFields(cb.ManagedFields, "", "status", "f:shares"); err != nil {
		t.Errorf("ClusterBundle: %v", err)
	}
	if role, err := env.kube.RbacV1().ClusterRoles().Get(ctx, roleName, metav1.GetOptions{}); err != nil {
		t.Fatal(err)
	} else {
		if err := managesFields(role.ManagedFields, "", "", "f:rules"); err != nil {
			t.Errorf("ClusterRole after the operator's update: %v", err)
		}
		if err := managesFields(role.ManagedFields, annotator, "", "f:support.example.com/ticket"); err != nil || role.Annotations["support.example.com/ticket"] != "42" {
			t.Errorf("ClusterRole after the operator's update: annotations %v, %v", role.Annotations, err)
		}
	}
	if view, err := env.kube.RbacV1().ClusterRoles().Get(ctx, "view", metav1.GetOptions{}); err != nil || view.Labels["rbac.authorization.k8s.io/aggregate-to-edit"] != "true" {
		t.Errorf("the built-in view role is expected to aggregate into edit: %v %v", view.GetLabels(), err)
	}

	// Aggregating nowhere takes the rules out of edit and view.
	framework.Eventually(t, 10*time.Second, func(ctx context.Context) error {
		cb, err := env.operator.SubscriptionV1alpha1().ClusterBundles().Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		cb.Spec.AggregateToClusterRoles = nil
		_, err = env.operator.SubscriptionV1alpha1().ClusterBundles().Update(ctx, cb, metav1.UpdateOptions{})
		return err
	})
	framework.Eventually(t, 30*time.Second, func(ctx context.Context) error {
		role, err := env.kube.RbacV1().ClusterRoles().Get(ctx, roleName, metav1.GetOptions{})
		if err != nil {
			return err
		}
		if want := map[string]string{clusterBundleLabel: name}; !reflect.DeepEqual(role.Labels, want) {
			return fmt.Errorf("role labels %v, want %v", role.Labels, want)
		}
		for _, role := range []string{"view", "edit", "admin"} {
			if ok, err := aggregatedInto(ctx, role, name); err != nil || ok {
				return fmt.Errorf("%s still aggregates %s (%v)", role, roleName, err)
			}
		}
		return nil
	})

	// Deleting the bundle lets the garbage collector delete what was generated.
	if err := env.operator.SubscriptionV1alpha1().ClusterBundles().Delete(ctx, name, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	framework.Eventually(t, 60*time.Second, func(ctx context.Context) error {
		if _, err := shares.SharedresourceV1alpha1().SharedSecrets().Get(ctx, shareA, metav1.GetOptions{}); !apierrors.IsNotFound(err) {
			return fmt.Errorf("%s is still there (%v)", shareA, err)
		}
		if _, err := shares.SharedresourceV1alpha1().SharedConfigMaps().Get(ctx, shareYum, metav1.GetOptions{}); !apierrors.IsNotFound(err) {
			return fmt.Errorf("%s is still there (%v)", shareYum, err)
		}
		if _, err := env.kube.RbacV1().ClusterRoles().Get(ctx, roleName, metav1.GetOptions{}); !apierrors.IsNotFound(err) {
			return fmt.Errorf("%s is still there (%v)", roleName, err)
		}
		return nil
	})
}

// specEditor and annotator are the field managers of edits a test makes.
const (
	specEditor = "e2e-spec-editor"
	annotator  = "e2e-annotator"
)

// managesFields tells whether entries hold one by manager ("" for any), of
// subresource ("" for the object itself), whose fields name field.
func managesFields(entries []metav1.ManagedFieldsEntry, manager, subresource, field string) error {
	for _, e := range entries {
		if (manager == "" || e.Manager == manager) && e.Subresource == subresource && e.FieldsV1 != nil && strings.Contains(string(e.FieldsV1.Raw), `"`+field+`"`) {
			return nil
		}
	}
	owners := make([]string, 0, len(entries))
	for _, e := range entries {
		owners = append(owners, e.Manager+"/"+e.Subresource)
	}
	return fmt.Errorf("no managedFields entry of %q (subresource %q) names %s; managers: %v", manager, subresource, field, owners)
}

func TestClusterBundleWithMissingSecretIsInvalidAndCreatesNothing(t *testing.T) {
	dumpOnFailure(t)
	ctx := context.Background()
	shares := shareClient(t)
	ns := testNamespace(t, "cluster-bundle-missing-")
	createSecret(t, ns, "present", "p.pem")

	const name = "e2e-missing"
	if _, err := env.operator.SubscriptionV1alpha1().ClusterBundles().Create(ctx, &subscriptionv1alpha1.ClusterBundle{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: subscriptionv1alpha1.ClusterBundleSpec{
			AggregateToClusterRoles: []string{"edit"},
			Entitlements:            []subscriptionv1alpha1.ClusterReference{{Namespace: ns, Name: "present"}, {Namespace: ns, Name: "etc-pki-entitlement"}},
			YumRepositories:         []subscriptionv1alpha1.ClusterReference{{Namespace: ns, Name: "satellite"}},
		},
	}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = env.operator.SubscriptionV1alpha1().ClusterBundles().Delete(context.Background(), name, metav1.DeleteOptions{})
	})

	message := fmt.Sprintf("secret %s/etc-pki-entitlement not found; configmap %s/satellite not found", ns, ns)
	settledClusterBundle(t, name, func(cb *subscriptionv1alpha1.ClusterBundle) error {
		return invalidIs(metav1.ConditionTrue, subscriptionv1alpha1.ReasonMissingReference, message)(cb.Status.Conditions)
	})
	selector := metav1.ListOptions{LabelSelector: clusterBundleLabel + "=" + name}
	framework.Consistently(t, 3*time.Second, func(ctx context.Context) error {
		secrets, err := shares.SharedresourceV1alpha1().SharedSecrets().List(ctx, selector)
		if err != nil {
			return err
		}
		configMaps, err := shares.SharedresourceV1alpha1().SharedConfigMaps().List(ctx, selector)
		if err != nil {
			return err
		}
		if len(secrets.Items)+len(configMaps.Items) != 0 {
			return fmt.Errorf("an invalid bundle got shares: %d SharedSecrets, %d SharedConfigMaps", len(secrets.Items), len(configMaps.Items))
		}
		if _, err := env.kube.RbacV1().ClusterRoles().Get(ctx, name+"-subscription-bundle", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
			return fmt.Errorf("an invalid bundle got its ClusterRole (%v)", err)
		}
		return nil
	})

	// Creating what was missing makes it valid without touching the bundle:
	// the creation wakes the bundle (see also subscription_key_changes_test.go).
	createSecret(t, ns, "etc-pki-entitlement", "e.pem")
	createConfigMap(t, ns, "satellite", "redhat.repo")
	framework.Eventually(t, 45*time.Second, func(ctx context.Context) error {
		cb, err := env.operator.SubscriptionV1alpha1().ClusterBundles().Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		return invalidIs(metav1.ConditionFalse, subscriptionv1alpha1.ReasonValid, "")(cb.Status.Conditions)
	})
}

// Dropping a Secret from a ClusterBundle revokes its share and the use
// grant at once, even while the bundle is invalid because a newly added
// Secret does not exist yet; what the spec still names keeps working.
func TestClusterBundleAccessIsRevokedWhileInvalid(t *testing.T) {
	dumpOnFailure(t)
	ctx := context.Background()
	shares := shareClient(t)
	ns := testNamespace(t, "cluster-bundle-revoke-")
	createSecret(t, ns, "ent-a", "a.pem")
	createSecret(t, ns, "ent-b", "b.pem")

	const name = "e2e-revoke"
	if _, err := env.operator.SubscriptionV1alpha1().ClusterBundles().Create(ctx, &subscriptionv1alpha1.ClusterBundle{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: subscriptionv1alpha1.ClusterBundleSpec{
			Entitlements: []subscriptionv1alpha1.ClusterReference{{Namespace: ns, Name: "ent-a"}, {Namespace: ns, Name: "ent-b"}},
		},
	}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = env.operator.SubscriptionV1alpha1().ClusterBundles().Delete(context.Background(), name, metav1.DeleteOptions{})
	})
	shareA, shareB := name+"-entitlement-"+ns+"-ent-a", name+"-entitlement-"+ns+"-ent-b"
	settledClusterBundle(t, name, func(cb *subscriptionv1alpha1.ClusterBundle) error {
		return invalidIs(metav1.ConditionFalse, subscriptionv1alpha1.ReasonValid, "")(cb.Status.Conditions)
	})

	framework.Eventually(t, 30*time.Second, func(ctx context.Context) error {
		cb, err := env.operator.SubscriptionV1alpha1().ClusterBundles().Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		cb.Spec.Entitlements = []subscriptionv1alpha1.ClusterReference{{Namespace: ns, Name: "ent-a"}, {Namespace: ns, Name: "not-yet"}}
		_, err = env.operator.SubscriptionV1alpha1().ClusterBundles().Update(ctx, cb, metav1.UpdateOptions{})
		return err
	})
	settledClusterBundle(t, name, func(cb *subscriptionv1alpha1.ClusterBundle) error {
		return invalidIs(metav1.ConditionTrue, subscriptionv1alpha1.ReasonMissingReference,
			fmt.Sprintf("secret %s/not-yet not found", ns))(cb.Status.Conditions)
	})
	framework.Eventually(t, 15*time.Second, func(ctx context.Context) error {
		if _, err := shares.SharedresourceV1alpha1().SharedSecrets().Get(ctx, shareB, metav1.GetOptions{}); !apierrors.IsNotFound(err) {
			return fmt.Errorf("SharedSecret %s of the dropped Secret is still there (%v)", shareB, err)
		}
		if _, err := shares.SharedresourceV1alpha1().SharedSecrets().Get(ctx, shareA, metav1.GetOptions{}); err != nil {
			return fmt.Errorf("SharedSecret %s of a Secret still referenced: %w", shareA, err)
		}
		role, err := env.kube.RbacV1().ClusterRoles().Get(ctx, name+"-subscription-bundle", metav1.GetOptions{})
		if err != nil {
			return err
		}
		for _, rule := range role.Rules {
			if slices.Contains(rule.Resources, "sharedsecrets") && !reflect.DeepEqual(rule.ResourceNames, []string{shareA}) {
				return fmt.Errorf("the role grants use of %v, want only %s", rule.ResourceNames, shareA)
			}
		}
		return nil
	})
}

func TestBundleCrossNamespaceReferenceIsInvalid(t *testing.T) {
	dumpOnFailure(t)
	ctx := context.Background()
	ns := testNamespace(t, "bundle-cross-")
	createSecret(t, ns, "local", "l.pem")

	if _, err := env.operator.SubscriptionV1alpha1().Bundles(ns).Create(ctx, &subscriptionv1alpha1.Bundle{
		ObjectMeta: metav1.ObjectMeta{Name: "cross"},
		Spec: subscriptionv1alpha1.BundleSpec{Entitlements: []subscriptionv1alpha1.LocalReference{
			{Name: "local"}, {Namespace: "openshift-config", Name: "etc-pki-entitlement"},
		}},
	}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	message := fmt.Sprintf("entitlement secret openshift-config/etc-pki-entitlement is not in the bundle's namespace %s: "+
		"projected volumes cannot read other namespaces; use a ClusterBundle", ns)
	framework.Eventually(t, 30*time.Second, func(ctx context.Context) error {
		b, err := env.operator.SubscriptionV1alpha1().Bundles(ns).Get(ctx, "cross", metav1.GetOptions{})
		if err != nil {
			return err
		}
		if b.Status.ObservedGeneration != b.Generation {
			return fmt.Errorf("observedGeneration %d, generation %d", b.Status.ObservedGeneration, b.Generation)
		}
		return invalidIs(metav1.ConditionTrue, subscriptionv1alpha1.ReasonCrossNamespace, message)(b.Status.Conditions)
	})

	// A valid one in the same namespace reports its key names.
	if _, err := env.operator.SubscriptionV1alpha1().Bundles(ns).Create(ctx, &subscriptionv1alpha1.Bundle{
		ObjectMeta: metav1.ObjectMeta{Name: "local"},
		Spec:       subscriptionv1alpha1.BundleSpec{Entitlements: []subscriptionv1alpha1.LocalReference{{Name: "local"}}},
	}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	framework.Eventually(t, 30*time.Second, func(ctx context.Context) error {
		b, err := env.operator.SubscriptionV1alpha1().Bundles(ns).Get(ctx, "local", metav1.GetOptions{})
		if err != nil {
			return err
		}
		if err := invalidIs(metav1.ConditionFalse, subscriptionv1alpha1.ReasonValid, "")(b.Status.Conditions); err != nil {
			return err
		}
		if want := []subscriptionv1alpha1.ResolvedReference{{Namespace: ns, Name: "local", Keys: []string{"l.pem"}}}; !reflect.DeepEqual(b.Status.Entitlements, want) {
			return fmt.Errorf("entitlements %+v, want %+v", b.Status.Entitlements, want)
		}
		return nil
	})
}

func TestConsoleYAMLSamplesArePublished(t *testing.T) {
	dumpOnFailure(t)
	console, err := consolev1client.NewForConfig(env.cp.Config)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"subscription-cluster-bundle-example":    "ClusterBundle",
		"subscription-namespaced-bundle-example": "Bundle",
	}
	framework.Eventually(t, 30*time.Second, func(ctx context.Context) error {
		for name, kind := range want {
			s, err := console.ConsoleYAMLSamples().Get(ctx, name, metav1.GetOptions{})
			if err != nil {
				return err
			}
			if s.Spec.TargetResource.APIVersion != "subscription.openshift.io/v1alpha1" || s.Spec.TargetResource.Kind != kind {
				return fmt.Errorf("%s targets %+v", name, s.Spec.TargetResource)
			}
			if !strings.Contains(string(s.Spec.YAML), "apiVersion: subscription.openshift.io/v1alpha1\nkind: "+kind+"\n") {
				return fmt.Errorf("%s yaml:\n%s", name, s.Spec.YAML)
			}
		}
		return nil
	})
	// The seed's samples say v1, which docs/subscriptions.md says is not served.
	if _, err := env.kube.Discovery().ServerResourcesForGroupVersion("subscription.openshift.io/v1"); !apierrors.IsNotFound(err) {
		t.Errorf("subscription.openshift.io/v1: %v, want it not served, as docs/subscriptions.md says", err)
	}
}

// A new operator process revisits every bundle on start, as the periodic
// resync does; with nothing changed it reads and writes nothing.
func TestClusterBundleAndBundleResyncWritesNothing(t *testing.T) {
	dumpOnFailure(t)
	ctx := context.Background()
	ns := testNamespace(t, "bundle-idle-")
	createSecret(t, ns, "ent", "e.pem")
	createConfigMap(t, ns, "repos", "redhat.repo")

	for _, cb := range []*subscriptionv1alpha1.ClusterBundle{{
		ObjectMeta: metav1.ObjectMeta{Name: "e2e-idle-valid"},
		Spec: subscriptionv1alpha1.ClusterBundleSpec{
			AggregateToClusterRoles: []string{"edit"},
			Entitlements:            []subscriptionv1alpha1.ClusterReference{{Namespace: ns, Name: "ent"}},
			YumRepositories:         []subscriptionv1alpha1.ClusterReference{{Namespace: ns, Name: "repos"}},
		},
	}, {
		ObjectMeta: metav1.ObjectMeta{Name: "e2e-idle-invalid"},
		Spec:       subscriptionv1alpha1.ClusterBundleSpec{Entitlements: []subscriptionv1alpha1.ClusterReference{{Namespace: ns, Name: "absent"}}},
	}} {
		if _, err := env.operator.SubscriptionV1alpha1().ClusterBundles().Create(ctx, cb, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		name := cb.Name
		t.Cleanup(func() {
			_ = env.operator.SubscriptionV1alpha1().ClusterBundles().Delete(context.Background(), name, metav1.DeleteOptions{})
		})
	}
	if _, err := env.operator.SubscriptionV1alpha1().Bundles(ns).Create(ctx, &subscriptionv1alpha1.Bundle{
		ObjectMeta: metav1.ObjectMeta{Name: "idle"},
		Spec:       subscriptionv1alpha1.BundleSpec{Entitlements: []subscriptionv1alpha1.LocalReference{{Name: "ent"}}},
	}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	settledClusterBundle(t, "e2e-idle-valid", func(cb *subscriptionv1alpha1.ClusterBundle) error {
		return invalidIs(metav1.ConditionFalse, subscriptionv1alpha1.ReasonValid, "")(cb.Status.Conditions)
	})
	settledClusterBundle(t, "e2e-idle-invalid", func(cb *subscriptionv1alpha1.ClusterBundle) error {
		return invalidIs(metav1.ConditionTrue, subscriptionv1alpha1.ReasonMissingReference, "secret "+ns+"/absent not found")(cb.Status.Conditions)
	})
	framework.Eventually(t, 30*time.Second, func(ctx context.Context) error {
		b, err := env.operator.SubscriptionV1alpha1().Bundles(ns).Get(ctx, "idle", metav1.GetOptions{})
		if err != nil {
			return err
		}
		return invalidIs(metav1.ConditionFalse, subscriptionv1alpha1.ReasonValid, "")(b.Status.Conditions)
	})
	waitNamespacesGone(t)
	time.Sleep(2 * time.Second)

	since := time.Now()
	p := replaceOperator(t, "operator-bundles-idle")
	waitLeader(t, p)
	framework.Eventually(t, 30*time.Second, func(context.Context) error {
		for _, c := range []string{"ClusterBundle", "Bundle", "ConsoleYAMLSamples"} {
			if !strings.Contains(p.Log(), "Caches are synced for "+c+" ") {
				return fmt.Errorf("%s has not started", c)
			}
		}
		return nil
	})
	// "No writes" means something only once the new operator has revisited
	// the bundles: it read their Secrets, "ent" once for the valid
	// ClusterBundle and once for the Bundle, "absent" for the invalid one.
	framework.Eventually(t, 30*time.Second, func(context.Context) error {
		requests, err := framework.Requests(env.cp.AuditLogPath, framework.OperatorUser, since)
		if err != nil {
			return err
		}
		gets := map[string]int{}
		for _, r := range requests {
			if r.Verb == "get" && r.ObjectRef != nil && r.ObjectRef.Resource == "secrets" && r.ObjectRef.Namespace == ns {
				gets[r.ObjectRef.Name]++
			}
		}
		if gets["ent"] < 2 || gets["absent"] < 1 {
			return fmt.Errorf("the new operator has not revisited every bundle: reads of secrets in %s since it started: %v", ns, gets)
		}
		return nil
	})
	time.Sleep(10 * time.Second)

	writes, err := operatorWrites(since)
	if err != nil {
		t.Fatal(err)
	}
	ours := map[string]bool{"clusterbundles": true, "bundles": true, "sharedsecrets": true, "sharedconfigmaps": true, "clusterroles": true, "consoleyamlsamples": true}
	for _, w := range writes {
		if w.ObjectRef != nil && ours[w.ObjectRef.Resource] {
			t.Errorf("unexpected write: %s", w)
		}
	}

	// And the check can fail: a deleted share is re-created, and seen.
	share := "e2e-idle-valid-entitlement-" + ns + "-ent"
	if err := shareClient(t).SharedresourceV1alpha1().SharedSecrets().Delete(ctx, share, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	expectOperatorCreated(t, since, "sharedsecrets", share)
}

// The bundle's name is the value of the cluster-bundle label on what is
// generated for it, and a label value is at most 63 characters: the API
// server refuses a longer name rather than the operator failing forever.
func TestClusterBundleNameLongerThanALabelValueIsRejected(t *testing.T) {
	dumpOnFailure(t)
	name := strings.Repeat("n", 64)
	_, err := env.operator.SubscriptionV1alpha1().ClusterBundles().Create(context.Background(), &subscriptionv1alpha1.ClusterBundle{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: subscriptionv1alpha1.ClusterBundleSpec{
			Entitlements: []subscriptionv1alpha1.ClusterReference{{Namespace: "openshift-config", Name: "etc-pki-entitlement"}},
		},
	}, metav1.CreateOptions{})
	if err == nil {
		_ = env.operator.SubscriptionV1alpha1().ClusterBundles().Delete(context.Background(), name, metav1.DeleteOptions{})
		t.Fatal("a ClusterBundle with a 64-character name was accepted")
	}
	const message = "a ClusterBundle name is at most 63 characters: it is the value of the " +
		"subscription.openshift.io/cluster-bundle label on the shares and ClusterRole generated for it"
	if !apierrors.IsInvalid(err) || !strings.Contains(err.Error(), message) {
		t.Fatalf("creating a ClusterBundle with a 64-character name: %v, want Invalid with %q", err, message)
	}
}

// The payload's workload-access-bundles-edit ClusterRole is aggregated into
// the built-in edit role: a developer who may edit a namespace may create
// Bundles there, and nowhere else.
func TestBundlesCanBeCreatedByNamespaceEditors(t *testing.T) {
	dumpOnFailure(t)
	ctx := context.Background()
	ns := testNamespace(t, "bundle-developer-")
	other := testNamespace(t, "bundle-elsewhere-")
	const user = "e2e-developer"
	grantEdit(t, ns, "developer-edit", rbacv1.Subject{APIGroup: rbacv1.GroupName, Kind: "User", Name: user})
	config := rest.CopyConfig(env.cp.Config)
	config.Impersonate.UserName = user
	developer, err := operatorclientset.NewForConfig(config)
	if err != nil {
		t.Fatal(err)
	}
	bundle := func() *subscriptionv1alpha1.Bundle {
		return &subscriptionv1alpha1.Bundle{
			ObjectMeta: metav1.ObjectMeta{Name: "mine"},
			Spec:       subscriptionv1alpha1.BundleSpec{Entitlements: []subscriptionv1alpha1.LocalReference{{Name: "etc-pki-entitlement"}}},
		}
	}

	// kube-controller-manager aggregates the payload's role into edit
	// asynchronously.
	framework.Eventually(t, 60*time.Second, func(ctx context.Context) error {
		_, err := developer.SubscriptionV1alpha1().Bundles(ns).Create(ctx, bundle(), metav1.CreateOptions{})
		return err
	})
	if _, err := developer.SubscriptionV1alpha1().Bundles(ns).Get(ctx, "mine", metav1.GetOptions{}); err != nil {
		t.Errorf("the developer cannot read the Bundle it created: %v", err)
	}
	if _, err := developer.SubscriptionV1alpha1().Bundles(other).Create(ctx, bundle(), metav1.CreateOptions{}); !apierrors.IsForbidden(err) {
		t.Errorf("creating a Bundle in a namespace the developer may not edit: %v, want Forbidden", err)
	}
}
