// Package v1alpha1 holds the scoped RBAC API of the oria design: a
// cluster-scoped ScopeTemplate describes ClusterRoles and who they are for;
// a cluster-scoped ScopeInstance binds them in a set of namespaces (or
// cluster-wide). The group is OLM's, operators.coreos.com, as the design
// names it; OLM v0 serves no ScopeTemplate or ScopeInstance there.
//
// +k8s:deepcopy-gen=package
// +groupName=operators.coreos.com
// +groupGoName=Scopes
// +kubebuilder:object:generate=true
package v1alpha1
