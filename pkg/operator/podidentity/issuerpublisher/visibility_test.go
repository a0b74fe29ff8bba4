package issuerpublisher

import (
	"strings"
	"testing"

	configv1 "github.com/openshift/api/config/v1"
	operatorv1 "github.com/openshift/api/operator/v1"
	"github.com/openshift/library-go/pkg/operator/status"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/component-base/metrics/testutil"

	operatorv1alpha1 "github.com/openshift/cluster-workload-access-operator/pkg/apis/operator/v1alpha1"
	operatorlisters "github.com/openshift/cluster-workload-access-operator/pkg/generated/listers/operator/v1alpha1"
)

// TestIssuerMismatchIsOnTheClusterOperator: what `oc get clusteroperator
// workload-access` shows, computed as library-go's status controller
// computes the ClusterOperator's Available from the operator's conditions:
// a mismatch is in the message, with the runbook, and Available and
// Degraded keep their normal status; a match adds nothing.
func TestIssuerMismatchIsOnTheClusterOperator(t *testing.T) {
	for _, tc := range []struct {
		name string
		auth *configv1.Authentication
		want []string
	}{
		{"differs", authentication(awsIssuer + "/"), []string{
			`PodIdentityAvailable: pod identity injects AWS credentials that AWS STS refuses: Authentication/cluster spec.serviceAccountIssuer is "` + awsIssuer + `/" but the published issuer is "` + awsIssuer + `"`,
			IssuerMismatchRunbook}},
		{"http issuer", authentication("http://old.example.com"), []string{`"http://old.example.com"`, IssuerMismatchRunbook}},
		// An STS-mode cluster: its tokens carry ccoctl's issuer, which roles
		// trust; nothing to alert on.
		{"the cluster's own issuer", authentication("https://old.example.com"), nil},
		{"default issuer", authentication(""), []string{"the API server's default issuer", IssuerMismatchRunbook}},
		{"no Authentication", nil, []string{"Authentication/cluster does not exist", IssuerMismatchRunbook}},
		{"equal", authentication(awsIssuer), nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := healthy(t)
			in.auth = tc.auth
			f := newFixture(t, in)
			f.mustSync()
			_, st, _, _ := f.operator.GetOperatorState()
			available := status.UnionClusterCondition(configv1.OperatorAvailable, operatorv1.ConditionTrue, nil, st.Conditions...)
			degraded := status.UnionClusterCondition(configv1.OperatorDegraded, operatorv1.ConditionFalse, nil, st.Conditions...)
			if available.Status != configv1.ConditionTrue || degraded.Status != configv1.ConditionFalse {
				t.Errorf("Available=%s Degraded=%s (%s), want True and False", available.Status, degraded.Status, degraded.Message)
			}
			for _, part := range tc.want {
				if !strings.Contains(available.Message, part) {
					t.Errorf("Available message %q does not say %q", available.Message, part)
				}
			}
			if tc.want == nil && strings.Contains(available.Message, PodIdentityAvailable) {
				t.Errorf("a matching issuer adds %q", available.Message)
			}
		})
	}
}

func TestIssuerMismatchMetric(t *testing.T) {
	for _, tc := range []struct {
		name  string
		cond  *operatorv1.OperatorCondition
		value string
	}{
		{"differs", &operatorv1.OperatorCondition{Type: ServiceAccountIssuerMatches, Status: operatorv1.ConditionFalse, Reason: ReasonIssuerDiffers},
			`workload_access_pod_identity_issuer_mismatch{reason="ServiceAccountIssuerDiffers"} 1`},
		{"no Authentication", &operatorv1.OperatorCondition{Type: ServiceAccountIssuerMatches, Status: operatorv1.ConditionFalse, Reason: ReasonAuthenticationAbsent},
			`workload_access_pod_identity_issuer_mismatch{reason="AuthenticationMissing"} 1`},
		{"matches", &operatorv1.OperatorCondition{Type: ServiceAccountIssuerMatches, Status: operatorv1.ConditionTrue, Reason: "AsExpected"},
			`workload_access_pod_identity_issuer_mismatch{reason="AsExpected"} 0`},
		{"nothing published", &operatorv1.OperatorCondition{Type: ServiceAccountIssuerMatches, Status: operatorv1.ConditionFalse, Reason: ReasonNotPublished}, ""},
		{"no condition yet", nil, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			indexer := cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{})
			wa := &operatorv1alpha1.WorkloadAccess{ObjectMeta: metav1.ObjectMeta{Name: "cluster"}}
			if tc.cond != nil {
				wa.Status.Conditions = []operatorv1.OperatorCondition{*tc.cond}
			}
			if err := indexer.Add(wa); err != nil {
				t.Fatal(err)
			}
			want := ""
			if tc.value != "" {
				want = "# HELP workload_access_pod_identity_issuer_mismatch [ALPHA] " + "1 while the published pod identity issuer is not the cluster's service account issuer (AWS STS refuses the cluster's tokens), by reason; 0 while they match; absent while nothing is published." + "\n" +
					"# TYPE workload_access_pod_identity_issuer_mismatch gauge\n" + tc.value + "\n"
			}
			c := &issuerCollector{workloadAccesses: operatorlisters.NewWorkloadAccessLister(indexer)}
			if err := testutil.CustomCollectAndCompare(c, strings.NewReader(want), "workload_access_pod_identity_issuer_mismatch"); err != nil {
				t.Error(err)
			}
		})
	}
}

