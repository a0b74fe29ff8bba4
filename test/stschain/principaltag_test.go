package stschain

import (
	"context"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"

	podidentityv1alpha1 "github.com/openshift/cluster-workload-access-operator/pkg/apis/podidentity/v1alpha1"
)

const (
	// byNamespaceBucket holds one prefix per namespace, each readable by
	// that namespace's roles only.
	byNamespaceBucket = "stschain-by-namespace"
	// The tags every role carries, that policies grant by as
	// aws:PrincipalTag/<key>.
	clusterTag        = "openshift.io/workload-access/cluster"
	namespaceTag      = "openshift.io/workload-access/namespace"
	serviceAccountTag = "openshift.io/workload-access/serviceaccount"
)

// byNamespaceStatements are one policy for every namespace's role: each
// namespace may read its own prefix of byNamespaceBucket, as its role's
// tags say which namespace it is. versitygw evaluates aws:PrincipalTag in
// identity policies, not in bucket policies, and substitutes no
// ${aws:PrincipalTag/...} variable (its pattern admits no "/"): so one
// statement per namespace here, where AWS takes one bucket policy with
// ${aws:PrincipalTag/...} in its resource (docs/aws-roles.md).
func byNamespaceStatements(namespaces ...string) []podidentityv1alpha1.StatementEntry {
	var entries []podidentityv1alpha1.StatementEntry
	for _, ns := range namespaces {
		entries = append(entries, podidentityv1alpha1.StatementEntry{
			Effect:   "Allow",
			Action:   []string{"s3:GetObject"},
			Resource: "arn:aws:s3:::" + byNamespaceBucket + "/" + ns + "/*",
			PolicyCondition: map[string]map[string][]string{"StringEquals": {
				"aws:PrincipalTag/" + clusterTag:   {env.infrastructureName},
				"aws:PrincipalTag/" + namespaceTag: {ns},
			}},
		})
	}
	return entries
}

// Two namespaces' roles have the same policy, which grants by the role's
// tags: each namespace's pod, with credentials from its token alone, reads
// its namespace's prefix and is refused the other's. Without the namespace
// tag on the roles neither reads anything.
func TestRoleTagsGrantEachNamespaceItsOwnPrefix(t *testing.T) {
	dumpOnFailure(t)
	ctx := context.Background()
	a, b := createNamespace(t), createNamespace(t)
	object := func(ns string) string { return byNamespaceBucket + "/" + ns + "/report.txt" }
	body := func(ns string) string { return "the report of namespace " + ns }
	for _, ns := range []string{a, b} {
		_, key, _ := strings.Cut(object(ns), "/")
		if _, err := env.s3Client.PutObject(ctx, &s3.PutObjectInput{Bucket: aws.String(byNamespaceBucket), Key: aws.String(key), Body: strings.NewReader(body(ns))}); err != nil {
			t.Fatal(err)
		}
	}
	statements := byNamespaceStatements(a, b)
	requests := map[string]*podidentityv1alpha1.IAMRoleRequest{}
	for _, ns := range []string{a, b} {
		createServiceAccount(t, ns, "reader", nil)
		createRoleRequestWith(t, ns+"-by-tag", ns, "reader", statements)
	}
	for _, ns := range []string{a, b} {
		requests[ns] = waitForRole(t, ns+"-by-tag")
		role, err := readRole(ctx, roleNameFor(requests[ns].Name))
		if err != nil {
			t.Fatal(err)
		}
		for key, want := range map[string]string{clusterTag: env.infrastructureName, namespaceTag: ns, serviceAccountTag: "reader"} {
			if got := role.Tags[key]; got != want {
				t.Errorf("role %s: tag %s=%q, want %q (tags %v)", role.ARN, key, got, want, role.Tags)
			}
		}
	}

	for ns, other := range map[string]string{a: b, b: a} {
		pod := mount(t, createPodOf(t, ns, "reader"))
		got, err := runWorkload(ctx, pod.Root, workloadEnv(pod), object(ns), object(other))
		if err != nil {
			t.Fatal(err)
		}
		if got.CredentialError != nil {
			t.Fatalf("namespace %s's pod got no credentials: %v", ns, got.CredentialError)
		}
		if own := got.Objects[object(ns)]; own.Error != nil || own.Body != body(ns) {
			t.Errorf("namespace %s's pod reading its own prefix, %s: %q, %v; want %q", ns, object(ns), own.Body, own.Error, body(ns))
		}
		if theirs := got.Objects[object(other)]; theirs.Error == nil || theirs.Error.Status != 403 || theirs.Error.Code != "AccessDenied" {
			t.Errorf("namespace %s's pod reading namespace %s's prefix, %s: %q, %v; want HTTP 403 AccessDenied", ns, other, object(other), theirs.Body, theirs.Error)
		}
	}
}
