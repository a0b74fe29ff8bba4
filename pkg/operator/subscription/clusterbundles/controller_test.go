package clusterbundles

import (
	"context"
	"reflect"
	"strings"
	"testing"

	operatorv1 "github.com/openshift/api/operator/v1"
	sharedresourcev1alpha1 "github.com/openshift/api/sharedresource/v1alpha1"
	sharedresourcefake "github.com/openshift/client-go/sharedresource/clientset/versioned/fake"
	sharedresourcelisters "github.com/openshift/client-go/sharedresource/listers/sharedresource/v1alpha1"
	"github.com/openshift/library-go/pkg/controller/factory"
	"github.com/openshift/library-go/pkg/operator/events"
	"github.com/openshift/library-go/pkg/operator/v1helpers"
	authorizationv1 "k8s.io/api/authorization/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	kubefake "k8s.io/client-go/kubernetes/fake"
	rbacv1listers "k8s.io/client-go/listers/rbac/v1"
	clienttesting "k8s.io/client-go/testing"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/record"
	"k8s.io/utils/clock"
	"k8s.io/utils/ptr"

	operatorv1alpha1 "github.com/openshift/cluster-workload-access-operator/pkg/apis/operator/v1alpha1"
	subscriptionv1alpha1 "github.com/openshift/cluster-workload-access-operator/pkg/apis/subscription/v1alpha1"
	subscriptionfake "github.com/openshift/cluster-workload-access-operator/pkg/generated/clientset/versioned/fake"
	operatorlisters "github.com/openshift/cluster-workload-access-operator/pkg/generated/listers/operator/v1alpha1"
	subscriptionlisters "github.com/openshift/cluster-workload-access-operator/pkg/generated/listers/subscription/v1alpha1"
	"github.com/openshift/cluster-workload-access-operator/pkg/operator/frame/reconcileloop"
	"github.com/openshift/cluster-workload-access-operator/pkg/operator/subscription/bundlerefs"
)

func secret(namespace, name string, keys ...string) *corev1.Secret {
	s := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name}, Data: map[string][]byte{}}
	for _, k := range keys {
		s.Data[k] = []byte("secret value of " + k)
	}
	return s
}

func configMap(namespace, name string, keys ...string) *corev1.ConfigMap {
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name}, Data: map[string]string{}}
	for _, k := range keys {
		cm.Data[k] = "[repo]"
	}
	return cm
}

func clusterBundle(name string, aggregate []string, entitlements []subscriptionv1alpha1.ClusterReference, yum ...subscriptionv1alpha1.ClusterReference) *subscriptionv1alpha1.ClusterBundle {
	return &subscriptionv1alpha1.ClusterBundle{
		ObjectMeta: metav1.ObjectMeta{Name: name, UID: types.UID("uid-" + name), Generation: 1},
		Spec: subscriptionv1alpha1.ClusterBundleSpec{
			AggregateToClusterRoles: aggregate,
			Entitlements:            entitlements,
			YumRepositories:         yum,
		},
	}
}

func ref(namespace, name string) subscriptionv1alpha1.ClusterReference {
	return subscriptionv1alpha1.ClusterReference{Namespace: namespace, Name: name}
}

// fixture is the controller over fake clients, its listers rebuilt from
// those clients before every sync as informers would be.
type fixture struct {
	t        *testing.T
	kube     *kubefake.Clientset
	shares   *sharedresourcefake.Clientset
	subs     *subscriptionfake.Clientset
	recorder events.InMemoryRecorder
	// objectEvents are the Events recorded on ClusterBundles.
	objectEvents *record.FakeRecorder
	// spec is the operator's; tests change its management state.
	spec *operatorv1.OperatorSpec
	// The informers' caches, refilled from the clients before each sync.
	bundles, sharedSecrets, sharedConfigMaps, roles cache.Indexer
	loop                                            *reconcileloop.Loop[*subscriptionv1alpha1.ClusterBundle]
	// driverDenied ("secrets ns/name") is what the Shared Resource CSI
	// driver may not get; reviews are the access reviews asked.
	driverDenied map[string]bool
	reviews      []authorizationv1.SubjectAccessReviewSpec
	// workloadAccesses holds the WorkloadAccess, for the aggregation
	// default; aggregation reads it.
	workloadAccesses cache.Indexer
	aggregation      *aggregationDefault
}

