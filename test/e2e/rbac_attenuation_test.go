package e2e

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	operatorv1 "github.com/openshift/api/operator/v1"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apiextensionsclient "k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/rand"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/util/retry"

	apiaccessv1alpha1 "github.com/openshift/cluster-workload-access-operator/pkg/apis/apiaccess/v1alpha1"
	podidentityv1alpha1 "github.com/openshift/cluster-workload-access-operator/pkg/apis/podidentity/v1alpha1"
	scopesv1alpha1 "github.com/openshift/cluster-workload-access-operator/pkg/apis/scopes/v1alpha1"
	operatorclientset "github.com/openshift/cluster-workload-access-operator/pkg/generated/clientset/versioned"
	"github.com/openshift/cluster-workload-access-operator/test/framework"
)

// accessGrantsPolicy is the ValidatingAdmissionPolicy (and binding) that
// refuses these objects while the webhook's configuration is missing.
const accessGrantsPolicy = "workload-access-access-grants-checked"

var dryRun = metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}}

// asUser is the operator's clientset acting as a user, with the group
// every authenticated user has.
func asUser(t *testing.T, name string) operatorclientset.Interface {
	t.Helper()
	client, err := operatorclientset.NewForConfig(impersonating(name))
	if err != nil {
		t.Fatal(err)
	}
	return client
}

// impersonating is the control plane's config acting as user, with the
// group every authenticated user has.
func impersonating(user string) *rest.Config {
	config := rest.CopyConfig(env.cp.Config)
	config.Impersonate = rest.ImpersonationConfig{UserName: user, Groups: []string{"system:authenticated"}}
	return config
}

// grantGrantWriting lets user create and update the three kinds: RBAC's
// own check, before admission asks whether they may grant what they hold.
func grantGrantWriting(t *testing.T, user string) {
	t.Helper()
	grantClusterRole(t, user, "e2e-grant-writer-"+user,
		rbacv1.PolicyRule{APIGroups: []string{scopesv1alpha1.GroupName}, Resources: []string{"scopetemplates", "scopeinstances"}, Verbs: []string{"create", "update", "get"}},
		rbacv1.PolicyRule{APIGroups: []string{apiaccessv1alpha1.GroupName}, Resources: []string{"apiaccesspolicies"}, Verbs: []string{"create", "update", "get"}})
}

// grantClusterRole creates a ClusterRole named name with rules, binds it to
// user cluster-wide, and deletes both after t.
func grantClusterRole(t *testing.T, user, name string, rules ...rbacv1.PolicyRule) {
	t.Helper()
	role := &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: name}, Rules: rules}
	if _, err := env.kube.RbacV1().ClusterRoles().Create(context.Background(), role, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = env.kube.RbacV1().ClusterRoles().Delete(context.Background(), name, metav1.DeleteOptions{})
	})
	bindClusterRole(t, user, name, metav1.ObjectMeta{Name: name})
}

// bindClusterRole binds the ClusterRole role to user cluster-wide, with the
// binding's name or generateName from meta, until the test ends.
func bindClusterRole(t *testing.T, user, role string, meta metav1.ObjectMeta) {
	t.Helper()
	binding, err := env.kube.RbacV1().ClusterRoleBindings().Create(context.Background(), &rbacv1.ClusterRoleBinding{
		ObjectMeta: meta,
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: role},
		Subjects:   []rbacv1.Subject{{APIGroup: rbacv1.GroupName, Kind: "User", Name: user}},
	}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = env.kube.RbacV1().ClusterRoleBindings().Delete(context.Background(), binding.Name, metav1.DeleteOptions{})
	})
}

func grantingTemplate(name string, rules ...rbacv1.PolicyRule) *scopesv1alpha1.ScopeTemplate {
	return &scopesv1alpha1.ScopeTemplate{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: scopesv1alpha1.ScopeTemplateSpec{ClusterRoles: []scopesv1alpha1.ClusterRoleTemplate{{
			GenerateName: "e2e", Rules: rules,
			Subjects: []scopesv1alpha1.Subject{{APIGroup: rbacv1.GroupName, Kind: "User", Name: "e2e-nobody"}},
		}}},
	}
}

