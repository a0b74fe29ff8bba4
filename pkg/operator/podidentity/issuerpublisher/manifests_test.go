package issuerpublisher

import (
	"bytes"
	"errors"
	"io"
	"maps"
	"os"
	"reflect"
	"slices"
	"testing"

	rbacv1 "k8s.io/api/rbac/v1"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/yaml"

	"github.com/openshift/cluster-workload-access-operator/pkg/operator/frame/operatorclient"
	"github.com/openshift/cluster-workload-access-operator/pkg/operator/podidentity"
	"github.com/openshift/cluster-workload-access-operator/pkg/operator/podidentity/issuer"
)

// iamAction is the IAM action S3 authorizes each objectStore call with.
var iamAction = map[string]string{
	"HeadBucket":           "s3:ListBucket",
	"CreateBucket":         "s3:CreateBucket",
	"GetPublicAccessBlock": "s3:GetBucketPublicAccessBlock",
	"PutPublicAccessBlock": "s3:PutBucketPublicAccessBlock",
	"GetBucketPolicy":      "s3:GetBucketPolicy",
	"PutBucketPolicy":      "s3:PutBucketPolicy",
	"GetObject":            "s3:GetObject",
	"PutObject":            "s3:PutObject",
}

type credentialsRequest struct {
	Metadata struct {
		Name, Namespace string
		Annotations     map[string]string
	}
	Spec struct {
		SecretRef struct {
			Name, Namespace string
		} `json:"secretRef"`
		ServiceAccountNames []string `json:"serviceAccountNames"`
		ProviderSpec        struct {
			Kind             string
			StatementEntries []struct {
				Effect          string
				Action          []string
				Resource        string
				PolicyCondition map[string]any `json:"policyCondition"`
			} `json:"statementEntries"`
		} `json:"providerSpec"`
	}
}

