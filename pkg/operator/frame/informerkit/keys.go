package informerkit

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
)

// LabelKey maps an object generated for another (a role made for a
// policy, a share for a bundle) to that owner's queue key: the value of
// the object's label, or none without it.
func LabelKey(label string) func(runtime.Object) []string {
	return func(obj runtime.Object) []string {
		if o, ok := obj.(metav1.Object); ok && o.GetLabels()[label] != "" {
			return []string{o.GetLabels()[label]}
		}
		return nil
	}
}

// EveryKey maps any event to the queue key ("namespace/name", or "name")
// of every object list returns (a lister's List): for a change that may
// concern them all.
func EveryKey[T metav1.Object](list func(labels.Selector) ([]T, error)) func(runtime.Object) []string {
	return func(runtime.Object) []string {
		all, err := list(labels.Everything())
		if err != nil {
			return nil
		}
		keys := make([]string, 0, len(all))
		for _, o := range all {
			key := o.GetName()
			if namespace := o.GetNamespace(); namespace != "" {
				key = namespace + "/" + key
			}
			keys = append(keys, key)
		}
		return keys
	}
}
