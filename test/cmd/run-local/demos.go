package main

import (
	"fmt"

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

// rolesDemo says what phase 2 shows here: iamEndpoint serves IAM and STS;
// providerARN is the issuer's IAM OIDC provider, empty when it could not be
// registered (frontErr says why).
func rolesDemo(iamEndpoint, region, providerARN string, frontErr error) string {
	limits := `versitygw's STS would fetch the issuer's keys only over HTTPS from a public
address, so no pod here exchanges its token for credentials: test/stschain
does, in a network namespace of its own (make test).`
	if providerARN == "" {
		limits = fmt.Sprintf(`The issuer is not registered with IAM: versitygw's IAM registers only https://
URLs without a port, and run-local could not serve one:
  %v
So the request stops at Provisioned=False OIDCProviderNotRegistered (no role,
no annotation). To see the rest, run where 127.0.0.1:443 is free and may be
bound (root or CAP_NET_BIND_SERVICE).
`, frontErr) + limits
	} else {
		limits = fmt.Sprintf("The issuer is registered with IAM as %s.\n", providerARN) + limits
	}
	// A form body: curl before 8.x signs a query string only when its
	// parameters are already in order.
	signed := `curl -s --aws-sigv4 aws:amz:` + region + `:iam --user "$AK:$SK" ` + iamEndpoint + `/ -d "Version=2010-05-08&Action=`
	return fmt.Sprintf(`Phase 2 (docs/aws-roles.md): IAM roles from requests. spec.podIdentity.roles
points at versitygw's IAM and STS (%s), with its root account
in Secret %s/%s, and run-local applied:

%s

  kubectl get iamrolerequest                                # role, ServiceAccount, Provisioned, Linked
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
  # A pod of that ServiceAccount gets AWS_ROLE_ARN, AWS_WEB_IDENTITY_TOKEN_FILE and the token volume:
  kubectl run demo-reader -n %s --image=registry.invalid/demo --restart=Never --overrides='{"spec":{"serviceAccountName":"reader"}}'
  kubectl get pod demo-reader -n %s -o jsonpath='{.spec.containers[0].env}{"\n"}'
  kubectl delete iamrolerequest demo-reader   # deletes the role; the ServiceAccount goes with it

%s
`, iamEndpoint, framework.OperatorNamespace, iamCredentialsSecret, rolesDemoRequest, rolesDemoNamespace,
		framework.OperatorNamespace, iamCredentialsSecret, accessKeyIDKey,
		framework.OperatorNamespace, iamCredentialsSecret, secretAccessKeyKey,
		signed, signed, signed, signed, rolesDemoNamespace, rolesDemoNamespace, limits)
}