func readCredentialsRequest(t *testing.T) credentialsRequest {
	t.Helper()
	data, err := os.ReadFile("../../../../manifests/0000_50_workload-access_02_credentialsrequest.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var cr credentialsRequest
	if err := yaml.Unmarshal(data, &cr); err != nil {
		t.Fatal(err)
	}
	return cr
}

// objectActions are the IAM actions on objects; the others are on buckets.
var objectActions = map[string]bool{"s3:GetObject": true, "s3:PutObject": true}

// The CredentialsRequest grants exactly the calls objectStore makes, no
// more: bucket actions on the issuer buckets, object actions on the two
// documents in them.
func TestCredentialsRequestGrantsExactlyTheCallsMade(t *testing.T) {
	cr := readCredentialsRequest(t)
	if cr.Spec.SecretRef.Name != CredentialsSecret || cr.Spec.SecretRef.Namespace != operatorclient.OperatorNamespace ||
		cr.Metadata.Name != CredentialsSecret || cr.Metadata.Namespace != "openshift-cloud-credential-operator" ||
		cr.Spec.ProviderSpec.Kind != "AWSProviderSpec" || cr.Metadata.Annotations["capability.openshift.io/name"] != "CloudCredential" {
		t.Errorf("CredentialsRequest %+v", cr)
	}

	var want []string
	store := reflect.TypeFor[objectStore]()
	for i := range store.NumMethod() {
		action, ok := iamAction[store.Method(i).Name]
		if !ok {
			t.Fatalf("objectStore.%s has no IAM action here: add it, and to the CredentialsRequest", store.Method(i).Name)
		}
		want = append(want, action)
	}
	slices.Sort(want)
	// podidentity.Read refuses, on AWS S3, a bucket these do not cover.
	buckets := "arn:*:s3:::" + podidentity.CredentialsBucketPattern
	var documents []string
	for _, key := range []string{issuer.DiscoveryPath, issuer.KeysPath} {
		documents = append(documents, buckets+"/"+key)
	}
	granted := map[string][]string{}
	for _, entry := range cr.Spec.ProviderSpec.StatementEntries {
		if entry.Effect != "Allow" || entry.PolicyCondition != nil {
			t.Errorf("statement %+v: only unconditional Allow", entry)
		}
		for _, action := range entry.Action {
			granted[action] = append(granted[action], entry.Resource)
		}
	}
	for action, resources := range granted {
		slices.Sort(resources)
		wantResources := []string{buckets}
		if objectActions[action] {
			wantResources = documents
		}
		if !slices.Equal(resources, wantResources) {
			t.Errorf("%s granted on %v, want %v", action, resources, wantResources)
		}
	}
	if got := slices.Sorted(maps.Keys(granted)); !slices.Equal(got, want) {
		t.Errorf("granted %v, the publisher calls %v", got, want)
	}
}

// The grant reaches the buckets named as this operator names them and no
// bucket named as other OpenShift tooling names issuer buckets (ccoctl's
// "<name>-oidc", which the grant once covered): credentials taken from one
// cluster must not rewrite the keys another cluster's STS trusts. Nor any
// object but the two documents.
func TestCredentialsRequestReachesOnlyThisOperatorsIssuerDocuments(t *testing.T) {
	if podidentity.CredentialsBucketPattern != "*-workload-access-oidc" {
		t.Errorf("the issuer buckets are %q: widening them needs a review of docs/security.md", podidentity.CredentialsBucketPattern)
	}
	var resources []string
	for _, entry := range readCredentialsRequest(t).Spec.ProviderSpec.StatementEntries {
		resources = append(resources, entry.Resource)
	}
	covers := func(name string) bool {
		return slices.ContainsFunc(resources, func(r string) bool { return wildcardMatch(r, "arn:aws:s3:::"+name) })
	}
	for _, bucket := range []string{"mycluster-x7k2p-oidc", "mycluster-oidc", "hypershift-oidc", "rosa-oidc", "oidc", "mycluster-x7k2p-workload-access-oidc-old"} {
		for _, name := range []string{bucket, bucket + "/keys.json", bucket + "/.well-known/openid-configuration", bucket + "/openid/v1/jwks"} {
			if covers(name) {
				t.Errorf("the CredentialsRequest reaches %s, which is not this operator's", name)
			}
		}
	}
	ours := "mycluster-x7k2p" + podidentity.DefaultBucketNameSuffix
	for _, name := range []string{ours, ours + "/keys.json", ours + "/.well-known/openid-configuration"} {
		if !covers(name) {
			t.Errorf("the CredentialsRequest does not reach %s", name)
		}
	}
	for _, name := range []string{ours + "/index.html", ours + "/keys.json.bak", ours + "/x/keys.json"} {
		if covers(name) {
			t.Errorf("the CredentialsRequest reaches %s, which the publisher never writes", name)
		}
	}
}

// The operator's RBAC lets the publisher's informers list and watch their
// one object each, by name, and read the Authentication.
func TestRBACGrantsThePublishersReadsByName(t *testing.T) {
	data, err := os.ReadFile("../../../../manifests/0000_50_workload-access_03_rbac.yaml")
	if err != nil {
		t.Fatal(err)
	}
	type grant struct{ namespace, resource, name, verb string }
	granted := map[grant]bool{}
	decoder := utilyaml.NewYAMLOrJSONDecoder(bytes.NewReader(data), 4096)
	for {
		var role rbacv1.Role // a ClusterRole decodes the same
		if err := decoder.Decode(&role); err != nil {
			if errors.Is(err, io.EOF) {
				break
			}
			t.Fatal(err)
		}
		if role.Kind != "Role" && role.Kind != "ClusterRole" {
			continue
		}
		for _, rule := range role.Rules {
			for _, resource := range rule.Resources {
				for _, verb := range rule.Verbs {
					names := rule.ResourceNames
					if len(names) == 0 {
						names = []string{"*"}
					}
					for _, name := range names {
						granted[grant{role.Namespace, resource, name, verb}] = true
					}
				}
			}
		}
	}
	allows := func(namespace, resource, name, verb string) bool {
		for _, ns := range []string{namespace, ""} { // a ClusterRole covers every namespace
			if granted[grant{ns, resource, name, verb}] || granted[grant{ns, resource, "*", verb}] {
				return true
			}
		}
		return false
	}
	for _, verb := range []string{"get", "list", "watch"} {
		if !allows(SigningCertsNamespace, "configmaps", SigningCertsConfigMap, verb) {
			t.Errorf("may not %s ConfigMap %s/%s", verb, SigningCertsNamespace, SigningCertsConfigMap)
		}
		if !allows(operatorclient.OperatorNamespace, "secrets", CredentialsSecret, verb) {
			t.Errorf("may not %s Secret %s/%s", verb, operatorclient.OperatorNamespace, CredentialsSecret)
		}
		if !allows("", "authentications", "cluster", verb) {
			t.Errorf("may not %s authentications", verb)
		}
	}
	if !allows("", "workloadaccesses/status", "cluster", "patch") {
		t.Error("may not apply workloadaccesses/status")
	}
	// The publisher's own rules name its two objects; the operator's
	// cluster-wide list of Secrets and ConfigMaps is the bundle controllers'
	// (metadata only, docs/security.md), and test/e2e's permissions golden
	// fails when any grant widens.
}
