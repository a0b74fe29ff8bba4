package main

import (
	"fmt"
	"strings"

	"github.com/openshift/cluster-workload-access-operator/test/framework"
)

// The printed demos of ScopeTemplate/ScopeInstance and APIAccessPolicy: each
// runs as shown when pasted into a shell (demos_test.go parses them).

const scopesDemo = `Scopes (docs/scopes.md): a template's role, bound where an instance says:
  kubectl create namespace scoped-a; kubectl label namespace scoped-a scope-demo=yes
  kubectl apply -f - <<'YAML'
apiVersion: operators.coreos.com/v1alpha1
kind: ScopeTemplate
metadata: {name: demo}
spec:
  clusterRoles:
  - generateName: demo-reader-
    rules: [{apiGroups: [""], resources: [configmaps], verbs: [get, list]}]
    subjects: [{kind: ServiceAccount, name: demo, namespace: default}]
---
apiVersion: operators.coreos.com/v1alpha1
kind: ScopeInstance
metadata: {name: demo}
spec: {scopeTemplateName: demo, namespaceSelector: {matchLabels: {scope-demo: "yes"}}}
YAML
  kubectl get scopeinstance demo; kubectl get rolebindings -A -l operators.coreos.com/scope-instance=demo
  kubectl auth can-i list configmaps -n scoped-a --as=system:serviceaccount:default:demo   # yes
  kubectl auth can-i list configmaps -n default --as=system:serviceaccount:default:demo    # no`

const apiAccessDemo = `API access (docs/apiaccess.md): a policy grants user alice read access to
the cluster's ClusterBundles; watch it come and go:

  kubectl auth can-i list clusterbundles.subscription.openshift.io --as alice   # no
  kubectl apply -f - <<'POLICY'
apiVersion: apiaccess.openshift.io/v1alpha1
kind: APIAccessPolicy
metadata:
  name: demo
spec:
  mode: Bind
  crds:
    names: [clusterbundles.subscription.openshift.io]
  bindings:
  - role: View
    subjects: [{kind: User, apiGroup: rbac.authorization.k8s.io, name: alice}]
POLICY
  kubectl get apiaccesspolicy demo -o yaml    # status.managedObjects, conditions
  kubectl auth can-i list clusterbundles.subscription.openshift.io --as alice          # yes
  kubectl auth can-i get customresourcedefinitions/clusterbundles.subscription.openshift.io --as alice   # yes (crdview)
  kubectl auth can-i delete clusterbundles.subscription.openshift.io --as alice        # no
  kubectl patch apiaccesspolicy demo --type=merge -p '{"spec":{"mode":"Unmanaged","bindings":null}}'
  kubectl auth can-i list clusterbundles.subscription.openshift.io --as alice          # no again
`

// The IAMRoleRequest run-local creates (docs/aws-roles.md), for the
// ServiceAccount reader in rolesDemoNamespace: read objects of the issuer
// bucket, nothing else.
const (
	rolesDemoNamespace = "demo-roles"
	rolesDemoRequest   = `apiVersion: podidentity.openshift.io/v1alpha1
kind: IAMRoleRequest
metadata:
  name: demo-reader
spec:
  storage:
    serviceAccount:
      namespace: demo-roles
      name: reader
  providerSpec:
    statementEntries:
    - effect: Allow
      action: ["s3:GetObject"]
      resource: "arn:aws:s3:::local-oidc/*"`
)

// rolesDemoInput is where phase 2 runs here: iamEndpoint serves IAM and
// STS; providerARN is the issuer's IAM OIDC provider, empty when it could
// not be registered (frontErr says why); chainErr says why versitygw runs
// without a network namespace of its own, and so no pod gets credentials.
type rolesDemoInput struct {
	kubeconfig, iamEndpoint, s3Endpoint, region, bucket, issuerURL, providerARN string
	frontErr, chainErr                                                          error
}

// chainHeading starts the paragraph before the whole chain's commands:
// the indented lines after it up to the next empty line (test/runlocal
// runs exactly them).
const chainHeading = "The whole chain: a pod's token for its role's credentials, and S3 with them."

