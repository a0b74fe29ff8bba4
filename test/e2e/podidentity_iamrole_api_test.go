package e2e

import (
	"context"
	"fmt"
	"os"
	"sort"
	"strings"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"

	podidentityv1alpha1 "github.com/openshift/cluster-workload-access-operator/pkg/apis/podidentity/v1alpha1"
)

// awsRolesDoc documents IAMRoleRequests, with examples an admin pastes.
const awsRolesDoc = "../../docs/aws-roles.md"

// leafPaths lists the fields of v as the mapping table writes them:
// a.b.c, lists as a[].b.
func leafPaths(prefix string, v any, into map[string]bool) {
	switch v := v.(type) {
	case map[string]any:
		if prefix == "metadata.labels" {
			into[prefix] = true
			return
		}
		for k, item := range v {
			p := k
			if prefix != "" {
				p = prefix + "." + k
			}
			leafPaths(p, item, into)
		}
	case []any:
		for _, item := range v {
			if _, scalar := item.(string); scalar {
				into[prefix] = true
				continue
			}
			leafPaths(prefix+"[]", item, into)
		}
	default:
		into[prefix] = true
	}
}

// docs/aws-roles.md translates the enhancement's CredentialsRequest into an
// IAMRoleRequest: every IAMRoleRequest on the page is accepted by the real
// API server exactly as written (no field dropped or unknown), and every
// field of the enhancement's example is in the page's mapping table.
func TestAWSRolesDocExamplesAreAccepted(t *testing.T) {
	dumpOnFailure(t)
	ensureWebhook(t) // the access-grants check judges the requests the API server accepts
	waitRoleRequestsChecked(t)
	ctx := context.Background()
	objects := docObjects(t, awsRolesDoc)
	client := dynamic.NewForConfigOrDie(env.cp.Config).Resource(podidentityv1alpha1.SchemeGroupVersion.WithResource("iamrolerequests"))
	page, err := os.ReadFile(awsRolesDoc)
	if err != nil {
		t.Fatal(err)
	}
	requests, seed := 0, 0
	for _, obj := range objects {
		switch obj.GetKind() {
		case "IAMRoleRequest":
			requests++
			// Strict: the API server refuses a field the CRD does not
			// have, rather than dropping it.
			_, err := client.Create(ctx, obj, metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}, FieldValidation: "Strict"})
			if err != nil {
				t.Errorf("%s: IAMRoleRequest %s is refused: %v", awsRolesDoc, obj.GetName(), err)
			}
		case "CredentialsRequest":
			seed++
			fields := map[string]bool{}
			leafPaths("", obj.Object, fields)
			var missing []string
			for f := range fields {
				if !strings.Contains(string(page), "| `"+f+"`") {
					missing = append(missing, f)
				}
			}
			sort.Strings(missing)
			if len(missing) > 0 {
				t.Errorf("%s: the mapping table has no row for the enhancement's %v", awsRolesDoc, missing)
			}
		}
	}
	if requests < 2 || seed != 1 {
		t.Errorf("%s holds %d IAMRoleRequests and %d CredentialsRequests; want the translated example and another, and the enhancement's", awsRolesDoc, requests, seed)
	}
}