// wantRefused fails t unless err is a refusal containing every part.
func wantRefused(t *testing.T, what string, err error, parts ...string) {
	t.Helper()
	if err == nil {
		t.Fatalf("%s was admitted", what)
	}
	for _, p := range parts {
		if !strings.Contains(err.Error(), p) {
			t.Fatalf("%s: refusal %q does not contain %q", what, err.Error(), p)
		}
	}
}

// A user bound to edit in one namespace may grant, through these kinds,
// what edit gives them there and nothing more; a cluster admin may grant
// anything.
func TestNoOneGrantsMoreThanTheyHold(t *testing.T) {
	dumpOnFailure(t)
	ensureWebhook(t)
	ctx := context.Background()
	suffix := rand.String(5)
	user := "e2e-alice-" + suffix
	own := testNamespace(t, "attenuation-own-")
	other := testNamespace(t, "attenuation-other-")
	grantEdit(t, own, "e2e-alice-edit", rbacv1.Subject{APIGroup: rbacv1.GroupName, Kind: "User", Name: user})
	grantGrantWriting(t, user)
	alice := asUser(t, user)

	// The operator applies the configuration and the webhook answers: until
	// then the policy refuses, with another message.
	deleter := grantingTemplate("e2e-secrets-deleter-"+suffix, rbacv1.PolicyRule{APIGroups: []string{""}, Resources: []string{"secrets"}, Verbs: []string{"delete"}})
	framework.Eventually(t, time.Minute, func(ctx context.Context) error {
		_, err := alice.ScopesV1alpha1().ScopeTemplates().Create(ctx, deleter, dryRun)
		if err == nil || !strings.Contains(err.Error(), "you can only grant what you hold") {
			return fmt.Errorf("not refused by the check yet: %v", err)
		}
		return nil
	})
	t.Run("a template granting what the user lacks cluster-wide", func(t *testing.T) {
		_, err := alice.ScopesV1alpha1().ScopeTemplates().Create(ctx, deleter, metav1.CreateOptions{})
		wantRefused(t, "the ScopeTemplate", err, fmt.Sprintf(`ScopeTemplate %q grants verb "delete" on "secrets" (group "") cluster-wide, which user %q does not hold; you can only grant what you hold`, deleter.Name, user))
		if _, err := env.operator.ScopesV1alpha1().ScopeTemplates().Create(ctx, deleter, dryRun); err != nil {
			t.Fatalf("a cluster admin may grant it: %v", err)
		}
	})

	reader := grantingTemplate("e2e-configmap-reader-"+suffix, rbacv1.PolicyRule{APIGroups: []string{""}, Resources: []string{"configmaps"}, Verbs: []string{"get", "list"}})
	if _, err := env.operator.ScopesV1alpha1().ScopeTemplates().Create(ctx, reader, metav1.CreateOptions{}); err != nil {
		t.Fatalf("a cluster admin may create a template: %v", err)
	}
	t.Cleanup(func() {
		_ = env.operator.ScopesV1alpha1().ScopeTemplates().Delete(context.Background(), reader.Name, metav1.DeleteOptions{})
	})
	instance := func(name string, namespaces ...string) *scopesv1alpha1.ScopeInstance {
		return &scopesv1alpha1.ScopeInstance{ObjectMeta: metav1.ObjectMeta{Name: name},
			Spec: scopesv1alpha1.ScopeInstanceSpec{ScopeTemplateName: reader.Name, Namespaces: namespaces}}
	}
	t.Run("an instance into the user's own namespace, not another", func(t *testing.T) {
		mine := instance("e2e-mine-"+suffix, own)
		// Holding the rules is half of Kubernetes' rule for a RoleBinding:
		// edit gives them, not create on rolebindings; admin gives both.
		_, err := alice.ScopesV1alpha1().ScopeInstances().Create(ctx, mine, metav1.CreateOptions{})
		wantRefused(t, "the ScopeInstance of an editor", err, fmt.Sprintf(
			`ScopeInstance %q has bindings written: that needs verb "create" on "rolebindings" (group "rbac.authorization.k8s.io") in namespace %q (to create the bindings), which user %q does not hold`,
			mine.Name, own, user))
		bindBuiltin(t, own, "admin", user)
		framework.Eventually(t, 30*time.Second, func(ctx context.Context) error {
			_, err := alice.ScopesV1alpha1().ScopeInstances().Create(ctx, mine, metav1.CreateOptions{})
			return err
		})
		t.Cleanup(func() {
			_ = env.operator.ScopesV1alpha1().ScopeInstances().Delete(context.Background(), mine.Name, metav1.DeleteOptions{})
		})

		elsewhere := instance("e2e-elsewhere-"+suffix, other)
		_, err = alice.ScopesV1alpha1().ScopeInstances().Create(ctx, elsewhere, metav1.CreateOptions{})
		wantRefused(t, "the ScopeInstance into another namespace", err,
			fmt.Sprintf(`ScopeInstance %q grants or needs 3 permissions user %q does not hold: verb "create" on "rolebindings" (group "rbac.authorization.k8s.io") in namespace %q (to create the bindings); verb "get" on "configmaps" (group "") in namespace %q`,
				elsewhere.Name, user, other, other))

		// Widening her own instance to the other namespace is checked too.
		// (The operator writes the instance's status meanwhile: a conflict is
		// retried on a fresh copy.)
		err = retry.RetryOnConflict(retry.DefaultRetry, func() error {
			current, err := alice.ScopesV1alpha1().ScopeInstances().Get(ctx, mine.Name, metav1.GetOptions{})
			if err != nil {
				return err
			}
			current.Spec.Namespaces = []string{own, other}
			_, err = alice.ScopesV1alpha1().ScopeInstances().Update(ctx, current, metav1.UpdateOptions{})
			return err
		})
		wantRefused(t, "the widened ScopeInstance", err, fmt.Sprintf(`in namespace %q`, other))

		if _, err := env.operator.ScopesV1alpha1().ScopeInstances().Create(ctx, elsewhere, dryRun); err != nil {
			t.Fatalf("a cluster admin may bind it anywhere: %v", err)
		}
	})

	t.Run("a Bind policy over a CRD the user cannot fully use", func(t *testing.T) {
		crd := createWidgetCRD(t, "attenuation"+strings.ToLower(suffix))
		policy := &apiaccessv1alpha1.APIAccessPolicy{
			ObjectMeta: metav1.ObjectMeta{Name: "e2e-widgets-" + suffix},
			Spec: apiaccessv1alpha1.APIAccessPolicySpec{
				CRDs: apiaccessv1alpha1.CRDSelection{Names: []string{crd.Name}},
				Mode: apiaccessv1alpha1.ModeBind,
				Bindings: []apiaccessv1alpha1.AccessBinding{{
					Role: apiaccessv1alpha1.RoleAdmin, Namespaces: []string{own},
					Subjects: []apiaccessv1alpha1.Subject{{APIGroup: rbacv1.GroupName, Kind: "User", Name: "e2e-nobody"}},
				}},
			},
		}
		// What is missing cluster-wide is named first, and ends the check.
		_, err := alice.APIAccessV1alpha1().APIAccessPolicies().Create(ctx, policy, metav1.CreateOptions{})
		wantRefused(t, "the APIAccessPolicy", err, fmt.Sprintf(
			`APIAccessPolicy %q grants verb "get" on "customresourcedefinitions" named %q (group "apiextensions.k8s.io") cluster-wide, which user %q does not hold`,
			policy.Name, crd.Name, user))
		// Given get on the CRD, what she still lacks in her namespace is named.
		grantClusterRole(t, user, "e2e-crd-reader-"+suffix, rbacv1.PolicyRule{
			APIGroups: []string{"apiextensions.k8s.io"}, Resources: []string{"customresourcedefinitions"}, ResourceNames: []string{crd.Name}, Verbs: []string{"get"}})
		framework.Eventually(t, 30*time.Second, func(ctx context.Context) error {
			_, err := alice.APIAccessV1alpha1().APIAccessPolicies().Create(ctx, policy, dryRun)
			want := fmt.Sprintf(`APIAccessPolicy %q grants verb "*" on %q (group %q) in namespace %q, which user %q does not hold`,
				policy.Name, crd.Spec.Names.Plural, crd.Spec.Group, own, user)
			if err == nil || !strings.Contains(err.Error(), want) {
				return fmt.Errorf("want a refusal containing %q, got %v", want, err)
			}
			return nil
		})
		if _, err := env.operator.APIAccessV1alpha1().APIAccessPolicies().Create(ctx, policy, dryRun); err != nil {
			t.Fatalf("a cluster admin may create it: %v", err)
		}
	})

	// Someone who may write ScopeInstances but not read ScopeTemplates
	// learns nothing of a template from a refusal: not its rules, not
	// whether it exists.
	t.Run("a template the user may not read", func(t *testing.T) {
		carol := "e2e-carol-" + suffix
		grantClusterRole(t, carol, "e2e-instance-writer-"+suffix,
			rbacv1.PolicyRule{APIGroups: []string{scopesv1alpha1.GroupName}, Resources: []string{"scopeinstances"}, Verbs: []string{"create"}})
		var messages []string
		for _, name := range []string{reader.Name, "e2e-no-such-template-" + suffix} {
			probe := &scopesv1alpha1.ScopeInstance{ObjectMeta: metav1.ObjectMeta{Name: "e2e-probe-" + suffix},
				Spec: scopesv1alpha1.ScopeInstanceSpec{ScopeTemplateName: name, Namespaces: []string{own}}}
			var err error
			framework.Eventually(t, 30*time.Second, func(ctx context.Context) error {
				_, err = asUser(t, carol).ScopesV1alpha1().ScopeInstances().Create(ctx, probe, dryRun)
				if err == nil || !strings.Contains(err.Error(), "may not read") {
					return fmt.Errorf("not refused by the check yet: %v", err)
				}
				return nil
			})
			wantRefused(t, "an instance of "+name, err, fmt.Sprintf(
				`ScopeInstance %q names ScopeTemplate %q, which user %q may not read (verb "get" on "scopetemplates" named %q (group "operators.coreos.com") cluster-wide)`,
				probe.Name, name, carol, name))
			if strings.Contains(err.Error(), "configmaps") || strings.Contains(err.Error(), "exist") {
				t.Errorf("the refusal tells of the template: %v", err)
			}
			messages = append(messages, strings.ReplaceAll(err.Error(), name, "<template>"))
		}
		if messages[0] != messages[1] {
			t.Errorf("an existing and a missing template are refused differently:\n%s\n%s", messages[0], messages[1])
		}
	})

	// What cannot be expanded at admission (a template not created yet,
	// CRDs a ClusterExtension installs later) needs bind on every
	// ClusterRole, which a cluster admin holds and she does not.
	t.Run("what cannot be checked now", func(t *testing.T) {
		later := &scopesv1alpha1.ScopeInstance{ObjectMeta: metav1.ObjectMeta{Name: "e2e-later-" + suffix},
			Spec: scopesv1alpha1.ScopeInstanceSpec{ScopeTemplateName: "e2e-not-yet-" + suffix, Namespaces: []string{own}}}
		_, err := alice.ScopesV1alpha1().ScopeInstances().Create(ctx, later, metav1.CreateOptions{})
		wantRefused(t, "the ScopeInstance of a missing template", err, fmt.Sprintf(
			`ScopeInstance %q names ScopeTemplate "e2e-not-yet-%s", which does not exist (create it first), so what it grants cannot be checked now: only a requester who may bind any ClusterRole (verb "bind" on "clusterroles" (group "rbac.authorization.k8s.io") cluster-wide) may make it, which user %q may not`,
			later.Name, suffix, user))
		if _, err := env.operator.ScopesV1alpha1().ScopeInstances().Create(ctx, later, dryRun); err != nil {
			t.Fatalf("a cluster admin may: %v", err)
		}

		future := &apiaccessv1alpha1.APIAccessPolicy{
			ObjectMeta: metav1.ObjectMeta{Name: "e2e-future-" + suffix},
			Spec: apiaccessv1alpha1.APIAccessPolicySpec{
				CRDs: apiaccessv1alpha1.CRDSelection{ClusterExtension: "e2e-not-installed-" + suffix},
				Mode: apiaccessv1alpha1.ModeBind,
				Bindings: []apiaccessv1alpha1.AccessBinding{{
					Role: apiaccessv1alpha1.RoleAdmin, Subjects: []apiaccessv1alpha1.Subject{{APIGroup: rbacv1.GroupName, Kind: "User", Name: user}},
				}},
			},
		}
		_, err = alice.APIAccessV1alpha1().APIAccessPolicies().Create(ctx, future, metav1.CreateOptions{})
		wantRefused(t, "the APIAccessPolicy over a ClusterExtension not installed yet", err, fmt.Sprintf(
			`APIAccessPolicy %q selects the CRDs of ClusterExtension "e2e-not-installed-%s", including those it installs later (select CRDs by name to have them checked now)`,
			future.Name, suffix))
		if _, err := env.operator.APIAccessV1alpha1().APIAccessPolicies().Create(ctx, future, dryRun); err != nil {
			t.Fatalf("a cluster admin may: %v", err)
		}
	})
}