// rolesDemo says what phase 2 shows here.
func rolesDemo(in rolesDemoInput) string {
	var chain string
	switch {
	case in.providerARN == "":
		chain = fmt.Sprintf(`The issuer is not registered with IAM: versitygw's IAM registers only https://
URLs without a port, and run-local could not serve one:
  %v
So the request stops at Provisioned=False OIDCProviderNotRegistered (no role,
no annotation), and no pod here exchanges its token for credentials:
versitygw's STS fetches the issuer's keys only over HTTPS on port 443 from a
public address, which run-local arranges in a network namespace of its own
when the machine allows one, and could not here:
  %v
`, in.frontErr, in.chainErr)
	case in.chainErr != nil:
		chain = fmt.Sprintf(`The issuer is registered with IAM as %s.
No pod here exchanges its token for credentials: versitygw's STS fetches the
issuer's keys only over HTTPS on port 443 from a public address, which
run-local arranges in a network namespace of its own when the machine allows
one, and could not here:
  %v
`, in.providerARN, in.chainErr)
	default:
		chain = fmt.Sprintf(`The issuer is registered with IAM as %s.
%s
versitygw and the issuer's HTTPS front run in a network namespace of their
own, where %s is a public address to STS. A pod of
ServiceAccount %s/reader gets the role's ARN and a projected token from the
webhook; STS trades the token for the role's credentials, and S3 allows what
the role's policy allows (%s/%s, not the listing). kwok runs no
containers, so these commands do what the pod's AWS SDK would:

%s
`, in.providerARN, chainHeading, in.issuerURL, rolesDemoNamespace, in.bucket, demoObjectKey, chainCommands(in))
	}
	// A form body: curl before 8.x signs a query string only when its
	// parameters are already in order.
	signed := `curl -s --aws-sigv4 aws:amz:` + in.region + `:iam --user "$AK:$SK" ` + in.iamEndpoint + `/ -d "Version=2010-05-08&Action=`
	return fmt.Sprintf(`Phase 2 (docs/aws-roles.md): IAM roles from requests. spec.podIdentity.roles
points at versitygw's IAM and STS (%s), with its root account
in Secret %s/%s, and run-local applied:

%s

  kubectl get iamrolerequest                                # role, ServiceAccount, Provisioned, Linked, TokensAccepted
  kubectl get iamrolerequest demo-reader -o yaml            # role name and ARN, conditions
  kubectl get serviceaccount reader -n %s -o yaml   # eks.amazonaws.com/role-arn, linked-by (created for the request)
  # The role in IAM, as aws iam get-role, get-role-policy and list-role-tags show it (the Query API):
  AK=$(kubectl get secret -n %s %s -o jsonpath='{.data.%s}' | base64 -d)
  SK=$(kubectl get secret -n %s %s -o jsonpath='{.data.%s}' | base64 -d)
  ROLE=$(kubectl get iamrolerequest demo-reader -o jsonpath='{.status.providerStatus.user}')
  %sGetRole&RoleName=$ROLE"
  %sGetRolePolicy&RoleName=$ROLE&PolicyName=workload-access"
  %sListRoleTags&RoleName=$ROLE"
  %sListOpenIDConnectProviders"

%s
When done:
  kubectl delete iamrolerequest demo-reader   # deletes the role; the ServiceAccount goes with it
`, in.iamEndpoint, framework.OperatorNamespace, iamCredentialsSecret, rolesDemoRequest, rolesDemoNamespace,
		framework.OperatorNamespace, iamCredentialsSecret, accessKeyIDKey,
		framework.OperatorNamespace, iamCredentialsSecret, secretAccessKeyKey,
		signed, signed, signed, signed, chain)
}

// chainCommands are the whole chain as an admin pastes them: a pod of the
// request's ServiceAccount, the token the kubelet would project into it,
// AssumeRoleWithWebIdentity at the local STS (unsigned: the token is the
// proof), and signed S3 GETs with the credentials (curl before 8.x sends
// no x-amz-content-sha256 of its own, which S3 requires). A line that ends in
// "# allowed" prints demoObjectBody; one that ends in "# refused" prints an
// AccessDenied error.
func chainCommands(in rolesDemoInput) string {
	ns := rolesDemoNamespace
	pod := "kubectl get pod demo-reader -n " + ns + " -o jsonpath="
	field := func(name string) string {
		return `$(echo "$CREDS" | sed -n 's:.*<` + name + `>\(.*\)</` + name + `>.*:\1:p')`
	}
	sigv4 := `curl -sS --aws-sigv4 aws:amz:` + in.region + `:s3 --user "$KEY:$SECRET" -H "x-amz-security-token: $SESSION" -H "x-amz-content-sha256: UNSIGNED-PAYLOAD" `
	bucket := in.s3Endpoint + "/" + in.bucket + "/"
	object := bucket + demoObjectKey
	lines := []string{
		"export KUBECONFIG=" + in.kubeconfig,
		"kubectl wait iamrolerequest demo-reader --for=condition=ServiceAccountLinked --timeout=2m",
		"# TokensAccepted: the request says STS will accept the pod's token, before any pod tries.",
		"kubectl wait iamrolerequest demo-reader --for=condition=TokensAccepted --timeout=2m",
		"kubectl run demo-reader -n " + ns + ` --image=registry.invalid/demo --restart=Never --overrides='{"spec":{"serviceAccountName":"reader"}}'`,
		pod + `'{.spec.containers[0].env}{"\n"}'   # AWS_ROLE_ARN, AWS_WEB_IDENTITY_TOKEN_FILE, AWS_REGION`,
		"ROLE_ARN=$(" + pod + `'{.spec.containers[0].env[?(@.name=="AWS_ROLE_ARN")].value}')`,
		"# The token the kubelet writes into the pod's aws-iam-token volume: its audience, bound to the pod.",
		"AUDIENCE=$(" + pod + `'{.spec.volumes[?(@.name=="aws-iam-token")].projected.sources[0].serviceAccountToken.audience}')`,
		`TOKEN=$(kubectl create token reader -n ` + ns + ` --audience="$AUDIENCE" --bound-object-kind=Pod --bound-object-name=demo-reader)`,
		`CREDS=$(curl -sS ` + in.iamEndpoint + `/ -d Version=2011-06-15 -d Action=AssumeRoleWithWebIdentity -d RoleSessionName=demo-reader --data-urlencode "RoleArn=$ROLE_ARN" --data-urlencode "WebIdentityToken=$TOKEN")`,
		"KEY=" + field("AccessKeyId"),
		"SECRET=" + field("SecretAccessKey"),
		"SESSION=" + field("SessionToken"),
		`echo "$KEY"   # the session's access key ID`,
		sigv4 + object + "; echo   # allowed",
		sigv4 + bucket + "; echo   # refused: listing the bucket (s3:ListBucket) is not in the role's policy",
		"curl -sS " + object + "; echo   # refused: without credentials, as the object is not public",
	}
	return "  " + strings.Join(lines, "\n  ")
}
