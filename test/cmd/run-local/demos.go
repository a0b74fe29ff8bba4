package main

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