func TestBucketPolicyUnsafeMetric(t *testing.T) {
	const help = "# HELP workload_access_pod_identity_issuer_bucket_policy_unsafe [ALPHA] 1 while the policy of the pod identity issuer bucket lets anyone change the issuer documents or refuses them to readers, by reason; 0 while it lets everyone read them and nothing more; absent while it is not read.\n" +
		"# TYPE workload_access_pod_identity_issuer_bucket_policy_unsafe gauge\n"
	for _, tc := range []struct {
		name  string
		cond  operatorv1.OperatorCondition
		value string
	}{
		{"grants everyone more", operatorv1.OperatorCondition{Type: IssuerBucketPolicySafe, Status: operatorv1.ConditionFalse, Reason: ReasonPolicyGrantsEveryoneMore},
			`workload_access_pod_identity_issuer_bucket_policy_unsafe{reason="GrantsEveryoneMoreThanRead"} 1`},
		{"denies anonymous read", operatorv1.OperatorCondition{Type: IssuerBucketPolicySafe, Status: operatorv1.ConditionFalse, Reason: ReasonPolicyDeniesAnonymousRead},
			`workload_access_pod_identity_issuer_bucket_policy_unsafe{reason="DeniesAnonymousRead"} 1`},
		{"safe", operatorv1.OperatorCondition{Type: IssuerBucketPolicySafe, Status: operatorv1.ConditionTrue, Reason: "AsExpected"},
			`workload_access_pod_identity_issuer_bucket_policy_unsafe{reason="AsExpected"} 0`},
		{"not read", operatorv1.OperatorCondition{Type: IssuerBucketPolicySafe, Status: operatorv1.ConditionUnknown, Reason: ReasonPolicyNotRead}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			indexer := cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{})
			wa := &operatorv1alpha1.WorkloadAccess{ObjectMeta: metav1.ObjectMeta{Name: "cluster"}}
			wa.Status.Conditions = []operatorv1.OperatorCondition{tc.cond}
			if err := indexer.Add(wa); err != nil {
				t.Fatal(err)
			}
			want := ""
			if tc.value != "" {
				want = help + tc.value + "\n"
			}
			c := &issuerCollector{workloadAccesses: operatorlisters.NewWorkloadAccessLister(indexer)}
			if err := testutil.CustomCollectAndCompare(c, strings.NewReader(want), "workload_access_pod_identity_issuer_bucket_policy_unsafe"); err != nil {
				t.Error(err)
			}
		})
	}
}

// A bucket policy that lets anyone write the issuer documents shows in the
// ClusterOperator's Available message with its runbook; Available stays
// True and Degraded False, and the message goes once the statement does.
func TestUnsafeBucketPolicyIsOnTheClusterOperator(t *testing.T) {
	f := newFixture(t, healthy(t))
	f.mustSync()
	clusterConditions := func() (configv1.ClusterOperatorStatusCondition, configv1.ClusterOperatorStatusCondition) {
		_, st, _, _ := f.operator.GetOperatorState()
		return status.UnionClusterCondition(configv1.OperatorAvailable, operatorv1.ConditionTrue, nil, st.Conditions...),
			status.UnionClusterCondition(configv1.OperatorDegraded, operatorv1.ConditionFalse, nil, st.Conditions...)
	}
	bucket := f.s3.buckets["mycluster-workload-access-oidc"]
	clean := bucket.policy
	bucket.policy = strings.Replace(clean, `"Statement":[`, `"Statement":[{"Sid":"PlantedWrite","Effect":"Allow","Principal":"*","Action":"s3:PutObject","Resource":"arn:aws:s3:::mycluster-workload-access-oidc/*"},`, 1)
	f.clock.now = f.clock.now.Add(ResyncInterval)
	f.mustSync()
	available, degraded := clusterConditions()
	if available.Status != configv1.ConditionTrue || degraded.Status != configv1.ConditionFalse {
		t.Errorf("Available=%s Degraded=%s, want True and False", available.Status, degraded.Status)
	}
	for _, part := range []string{PodIdentityAvailable + ": the policy of S3 bucket mycluster-workload-access-oidc", `Sid "PlantedWrite"`, BucketPolicyUnsafeRunbook} {
		if !strings.Contains(available.Message, part) {
			t.Errorf("Available message %q does not say %q", available.Message, part)
		}
	}

	bucket.policy = clean
	f.clock.now = f.clock.now.Add(ResyncInterval)
	f.mustSync()
	if available, _ := clusterConditions(); strings.Contains(available.Message, PodIdentityAvailable) {
		t.Errorf("a safe policy still shows: %q", available.Message)
	}
}
