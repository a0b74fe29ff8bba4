package clusterbundles

import (
	"k8s.io/apimachinery/pkg/api/meta"
)

// WithoutManagedFields is the transform of the bundle informers and of the
// informers of what bundles generate: it drops an object's managedFields
// before it is cached. No controller reads them there, and they are a
// quarter of a cached object: at 5,000 ClusterBundles, megabytes of the
// operator's memory (docs/performance.md). An update the controllers send
// from a cached copy carries no managedFields, which the API server reads
// as "unchanged", so none are lost. Anything without metadata, such as a
// tombstone, passes unchanged; so does what was already dropped.
func WithoutManagedFields(obj any) (any, error) {
	if o, err := meta.Accessor(obj); err == nil && o.GetManagedFields() != nil {
		o.SetManagedFields(nil)
	}
	return obj, nil
}