// The CRD's own messages, as an admin sees them from the API server.
func TestIAMRoleRequestValidationMessages(t *testing.T) {
	dumpOnFailure(t)
	ensureWebhook(t) // the access-grants check judges the requests the API server accepts
	waitRoleRequestsChecked(t)
	ctx := context.Background()
	requests := env.operator.PodIdentityV1alpha1().IAMRoleRequests()
	valid := func(name string) *podidentityv1alpha1.IAMRoleRequest {
		return &podidentityv1alpha1.IAMRoleRequest{
			ObjectMeta: metav1.ObjectMeta{Name: name},
			Spec: podidentityv1alpha1.IAMRoleRequestSpec{
				Storage: podidentityv1alpha1.Storage{ServiceAccount: podidentityv1alpha1.ServiceAccountStorage{Namespace: "e2e-absent", Name: "reader"}},
				ProviderSpec: podidentityv1alpha1.AWSProviderSpec{StatementEntries: []podidentityv1alpha1.StatementEntry{
					{Effect: "Allow", Action: []string{"s3:GetObject"}, Resource: "arn:aws:s3:::e2e/*"},
				}},
			},
		}
	}
	refused := func(what string, err error, message string) {
		t.Helper()
		if !apierrors.IsInvalid(err) || !strings.Contains(err.Error(), message) {
			t.Errorf("%s: %v, want Invalid saying %q", what, err, message)
		}
	}
	dry := metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}}

	secret := valid("e2e-secret-storage")
	secret.Spec.Storage.Type = podidentityv1alpha1.StorageTypeSecret
	_, err := requests.Create(ctx, secret, dry)
	refused("storage.type Secret", err, "an IAMRoleRequest links a role to a ServiceAccount only: storage.type Secret "+
		"(IAM user keys in a Secret) is the cloud-credential operator's CredentialsRequest")

	// The enhancement's Secret form, as a reader pastes it (strict, as
	// kubectl sends): the message that points elsewhere, not a missing field.
	seedForm := []byte(`{"apiVersion":"podidentity.openshift.io/v1alpha1","kind":"IAMRoleRequest","metadata":{"name":"e2e-seed-secret"},` +
		`"spec":{"storage":{"type":"Secret","secret":{"namespace":"app","name":"aws-creds"}},"providerSpec":{"statementEntries":[` +
		`{"effect":"Allow","action":["s3:GetObject"],"resource":"*"}]}}}`)
	err = env.operator.PodIdentityV1alpha1().RESTClient().Post().Resource("iamrolerequests").Param("dryRun", "All").
		Param("fieldValidation", "Strict").Body(seedForm).Do(ctx).Error()
	refused("the enhancement's Secret form", err, "storage.type Secret (IAM user keys in a Secret) is the cloud-credential operator's CredentialsRequest")
	if err != nil && strings.Contains(err.Error(), "Required value") {
		t.Errorf("the enhancement's Secret form: %v, want no Required value ahead of the pointer", err)
	}
	noAccount := []byte(`{"apiVersion":"podidentity.openshift.io/v1alpha1","kind":"IAMRoleRequest","metadata":{"name":"e2e-no-account"},` +
		`"spec":{"storage":{},"providerSpec":{"statementEntries":[{"effect":"Allow","action":["s3:GetObject"],"resource":"*"}]}}}`)
	err = env.operator.PodIdentityV1alpha1().RESTClient().Post().Resource("iamrolerequests").Param("dryRun", "All").
		Body(noAccount).Do(ctx).Error()
	refused("no serviceAccount", err, "storage.serviceAccount is required")

	// A set of namespaces: selectors only over trust labels, which only
	// whoever may label namespacetrustlabels sets, and only with operators
	// that require the label.
	team := podidentityv1alpha1.NamespaceTrustLabelPrefix + "team"
	set := func(s *podidentityv1alpha1.ServiceAccountSetStorage) *podidentityv1alpha1.IAMRoleRequest {
		r := valid("e2e-set")
		r.Spec.Storage.ServiceAccount = podidentityv1alpha1.ServiceAccountStorage{}
		r.Spec.Storage.ServiceAccounts = s
		return r
	}
	selector := func(labels map[string]string, expressions ...podidentityv1alpha1.NamespaceTrustRequirement) *podidentityv1alpha1.ServiceAccountSetStorage {
		return &podidentityv1alpha1.ServiceAccountSetStorage{Name: "app", NamespaceSelector: &podidentityv1alpha1.NamespaceTrustSelector{MatchLabels: labels, MatchExpressions: expressions}}
	}
	for what, c := range map[string]struct {
		request *podidentityv1alpha1.IAMRoleRequest
		message string
	}{
		"a label outside the trust prefix": {set(selector(map[string]string{"team": "a"})),
			"namespaceSelector may use only label keys under trust.podidentity.openshift.io/"},
		"NotIn": {set(selector(nil, podidentityv1alpha1.NamespaceTrustRequirement{Key: team, Operator: "NotIn", Values: []string{"b"}})),
			"supported values"},
		"an empty selector": {set(selector(nil)), "namespaceSelector must not be empty"},
		"both a selector and a list": {set(&podidentityv1alpha1.ServiceAccountSetStorage{Name: "app", Namespaces: []string{"a"},
			NamespaceSelector: &podidentityv1alpha1.NamespaceTrustSelector{MatchLabels: map[string]string{team: "a"}}}),
			"storage.serviceAccounts needs exactly one of namespaceSelector and namespaces"},
		"both serviceAccount and serviceAccounts": {func() *podidentityv1alpha1.IAMRoleRequest {
			r := valid("e2e-both")
			r.Spec.Storage.ServiceAccounts = selector(map[string]string{team: "a"})
			return r
		}(), "storage.serviceAccount and storage.serviceAccounts exclude each other"},
	} {
		_, err := requests.Create(ctx, c.request, dry)
		refused(what, err, c.message)
	}
	for _, ok := range []*podidentityv1alpha1.IAMRoleRequest{set(selector(map[string]string{team: "a"})),
		set(selector(nil, podidentityv1alpha1.NamespaceTrustRequirement{Key: team, Operator: "In", Values: []string{"a", "b"}})),
		set(&podidentityv1alpha1.ServiceAccountSetStorage{Name: "app", Namespaces: []string{"a", "b"}})} {
		if _, err := requests.Create(ctx, ok, dry); err != nil {
			t.Errorf("a valid set %+v: %v", ok.Spec.Storage.ServiceAccounts, err)
		}
	}

	_, err = requests.Create(ctx, valid(strings.Repeat("n", 64)), dry)
	refused("a 64-character name", err, "an IAMRoleRequest name is at most 63 characters: it names the IAM role after the cluster's infrastructureName")
	if _, err := requests.Create(ctx, valid(strings.Repeat("n", 63)), dry); err != nil {
		t.Errorf("a 63-character name: %v", err)
	}

	// A condition written the cloud-credential operator's other way, a bare
	// string, is refused: pruned, the statement would grant more.
	bare := []byte(`{"apiVersion":"podidentity.openshift.io/v1alpha1","kind":"IAMRoleRequest","metadata":{"name":"e2e-bare-condition"},` +
		`"spec":{"storage":{"serviceAccount":{"namespace":"e2e-absent","name":"reader"}},"providerSpec":{"statementEntries":[` +
		`{"effect":"Allow","action":["s3:GetObject"],"resource":"*","policyCondition":{"StringEquals":{"aws:SourceVpc":"vpc-1"}}}]}}}`)
	err = env.operator.PodIdentityV1alpha1().RESTClient().Post().Resource("iamrolerequests").Param("dryRun", "All").Body(bare).Do(ctx).Error()
	refused("a policyCondition value that is not a list", err, "policyCondition")
	listed := valid("e2e-listed-condition")
	listed.Spec.ProviderSpec.StatementEntries[0].PolicyCondition = map[string]map[string][]string{"StringEquals": {"aws:SourceVpc": {"vpc-1"}}}
	if _, err := requests.Create(ctx, listed, dry); err != nil {
		t.Errorf("a policyCondition with a list: %v", err)
	}

	// The ServiceAccount cannot change once the role trusts it.
	created, err := requests.Create(ctx, valid("e2e-immutable-sa"), metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		// A controller's finalizer cannot be served here (no IAM): drop it.
		_, _ = requests.Patch(context.Background(), created.Name, types.MergePatchType, []byte(`{"metadata":{"finalizers":null}}`), metav1.PatchOptions{})
		_ = requests.Delete(context.Background(), created.Name, metav1.DeleteOptions{})
	})
	// The controller (once running) writes the request too: edit the
	// latest copy, again on a conflict.
	update := func(edit func(*podidentityv1alpha1.IAMRoleRequest)) error {
		for {
			latest, err := requests.Get(ctx, created.Name, metav1.GetOptions{})
			if err != nil {
				return err
			}
			edit(latest)
			_, err = requests.Update(ctx, latest, metav1.UpdateOptions{DryRun: []string{metav1.DryRunAll}})
			if !apierrors.IsConflict(err) {
				return err
			}
		}
	}
	for field, edit := range map[string]func(*podidentityv1alpha1.ServiceAccountStorage){
		"name":      func(s *podidentityv1alpha1.ServiceAccountStorage) { s.Name = "writer" },
		"namespace": func(s *podidentityv1alpha1.ServiceAccountStorage) { s.Namespace = "e2e-other" },
	} {
		err := update(func(r *podidentityv1alpha1.IAMRoleRequest) { edit(&r.Spec.Storage.ServiceAccount) })
		refused(fmt.Sprintf("changing storage.serviceAccount.%s", field), err,
			"storage.serviceAccount cannot change: the role's trust policy names it; create another IAMRoleRequest")
	}
	// The statements may change.
	if err := update(func(r *podidentityv1alpha1.IAMRoleRequest) {
		r.Spec.ProviderSpec.StatementEntries[0].Action = append(r.Spec.ProviderSpec.StatementEntries[0].Action, "s3:ListBucket")
	}); err != nil {
		t.Errorf("changing the statements: %v", err)
	}
}
