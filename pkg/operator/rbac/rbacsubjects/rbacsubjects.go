// Package rbacsubjects gives binding subjects the API server's defaults, so
// that a binding the operator wants compares equal with the one the API
// server stored: a User or Group subject written without apiGroup is
// stored with rbac.authorization.k8s.io, and compared as written it would
// look changed on every sync.
package rbacsubjects

import rbacv1 "k8s.io/api/rbac/v1"

// Defaulted returns a copy of subjects with the API server's defaults set.
func Defaulted(subjects []rbacv1.Subject) []rbacv1.Subject {
	if subjects == nil {
		return nil
	}
	out := make([]rbacv1.Subject, len(subjects))
	for i, s := range subjects {
		if s.APIGroup == "" && (s.Kind == rbacv1.UserKind || s.Kind == rbacv1.GroupKind) {
			s.APIGroup = rbacv1.GroupName
		}
		out[i] = s
	}
	return out
}