func newFixture(t *testing.T, bundle *subscriptionv1alpha1.ClusterBundle, objects ...runtime.Object) *fixture {
	t.Helper()
	var kubeObjects, shareObjects []runtime.Object
	for _, o := range objects {
		switch o.(type) {
		case *sharedresourcev1alpha1.SharedSecret, *sharedresourcev1alpha1.SharedConfigMap:
			shareObjects = append(shareObjects, o)
		default:
			kubeObjects = append(kubeObjects, o)
		}
	}
	f := &fixture{
		t:        t,
		kube:     kubefake.NewClientset(kubeObjects...),
		shares:   sharedresourcefake.NewSimpleClientset(shareObjects...),
		subs:     subscriptionfake.NewSimpleClientset(bundle),
		recorder: events.NewInMemoryRecorder("test", clock.RealClock{}),

		objectEvents: record.NewFakeRecorder(100),
	}
	f.driverDenied = map[string]bool{}
	f.kube.PrependReactor("create", "subjectaccessreviews", f.review)
	f.spec = &operatorv1.OperatorSpec{ManagementState: operatorv1.Managed}
	operatorClient := v1helpers.NewFakeOperatorClient(f.spec, &operatorv1.OperatorStatus{}, nil)
	f.bundles, f.sharedSecrets, f.sharedConfigMaps, f.roles = indexer(t), indexer(t), indexer(t), indexer(t)
	c := newGenerator(f.subs.SubscriptionV1alpha1(), f.kube, f.shares,
		sharedresourcelisters.NewSharedSecretLister(f.sharedSecrets),
		sharedresourcelisters.NewSharedConfigMapLister(f.sharedConfigMaps),
		rbacv1listers.NewClusterRoleLister(f.roles), f.objectEvents)
	f.workloadAccesses = indexer(t)
	f.aggregation = &aggregationDefault{workloadAccesses: operatorlisters.NewWorkloadAccessLister(f.workloadAccesses),
		clusterBundles: subscriptionlisters.NewClusterBundleLister(f.bundles)}
	c.aggregation = f.aggregation
	f.loop = reconcileloop.NewLoop(ControllerName, source(nil, subscriptionlisters.NewClusterBundleLister(f.bundles)), c.syncBundle, operatorClient)
	return f
}

// review answers a SubjectAccessReview as the API server would for the
// driver, from driverDenied.
func (f *fixture) review(action clienttesting.Action) (bool, runtime.Object, error) {
	review := action.(clienttesting.CreateAction).GetObject().(*authorizationv1.SubjectAccessReview).DeepCopy()
	f.reviews = append(f.reviews, review.Spec)
	a := review.Spec.ResourceAttributes
	review.Status.Allowed = !f.driverDenied[a.Resource+" "+a.Namespace+"/"+a.Name]
	return true, review, nil
}

func replace(t *testing.T, i cache.Indexer, items []interface{}) {
	t.Helper()
	if err := i.Replace(items, ""); err != nil {
		t.Fatal(err)
	}
}

func indexer(t *testing.T, objects ...interface{}) cache.Indexer {
	i := cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{})
	for _, o := range objects {
		if err := i.Add(o); err != nil {
			t.Fatal(err)
		}
	}
	return i
}

// refresh fills the listers from the clients, keeping only labelled shares
// and roles as the real informers do.
func (f *fixture) refresh() {
	ctx := context.Background()
	bundles, err := f.subs.SubscriptionV1alpha1().ClusterBundles().List(ctx, metav1.ListOptions{})
	if err != nil {
		f.t.Fatal(err)
	}
	var items []interface{}
	for i := range bundles.Items {
		items = append(items, &bundles.Items[i])
	}
	replace(f.t, f.bundles, items)

	labelled := func(o metav1.Object) bool { _, ok := o.GetLabels()[BundleLabel]; return ok }
	secrets, _ := f.shares.SharedresourceV1alpha1().SharedSecrets().List(ctx, metav1.ListOptions{})
	items = nil
	for i := range secrets.Items {
		if labelled(&secrets.Items[i]) {
			items = append(items, &secrets.Items[i])
		}
	}
	replace(f.t, f.sharedSecrets, items)
	cms, _ := f.shares.SharedresourceV1alpha1().SharedConfigMaps().List(ctx, metav1.ListOptions{})
	items = nil
	for i := range cms.Items {
		if labelled(&cms.Items[i]) {
			items = append(items, &cms.Items[i])
		}
	}
	replace(f.t, f.sharedConfigMaps, items)
	roles, _ := f.kube.RbacV1().ClusterRoles().List(ctx, metav1.ListOptions{})
	items = nil
	for i := range roles.Items {
		if labelled(&roles.Items[i]) {
			items = append(items, &roles.Items[i])
		}
	}
	replace(f.t, f.roles, items)
}

type keyedContext struct {
	factory.SyncContext
	key string
}

func (k keyedContext) QueueKey() string { return k.key }

func (f *fixture) sync(name string) {
	f.t.Helper()
	f.refresh()
	f.kube.ClearActions()
	f.reviews = nil
	f.shares.ClearActions()
	f.subs.ClearActions()
	if err := f.loop.Sync(context.Background(), keyedContext{factory.NewSyncContext("test", f.recorder), name}); err != nil {
		f.t.Fatal(err)
	}
}