// createWidgetCRD creates a namespaced CRD widgets.<group>.example.com and
// deletes it after t.
func createWidgetCRD(t *testing.T, group string) *apiextensionsv1.CustomResourceDefinition {
	t.Helper()
	client := apiextensionsclient.NewForConfigOrDie(env.cp.Config)
	group += ".example.com"
	crd := &apiextensionsv1.CustomResourceDefinition{
		ObjectMeta: metav1.ObjectMeta{Name: "widgets." + group},
		Spec: apiextensionsv1.CustomResourceDefinitionSpec{
			Group: group, Scope: apiextensionsv1.NamespaceScoped,
			Names: apiextensionsv1.CustomResourceDefinitionNames{Plural: "widgets", Singular: "widget", Kind: "Widget", ListKind: "WidgetList"},
			Versions: []apiextensionsv1.CustomResourceDefinitionVersion{{Name: "v1", Served: true, Storage: true,
				Schema: &apiextensionsv1.CustomResourceValidation{OpenAPIV3Schema: &apiextensionsv1.JSONSchemaProps{Type: "object", XPreserveUnknownFields: ptrTo(true)}}}},
		},
	}
	created, err := client.ApiextensionsV1().CustomResourceDefinitions().Create(context.Background(), crd, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = client.ApiextensionsV1().CustomResourceDefinitions().Delete(context.Background(), crd.Name, metav1.DeleteOptions{})
	})
	return created
}