// writes are the write calls of the last sync.
func (f *fixture) writes() []string {
	var out []string
	for _, actions := range [][]clienttesting.Action{f.kube.Actions(), f.shares.Actions(), f.subs.Actions()} {
		for _, a := range actions {
			switch a.GetVerb() {
			case "get", "list", "watch":
				continue
			}
			// An access review is a question, stored nowhere.
			if a.GetResource().Resource == "subjectaccessreviews" {
				continue
			}
			w := a.GetVerb() + " " + a.GetResource().Resource
			if a.GetSubresource() != "" {
				w += "/" + a.GetSubresource()
			}
			out = append(out, w)
		}
	}
	return out
}

func (f *fixture) bundle(name string) *subscriptionv1alpha1.ClusterBundle {
	b, err := f.subs.SubscriptionV1alpha1().ClusterBundles().Get(context.Background(), name, metav1.GetOptions{})
	if err != nil {
		f.t.Fatal(err)
	}
	return b
}

func (f *fixture) role(name string) *rbacv1.ClusterRole {
	r, err := f.kube.RbacV1().ClusterRoles().Get(context.Background(), name, metav1.GetOptions{})
	if err != nil {
		f.t.Fatal(err)
	}
	return r
}

func (f *fixture) shareNames() []string {
	var out []string
	secrets, _ := f.shares.SharedresourceV1alpha1().SharedSecrets().List(context.Background(), metav1.ListOptions{})
	for _, s := range secrets.Items {
		out = append(out, "SharedSecret/"+s.Name)
	}
	cms, _ := f.shares.SharedresourceV1alpha1().SharedConfigMaps().List(context.Background(), metav1.ListOptions{})
	for _, s := range cms.Items {
		out = append(out, "SharedConfigMap/"+s.Name)
	}
	return out
}

func invalid(t *testing.T, b *subscriptionv1alpha1.ClusterBundle) *metav1.Condition {
	t.Helper()
	cond := meta.FindStatusCondition(b.Status.Conditions, subscriptionv1alpha1.ConditionInvalid)
	if cond == nil {
		t.Fatalf("no Invalid condition in %+v", b.Status)
	}
	return cond
}