func ptrTo[T any](v T) *T { return &v }

// With the ValidatingWebhookConfiguration gone, nobody checks what these
// objects grant, so the API server's own policy refuses them, even from a
// cluster admin; once the operator restores the configuration they are
// checked and admitted again. With the configuration there but not
// sending deletes of IAMRoleRequests, so are the writes that move an
// IAMRoleRequest's trust without touching its spec (a confirmation, the
// finalizer's removal, a delete, while its namespace is pinned), and a
// label is admitted; with it missing, every write the policy matches is
// refused, an IAMRoleRequest's delete too.
func TestAccessGrantsWithoutTheWebhookConfigurationAreRefused(t *testing.T) {
	dumpOnFailure(t)
	ensureWebhook(t)
	waitRoleRequestsChecked(t)
	ctx := context.Background()
	template := grantingTemplate("e2e-unchecked-"+rand.String(5), rbacv1.PolicyRule{APIGroups: []string{""}, Resources: []string{"configmaps"}, Verbs: []string{"get"}})
	framework.Eventually(t, time.Minute, func(ctx context.Context) error {
		_, err := env.kube.AdmissionregistrationV1().ValidatingWebhookConfigurations().Get(ctx, framework.WebhookName, metav1.GetOptions{})
		return err
	})
	pinnedRequest := pinnedRoleRequest(t)
	pinnedSet := pinnedSetRoleRequest(t)
	setManagementState(t, operatorv1.Unmanaged)
	defer setManagementState(t, operatorv1.Managed)
	// Failing open, or no longer sending every one of these objects to the
	// check, is as good as missing: the policy refuses with its own message.
	shipped, err := env.kube.AdmissionregistrationV1().ValidatingWebhookConfigurations().Get(ctx, framework.WebhookName, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ignore := admissionregistrationv1.Ignore
	for _, edit := range []struct {
		name string
		edit func(*admissionregistrationv1.ValidatingWebhook)
	}{
		{"fails open", func(w *admissionregistrationv1.ValidatingWebhook) { w.FailurePolicy = &ignore }},
		{"no longer sends APIAccessPolicies", func(w *admissionregistrationv1.ValidatingWebhook) { w.Rules = w.Rules[:1] }},
		{"no longer sends updates", func(w *admissionregistrationv1.ValidatingWebhook) {
			for i := range w.Rules {
				w.Rules[i].Operations = []admissionregistrationv1.OperationType{admissionregistrationv1.Create}
			}
		}},
		{"selects objects by label", func(w *admissionregistrationv1.ValidatingWebhook) {
			w.ObjectSelector = &metav1.LabelSelector{MatchLabels: map[string]string{"checked": "yes"}}
		}},
		{"has a match condition", func(w *admissionregistrationv1.ValidatingWebhook) {
			w.MatchConditions = []admissionregistrationv1.MatchCondition{{Name: "never", Expression: "false"}}
		}},
		// Last: the configuration stays so for the IAMRoleRequest writes below.
		{"no longer sends deletes of IAMRoleRequests", func(w *admissionregistrationv1.ValidatingWebhook) {
			for i := range w.Rules {
				w.Rules[i].Operations = []admissionregistrationv1.OperationType{admissionregistrationv1.Create, admissionregistrationv1.Update}
			}
		}},
	} {
		vwc, err := env.kube.AdmissionregistrationV1().ValidatingWebhookConfigurations().Get(ctx, framework.WebhookName, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		vwc.Webhooks = []admissionregistrationv1.ValidatingWebhook{*shipped.Webhooks[0].DeepCopy()}
		edit.edit(&vwc.Webhooks[0])
		if _, err := env.kube.AdmissionregistrationV1().ValidatingWebhookConfigurations().Update(ctx, vwc, metav1.UpdateOptions{}); err != nil {
			t.Fatalf("%s: %v", edit.name, err)
		}
		framework.Eventually(t, 30*time.Second, func(ctx context.Context) error {
			_, err := env.operator.ScopesV1alpha1().ScopeTemplates().Create(ctx, template, dryRun)
			if err == nil || !strings.Contains(err.Error(), "no longer sends it fail-closed to the workload-access access grants check") {
				return fmt.Errorf("the configuration %s: not refused by the policy's check of the configuration yet: %v", edit.name, err)
			}
			return nil
		})
	}
	// With the configuration present but not sending deletes of
	// IAMRoleRequests, the writes that move a request's trust without
	// touching its spec are refused with the policy's message; a label,
	// which moves nothing, is not matched.
	requests := env.operator.PodIdentityV1alpha1().IAMRoleRequests()
	dry := metav1.PatchOptions{DryRun: []string{metav1.DryRunAll}}
	for what, patch := range map[string]string{
		"a confirmation":          fmt.Sprintf(`{"metadata":{"annotations":{%q:"some-uid"}}}`, podidentityv1alpha1.ConfirmedNamespaceUIDAnnotation),
		"the finalizer's removal": `{"metadata":{"finalizers":null}}`,
	} {
		_, err := requests.Patch(ctx, pinnedRequest, types.MergePatchType, []byte(patch), dry)
		wantRefused(t, what+" of a pinned IAMRoleRequest, the check not sent deletes", err, "no longer sends it fail-closed")
	}
	err = requests.Delete(ctx, pinnedRequest, metav1.DeleteOptions{DryRun: []string{metav1.DryRunAll}})
	wantRefused(t, "the delete of a pinned IAMRoleRequest, the check not sent deletes", err, "IAMRoleRequest "+pinnedRequest, "no longer sends it fail-closed")
	// A set request holds its namespaces in status.namespaces alone until
	// IAM answers (none here): its role may exist all the same.
	_, err = requests.Patch(ctx, pinnedSet, types.MergePatchType, []byte(`{"metadata":{"finalizers":null}}`), dry)
	wantRefused(t, "the finalizer's removal of a set IAMRoleRequest with pinned namespaces, the check not sent deletes", err, "no longer sends it fail-closed")
	err = requests.Delete(ctx, pinnedSet, metav1.DeleteOptions{DryRun: []string{metav1.DryRunAll}})
	wantRefused(t, "the delete of a set IAMRoleRequest with pinned namespaces, the check not sent deletes", err, "IAMRoleRequest "+pinnedSet, "no longer sends it fail-closed")
	if _, err := requests.Patch(ctx, pinnedRequest, types.MergePatchType, []byte(`{"metadata":{"labels":{"team":"a"}}}`), dry); err != nil {
		t.Errorf("a label on a pinned IAMRoleRequest, the check not sent deletes: %v", err)
	}

	// Put back as shipped (still Unmanaged), it is accepted again: the
	// check refuses the edits, not the configuration.
	vwc, err := env.kube.AdmissionregistrationV1().ValidatingWebhookConfigurations().Get(ctx, framework.WebhookName, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	vwc.Webhooks = shipped.Webhooks
	if _, err := env.kube.AdmissionregistrationV1().ValidatingWebhookConfigurations().Update(ctx, vwc, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	framework.Eventually(t, 30*time.Second, func(ctx context.Context) error {
		_, err := env.operator.ScopesV1alpha1().ScopeTemplates().Create(ctx, template, dryRun)
		return err
	})
	if err := env.kube.AdmissionregistrationV1().ValidatingWebhookConfigurations().Delete(ctx, framework.WebhookName, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	framework.Eventually(t, 30*time.Second, func(ctx context.Context) error {
		_, err := env.operator.ScopesV1alpha1().ScopeTemplates().Create(ctx, template, dryRun)
		if err == nil || !strings.Contains(err.Error(), accessGrantsPolicy) {
			return fmt.Errorf("not refused by the policy yet: %v", err)
		}
		return nil
	})
	_, err = env.operator.ScopesV1alpha1().ScopeTemplates().Create(ctx, template, metav1.CreateOptions{})
	wantRefused(t, "a ScopeTemplate with no check configured", err, accessGrantsPolicy)
	t.Logf("refused: %v", err)
	// Without its parameter the policy refuses every write it matches,
	// before its match conditions: a delete of an IAMRoleRequest too.
	err = env.operator.PodIdentityV1alpha1().IAMRoleRequests().Delete(ctx, pinnedRequest, metav1.DeleteOptions{DryRun: []string{metav1.DryRunAll}})
	wantRefused(t, "the delete of an IAMRoleRequest with no check configured", err, accessGrantsPolicy)

	setManagementState(t, operatorv1.Managed)
	framework.Eventually(t, time.Minute, func(ctx context.Context) error {
		_, err := env.operator.ScopesV1alpha1().ScopeTemplates().Create(ctx, template, dryRun)
		return err
	})
}

// pinnedRoleRequest is an admin's IAMRoleRequest for ServiceAccount app in
// a test namespace, once the operator has pinned that namespace (and added
// its finalizer).
func pinnedRoleRequest(t *testing.T) string {
	t.Helper()
	return pinnedRequest(t, "e2e-pinned-", func(ns string) podidentityv1alpha1.Storage {
		return podidentityv1alpha1.Storage{ServiceAccount: podidentityv1alpha1.ServiceAccountStorage{Namespace: ns, Name: "app"}}
	})
}

// pinnedSetRoleRequest is pinnedRoleRequest for a set listing one test
// namespace, pinned in status.namespaces.
func pinnedSetRoleRequest(t *testing.T) string {
	t.Helper()
	return pinnedRequest(t, "e2e-pinned-set-", func(ns string) podidentityv1alpha1.Storage {
		return podidentityv1alpha1.Storage{ServiceAccounts: &podidentityv1alpha1.ServiceAccountSetStorage{Name: "app", Namespaces: []string{ns}}}
	})
}

// pinnedRequest creates an admin's IAMRoleRequest whose storage is that
// of a new test namespace, and waits until the operator pinned it.
func pinnedRequest(t *testing.T, prefix string, storage func(namespace string) podidentityv1alpha1.Storage) string {
	t.Helper()
	ns := testNamespace(t, "iam-"+strings.TrimPrefix(prefix, "e2e-"))
	requests := env.operator.PodIdentityV1alpha1().IAMRoleRequests()
	created := adminRoleRequest(t, prefix+rand.String(5), storage(ns), nil)
	framework.Eventually(t, time.Minute, func(ctx context.Context) error {
		r, err := requests.Get(ctx, created.Name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		if (r.Status.NamespaceUID == "" && len(r.Status.Namespaces) == 0) || len(r.Finalizers) == 0 {
			return fmt.Errorf("status.namespaceUID %q, status.namespaces %v, finalizers %v: not pinned yet", r.Status.NamespaceUID, r.Status.Namespaces, r.Finalizers)
		}
		return nil
	})
	return created.Name
}