func TestValidBundleCreatesSharesRoleAndStatus(t *testing.T) {
	b := clusterBundle("rhel", []string{"edit"},
		[]subscriptionv1alpha1.ClusterReference{ref("certs", "a"), ref("certs", "b")}, ref("certs", "satellite"))
	f := newFixture(t, b,
		secret("certs", "a", "a.pem", "a-key.pem"), secret("certs", "b", "b.pem"),
		configMap("certs", "satellite", "redhat.repo"))
	f.sync("rhel")

	if got, want := f.writes(), []string{
		"create clusterroles",
		"create sharedsecrets", "create sharedsecrets", "create sharedconfigmaps",
		"update clusterbundles/status",
	}; !reflect.DeepEqual(got, want) {
		t.Errorf("writes %v, want %v", got, want)
	}
	if got, want := f.shareNames(), []string{
		"SharedSecret/rhel-entitlement-certs-a", "SharedSecret/rhel-entitlement-certs-b",
		"SharedConfigMap/rhel-yum-certs-satellite",
	}; !reflect.DeepEqual(got, want) {
		t.Errorf("shares %v, want %v", got, want)
	}
	share, err := f.shares.SharedresourceV1alpha1().SharedSecrets().Get(context.Background(), "rhel-entitlement-certs-a", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if share.Spec.SecretRef != (sharedresourcev1alpha1.SharedSecretReference{Namespace: "certs", Name: "a"}) ||
		share.Labels[BundleLabel] != "rhel" || !ownedBy(share, b) || !*share.OwnerReferences[0].BlockOwnerDeletion {
		t.Errorf("share %+v", share)
	}

	role := f.role("rhel-subscription-bundle")
	if want := map[string]string{BundleLabel: "rhel", "rbac.authorization.k8s.io/aggregate-to-edit": "true"}; !reflect.DeepEqual(role.Labels, want) {
		t.Errorf("role labels %v, want %v", role.Labels, want)
	}
	wantRules := []rbacv1.PolicyRule{
		{Verbs: []string{"get"}, APIGroups: []string{"subscription.openshift.io"}, Resources: []string{"clusterbundles"}, ResourceNames: []string{"rhel"}},
		{Verbs: []string{"use"}, APIGroups: []string{"sharedresource.openshift.io"}, Resources: []string{"sharedsecrets"}, ResourceNames: []string{"rhel-entitlement-certs-a", "rhel-entitlement-certs-b"}},
		{Verbs: []string{"use"}, APIGroups: []string{"sharedresource.openshift.io"}, Resources: []string{"sharedconfigmaps"}, ResourceNames: []string{"rhel-yum-certs-satellite"}},
	}
	if !reflect.DeepEqual(role.Rules, wantRules) {
		t.Errorf("rules %+v, want %+v", role.Rules, wantRules)
	}
	if !ownedBy(role, b) {
		t.Errorf("role owners %v", role.OwnerReferences)
	}

	status := f.bundle("rhel").Status
	if cond := invalid(t, f.bundle("rhel")); cond.Status != metav1.ConditionFalse || cond.Reason != subscriptionv1alpha1.ReasonValid {
		t.Errorf("Invalid %+v", cond)
	}
	if status.ObservedGeneration != 1 || status.ClusterRole != "rhel-subscription-bundle" {
		t.Errorf("status %+v", status)
	}
	if want := []subscriptionv1alpha1.ShareReference{
		{Kind: "SharedConfigMap", Name: "rhel-yum-certs-satellite"},
		{Kind: "SharedSecret", Name: "rhel-entitlement-certs-a"},
		{Kind: "SharedSecret", Name: "rhel-entitlement-certs-b"},
	}; !reflect.DeepEqual(status.Shares, want) {
		t.Errorf("shares %+v, want %+v", status.Shares, want)
	}
	if want := []subscriptionv1alpha1.ResolvedReference{
		{Namespace: "certs", Name: "a", Keys: []string{"a-key.pem", "a.pem"}, Share: "rhel-entitlement-certs-a"},
		{Namespace: "certs", Name: "b", Keys: []string{"b.pem"}, Share: "rhel-entitlement-certs-b"},
	}; !reflect.DeepEqual(status.Entitlements, want) {
		t.Errorf("entitlements %+v, want %+v", status.Entitlements, want)
	}
	if want := []subscriptionv1alpha1.ResolvedReference{
		{Namespace: "certs", Name: "satellite", Keys: []string{"redhat.repo"}, Share: "rhel-yum-certs-satellite"},
	}; !reflect.DeepEqual(status.YumRepositories, want) {
		t.Errorf("yumRepositories %+v, want %+v", status.YumRepositories, want)
	}
	for _, e := range f.recorder.Events() {
		if strings.Contains(e.Message, "secret value") {
			t.Errorf("event %q leaks a secret value", e.Message)
		}
	}

	// Nothing changed: a resync reads, and writes nothing.
	f.sync("rhel")
	if w := f.writes(); len(w) != 0 {
		t.Errorf("an unchanged resync wrote %v", w)
	}
}

func TestMissingReferencesMakeTheBundleInvalidAndCreateNothing(t *testing.T) {
	b := clusterBundle("rhel", []string{"edit"},
		[]subscriptionv1alpha1.ClusterReference{ref("openshift-config", "etc-pki-entitlement"), ref("openshift-config", "present")},
		ref("openshift-config", "satellite"))
	f := newFixture(t, b, secret("openshift-config", "present", "p.pem"))
	f.sync("rhel")

	if got, want := f.writes(), []string{"update clusterbundles/status"}; !reflect.DeepEqual(got, want) {
		t.Errorf("writes %v, want %v", got, want)
	}
	cond := invalid(t, f.bundle("rhel"))
	if cond.Status != metav1.ConditionTrue || cond.Reason != subscriptionv1alpha1.ReasonMissingReference ||
		cond.Message != "secret openshift-config/etc-pki-entitlement not found; configmap openshift-config/satellite not found" {
		t.Errorf("Invalid %+v", cond)
	}
	if f.bundle("rhel").Status.ObservedGeneration != 1 {
		t.Errorf("observedGeneration %d", f.bundle("rhel").Status.ObservedGeneration)
	}
	if events := f.recorder.Events(); len(events) != 1 || events[0].Reason != "ClusterBundleInvalid" {
		t.Errorf("events %v", events)
	}

	f.sync("rhel")
	if w := f.writes(); len(w) != 0 {
		t.Errorf("an unchanged resync wrote %v", w)
	}
	if events := f.recorder.Events(); len(events) != 1 {
		t.Errorf("a still-invalid bundle emitted again: %v", events)
	}
}

func TestOverlappingKeysMakeTheBundleInvalid(t *testing.T) {
	b := clusterBundle("rhel", nil, []subscriptionv1alpha1.ClusterReference{ref("a", "x"), ref("a", "y")})
	f := newFixture(t, b, secret("a", "x", "k.pem", "x.pem"), secret("a", "y", "k.pem"))
	f.sync("rhel")
	cond := invalid(t, f.bundle("rhel"))
	if cond.Reason != subscriptionv1alpha1.ReasonOverlappingKeys || cond.Message != `key "k.pem" is in both secret a/x and secret a/y` {
		t.Errorf("Invalid %+v", cond)
	}
	if got := f.shareNames(); len(got) != 0 {
		t.Errorf("an invalid bundle got shares %v", got)
	}
}

func TestSpecUpdateRemovesAShareAndChangesAggregation(t *testing.T) {
	b := clusterBundle("rhel", []string{"edit", "admin"}, []subscriptionv1alpha1.ClusterReference{ref("certs", "a"), ref("certs", "b")})
	f := newFixture(t, b, secret("certs", "a", "a.pem"), secret("certs", "b", "b.pem"))
	f.sync("rhel")

	updated := f.bundle("rhel")
	updated.Spec.Entitlements = updated.Spec.Entitlements[:1]
	updated.Spec.AggregateToClusterRoles = []string{"view"}
	updated.Generation = 2
	if _, err := f.subs.SubscriptionV1alpha1().ClusterBundles().Update(context.Background(), updated, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	f.sync("rhel")

	if got, want := f.writes(), []string{"update clusterroles", "delete sharedsecrets", "update clusterbundles/status"}; !reflect.DeepEqual(got, want) {
		t.Errorf("writes %v, want %v", got, want)
	}
	if got, want := f.shareNames(), []string{"SharedSecret/rhel-entitlement-certs-a"}; !reflect.DeepEqual(got, want) {
		t.Errorf("shares %v, want %v", got, want)
	}
	role := f.role("rhel-subscription-bundle")
	if want := map[string]string{BundleLabel: "rhel", "rbac.authorization.k8s.io/aggregate-to-view": "true"}; !reflect.DeepEqual(role.Labels, want) {
		t.Errorf("role labels %v, want %v", role.Labels, want)
	}
	if got := role.Rules[1].ResourceNames; !reflect.DeepEqual(got, []string{"rhel-entitlement-certs-a"}) {
		t.Errorf("use rule names %v", got)
	}
	status := f.bundle("rhel").Status
	if status.ObservedGeneration != 2 || len(status.Shares) != 1 || len(status.Entitlements) != 1 {
		t.Errorf("status %+v", status)
	}
}

// Dropping a Secret from the spec revokes its share and use grant at once,
// even while the bundle is invalid for another reason (a newly added Secret
// that does not exist yet); what the spec still names stays.
func TestDroppedReferenceIsRevokedWhileTheBundleIsInvalid(t *testing.T) {
	b := clusterBundle("rhel", nil, []subscriptionv1alpha1.ClusterReference{ref("certs", "a"), ref("certs", "b")}, ref("certs", "repo"))
	f := newFixture(t, b, secret("certs", "a", "a.pem"), secret("certs", "b", "b.pem"), configMap("certs", "repo", "r.repo"))
	f.sync("rhel")

	updated := f.bundle("rhel")
	updated.Spec.Entitlements = []subscriptionv1alpha1.ClusterReference{ref("certs", "a"), ref("certs", "not-yet")}
	updated.Generation = 2
	if _, err := f.subs.SubscriptionV1alpha1().ClusterBundles().Update(context.Background(), updated, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	f.sync("rhel")

	if got, want := f.writes(), []string{"update clusterroles", "delete sharedsecrets", "update clusterbundles/status"}; !reflect.DeepEqual(got, want) {
		t.Errorf("writes %v, want %v", got, want)
	}
	if cond := invalid(t, f.bundle("rhel")); cond.Reason != subscriptionv1alpha1.ReasonMissingReference {
		t.Errorf("Invalid %+v", cond)
	}
	if got, want := f.shareNames(), []string{"SharedSecret/rhel-entitlement-certs-a", "SharedConfigMap/rhel-yum-certs-repo"}; !reflect.DeepEqual(got, want) {
		t.Errorf("shares %v, want %v", got, want)
	}
	role := f.role("rhel-subscription-bundle")
	if len(role.Rules) != 3 || !reflect.DeepEqual(role.Rules[1].ResourceNames, []string{"rhel-entitlement-certs-a"}) ||
		!reflect.DeepEqual(role.Rules[2].ResourceNames, []string{"rhel-yum-certs-repo"}) {
		t.Errorf("role rules %+v", role.Rules)
	}

	// Nothing more to revoke: a resync writes nothing.
	f.sync("rhel")
	if w := f.writes(); len(w) != 0 {
		t.Errorf("a resync of the invalid bundle wrote %v", w)
	}

	// Dropping every entitlement removes the rule, not just its names.
	updated = f.bundle("rhel")
	updated.Spec.Entitlements = []subscriptionv1alpha1.ClusterReference{ref("certs", "not-yet")}
	if _, err := f.subs.SubscriptionV1alpha1().ClusterBundles().Update(context.Background(), updated, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	f.sync("rhel")
	role = f.role("rhel-subscription-bundle")
	if len(role.Rules) != 2 || role.Rules[1].Resources[0] != "sharedconfigmaps" {
		t.Errorf("role rules %+v", role.Rules)
	}
}

// An invalid bundle is retried often: revoking reads the role from the
// cache, never live, so a bundle that never had one costs no API call.
func TestInvalidBundleWithoutARoleReadsNothingLive(t *testing.T) {
	b := clusterBundle("rhel", nil, []subscriptionv1alpha1.ClusterReference{ref("certs", "not-yet")})
	f := newFixture(t, b)
	f.sync("rhel")
	f.sync("rhel")
	for _, a := range f.kube.Actions() {
		if a.GetResource().Resource == "clusterroles" {
			t.Errorf("retrying an invalid bundle called the API server: %s clusterroles", a.GetVerb())
		}
	}
	if cond := invalid(t, f.bundle("rhel")); cond.Reason != subscriptionv1alpha1.ReasonMissingReference {
		t.Errorf("Invalid %+v", cond)
	}
}

func TestForeignShareIsAConflictAndNothingIsWritten(t *testing.T) {
	b := clusterBundle("rhel", nil, []subscriptionv1alpha1.ClusterReference{ref("certs", "a"), ref("certs", "b")})
	foreign := &sharedresourcev1alpha1.SharedSecret{
		ObjectMeta: metav1.ObjectMeta{Name: "rhel-entitlement-certs-b"},
		Spec:       sharedresourcev1alpha1.SharedSecretSpec{SecretRef: sharedresourcev1alpha1.SharedSecretReference{Namespace: "elsewhere", Name: "b"}},
	}
	f := newFixture(t, b, secret("certs", "a", "a.pem"), secret("certs", "b", "b.pem"), foreign)
	f.sync("rhel")

	if got, want := f.writes(), []string{"update clusterbundles/status"}; !reflect.DeepEqual(got, want) {
		t.Errorf("writes %v, want %v", got, want)
	}
	cond := invalid(t, f.bundle("rhel"))
	if cond.Reason != subscriptionv1alpha1.ReasonConflict || cond.Message != "SharedSecret rhel-entitlement-certs-b already exists and is not owned by ClusterBundle rhel" {
		t.Errorf("Invalid %+v", cond)
	}
	kept, err := f.shares.SharedresourceV1alpha1().SharedSecrets().Get(context.Background(), "rhel-entitlement-certs-b", metav1.GetOptions{})
	if err != nil || kept.Spec.SecretRef.Namespace != "elsewhere" {
		t.Errorf("the foreign share was changed: %+v %v", kept, err)
	}
}

func TestForeignClusterRoleIsAConflict(t *testing.T) {
	b := clusterBundle("rhel", nil, []subscriptionv1alpha1.ClusterReference{ref("certs", "a")})
	for name, foreign := range map[string]*rbacv1.ClusterRole{
		"someone else's": {ObjectMeta: metav1.ObjectMeta{Name: "rhel-subscription-bundle"}},
		// Labelled for the bundle and controlled by its kind and UID, but in
		// another API group (the operator-writes policy lets a cluster
		// admin set that): not the bundle's, never adopted.
		"a forged controller": {ObjectMeta: metav1.ObjectMeta{Name: "rhel-subscription-bundle", Labels: map[string]string{BundleLabel: "rhel"},
			OwnerReferences: []metav1.OwnerReference{{APIVersion: "evil.example/v1", Kind: "ClusterBundle", Name: "rhel", UID: b.UID, Controller: ptr.To(true)}}}},
	} {
		t.Run(name, func(t *testing.T) {
			f := newFixture(t, b, secret("certs", "a", "a.pem"), foreign)
			f.sync("rhel")
			if cond := invalid(t, f.bundle("rhel")); cond.Reason != subscriptionv1alpha1.ReasonConflict ||
				cond.Message != "ClusterRole rhel-subscription-bundle already exists and is not owned by ClusterBundle rhel" {
				t.Errorf("Invalid %+v", cond)
			}
			if got := f.shareNames(); len(got) != 0 {
				t.Errorf("shares %v were created despite the conflict", got)
			}
			if got := f.role("rhel-subscription-bundle"); len(got.Rules) != 0 || !reflect.DeepEqual(got.OwnerReferences, foreign.OwnerReferences) {
				t.Errorf("the foreign role was written: %+v", got)
			}
		})
	}
}

func TestOnlyManagedActs(t *testing.T) {
	b := clusterBundle("rhel", nil, []subscriptionv1alpha1.ClusterReference{ref("certs", "a")})
	for _, state := range []operatorv1.ManagementState{operatorv1.Unmanaged, operatorv1.Removed} {
		f := newFixture(t, b, secret("certs", "a", "a.pem"))
		f.spec.ManagementState = state
		f.sync("rhel")
		if w := f.writes(); len(w) != 0 {
			t.Errorf("%s: wrote %v", state, w)
		}
	}
}

func TestDeletedBundleIsLeftToTheGarbageCollector(t *testing.T) {
	b := clusterBundle("rhel", nil, []subscriptionv1alpha1.ClusterReference{ref("certs", "a")})
	f := newFixture(t, b, secret("certs", "a", "a.pem"))
	f.sync("gone")
	if w := f.writes(); len(w) != 0 {
		t.Errorf("wrote %v for an absent bundle", w)
	}
}

func TestShareNames(t *testing.T) {
	long := strings.Repeat("n", 200)
	for _, tc := range []struct {
		name string
		refs []bundlerefs.Ref
		want []string
	}{{
		name: "readable",
		refs: []bundlerefs.Ref{{Kind: bundlerefs.Secret, Namespace: "ns", Name: "s"}, {Kind: bundlerefs.ConfigMap, Namespace: "ns", Name: "s"}},
		want: []string{"b-entitlement-ns-s", "b-yum-ns-s"},
	}, {
		name: "too long ends in a hash",
		refs: []bundlerefs.Ref{{Kind: bundlerefs.Secret, Namespace: "ns", Name: long + ".x"}},
		want: []string{ShareName("b", bundlerefs.Ref{Kind: bundlerefs.Secret, Namespace: "ns", Name: long + ".x"})},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			got := shares("b", tc.refs)
			for i, s := range got {
				if s.name != tc.want[i] {
					t.Errorf("%v: %q, want %q", s.ref, s.name, tc.want[i])
				}
				if len(s.name) > maxNameLength {
					t.Errorf("%q is longer than %d", s.name, maxNameLength)
				}
			}
		})
	}

	long1 := ShareName(strings.Repeat("b", 200), bundlerefs.Ref{Kind: bundlerefs.Secret, Namespace: "ns", Name: long + "1"})
	long2 := ShareName(strings.Repeat("b", 200), bundlerefs.Ref{Kind: bundlerefs.Secret, Namespace: "ns", Name: long + "2"})
	if len(long1) != maxNameLength || long1 == long2 || strings.Contains(long1, "--") {
		t.Errorf("truncated names %q and %q", long1, long2)
	}

	// "a-b"/"c" and "a"/"b-c" read the same: both get a hash.
	colliding := shares("b", []bundlerefs.Ref{{Kind: bundlerefs.Secret, Namespace: "a-b", Name: "c"}, {Kind: bundlerefs.Secret, Namespace: "a", Name: "b-c"}})
	if colliding[0].name == colliding[1].name || !strings.HasPrefix(colliding[0].name, "b-entitlement-a-b-c-") {
		t.Errorf("colliding names %q, %q", colliding[0].name, colliding[1].name)
	}
}

func TestReferencesListSecretsThenConfigMaps(t *testing.T) {
	cb := &subscriptionv1alpha1.ClusterBundle{Spec: subscriptionv1alpha1.ClusterBundleSpec{
		Entitlements:    []subscriptionv1alpha1.ClusterReference{{Namespace: "config", Name: "ent"}},
		YumRepositories: []subscriptionv1alpha1.ClusterReference{{Namespace: "config", Name: "ent"}},
	}}
	want := []bundlerefs.Ref{
		{Kind: bundlerefs.Secret, Namespace: "config", Name: "ent"},
		{Kind: bundlerefs.ConfigMap, Namespace: "config", Name: "ent"},
	}
	if got := References(cb); !reflect.DeepEqual(got, want) {
		t.Errorf("references %v, want %v", got, want)
	}
	if got := References(&subscriptionv1alpha1.Bundle{}); got != nil {
		t.Errorf("references of another type %v", got)
	}
}

// drainObjectEvents returns the Events recorded on ClusterBundles since the
// last call, as "<type> <reason>".
func (f *fixture) drainObjectEvents() []string {
	var out []string
	for {
		select {
		case e := <-f.objectEvents.Events:
			fields := strings.Fields(e)
			out = append(out, fields[0]+" "+fields[1])
		default:
			return out
		}
	}
}

// What the owner of a ClusterBundle sees with `oc describe`: an Event for
// every share created or deleted, for validity turning, and for access
// revoked; a resync with nothing changed records none.
func TestClusterBundleEventsFollowTransitions(t *testing.T) {
	b := clusterBundle("rhel", nil, []subscriptionv1alpha1.ClusterReference{ref("certs", "a"), ref("certs", "b")})
	f := newFixture(t, b, secret("certs", "a", "a.pem"), secret("certs", "b", "b.pem"))
	f.sync("rhel")
	if got, want := f.drainObjectEvents(), []string{
		"Normal SharedSecretCreated", "Normal SharedSecretCreated", "Normal ClusterRoleCreated", "Normal Valid",
	}; !reflect.DeepEqual(got, want) {
		t.Errorf("first sync: events %v, want %v", got, want)
	}
	f.sync("rhel")
	if got := f.drainObjectEvents(); len(got) != 0 {
		t.Errorf("a resync recorded %v", got)
	}

	updated := f.bundle("rhel")
	updated.Spec.Entitlements = []subscriptionv1alpha1.ClusterReference{ref("certs", "a"), ref("certs", "not-yet")}
	updated.Generation = 2
	if _, err := f.subs.SubscriptionV1alpha1().ClusterBundles().Update(context.Background(), updated, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	f.sync("rhel")
	if got, want := f.drainObjectEvents(), []string{
		"Normal AccessRevoked", "Normal SharedSecretDeleted", "Warning " + subscriptionv1alpha1.ReasonMissingReference,
	}; !reflect.DeepEqual(got, want) {
		t.Errorf("after dropping a Secret and naming a missing one: events %v, want %v", got, want)
	}
	f.sync("rhel")
	if got := f.drainObjectEvents(); len(got) != 0 {
		t.Errorf("a resync of the invalid bundle recorded %v", got)
	}
}

// The WorkloadAccess's default aggregation applies to a ClusterBundle that
// names no role; one that names roles keeps exactly those. A change of the
// default revisits only the former, and a WorkloadAccess event that does not
// change it (its status, written by every controller) revisits none.
func TestDefaultAggregation(t *testing.T) {
	b := clusterBundle("rhel", nil, []subscriptionv1alpha1.ClusterReference{ref("certs", "a")})
	f := newFixture(t, b, secret("certs", "a", "a.pem"))
	own := clusterBundle("own", []string{"view"}, []subscriptionv1alpha1.ClusterReference{ref("certs", "a")})
	if _, err := f.subs.SubscriptionV1alpha1().ClusterBundles().Create(context.Background(), own, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	wa := &operatorv1alpha1.WorkloadAccess{ObjectMeta: metav1.ObjectMeta{Name: "cluster"},
		Spec: operatorv1alpha1.WorkloadAccessSpec{Subscriptions: operatorv1alpha1.SubscriptionsSpec{DefaultAggregateToClusterRoles: []string{"edit"}}}}
	if err := f.workloadAccesses.Add(wa); err != nil {
		t.Fatal(err)
	}
	f.sync("rhel")
	f.sync("own")
	if got, want := f.role("rhel-subscription-bundle").Labels, map[string]string{BundleLabel: "rhel", AggregateLabelPrefix + "edit": "true"}; !reflect.DeepEqual(got, want) {
		t.Errorf("a bundle naming no role: labels %v, want %v", got, want)
	}
	if got, want := f.role("own-subscription-bundle").Labels, map[string]string{BundleLabel: "own", AggregateLabelPrefix + "view": "true"}; !reflect.DeepEqual(got, want) {
		t.Errorf("a bundle naming its roles: labels %v, want %v", got, want)
	}

	if keys := f.aggregation.changedKeys(wa); !reflect.DeepEqual(keys, []string{"rhel"}) {
		t.Errorf("first event: keys %v, want [rhel]", keys)
	}
	statusOnly := wa.DeepCopy()
	statusOnly.Status.ObservedGeneration = 7
	if keys := f.aggregation.changedKeys(statusOnly); keys != nil {
		t.Errorf("a status write revisits %v", keys)
	}
	changed := wa.DeepCopy()
	changed.Spec.Subscriptions.DefaultAggregateToClusterRoles = []string{"admin", "edit"}
	if err := f.workloadAccesses.Update(changed); err != nil {
		t.Fatal(err)
	}
	if keys := f.aggregation.changedKeys(changed); !reflect.DeepEqual(keys, []string{"rhel"}) {
		t.Errorf("a changed default revisits %v, want [rhel]", keys)
	}
	f.sync("rhel")
	if got, want := f.role("rhel-subscription-bundle").Labels, map[string]string{BundleLabel: "rhel", AggregateLabelPrefix + "admin": "true", AggregateLabelPrefix + "edit": "true"}; !reflect.DeepEqual(got, want) {
		t.Errorf("after the default changed: labels %v, want %v", got, want)
	}
	// Unset again: the labels go.
	unset := changed.DeepCopy()
	unset.Spec.Subscriptions.DefaultAggregateToClusterRoles = nil
	if err := f.workloadAccesses.Update(unset); err != nil {
		t.Fatal(err)
	}
	f.sync("rhel")
	if got, want := f.role("rhel-subscription-bundle").Labels, map[string]string{BundleLabel: "rhel"}; !reflect.DeepEqual(got, want) {
		t.Errorf("after the default was unset: labels %v, want %v", got, want)
	}
}
