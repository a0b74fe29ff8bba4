package subscription

import (
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	v1alpha1 "github.com/openshift/cluster-workload-access-operator/pkg/apis/subscription/v1alpha1"
)

// The informers' transform keeps what the mutator reads of a bundle (spec,
// status, generation, the time of the last spec write) and drops
// annotations and managed field sets.
func TestCacheTransformKeepsWhatTheMutatorReads(t *testing.T) {
	created := metav1.NewTime(time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC))
	at := func(d time.Duration) *metav1.Time { t := metav1.NewTime(created.Add(d)); return &t }
	fields := &metav1.FieldsV1{Raw: make([]byte, 10_000)}
	meta := func(managed ...metav1.ManagedFieldsEntry) metav1.ObjectMeta {
		return metav1.ObjectMeta{
			Name: "b", Namespace: ns, Generation: 3, CreationTimestamp: created, Labels: map[string]string{"team": "a"},
			Annotations: map[string]string{
				"kubectl.kubernetes.io/last-applied-configuration": string(make([]byte, 100_000)),
				v1alpha1.BundleGenerationsAnnotation:               "x",
			},
			ManagedFields: managed,
		}
	}
	edits := []metav1.ManagedFieldsEntry{
		{Manager: "kubectl", Operation: metav1.ManagedFieldsOperationApply, Time: at(time.Minute), FieldsType: "FieldsV1", FieldsV1: fields},
		{Manager: "kubectl-edit", Operation: metav1.ManagedFieldsOperationUpdate, Time: at(time.Hour), FieldsType: "FieldsV1", FieldsV1: fields},
		{Manager: "operator", Operation: metav1.ManagedFieldsOperationUpdate, Subresource: "status", Time: at(2 * time.Hour), FieldsV1: fields},
	}
	b := bundle("b", 3, nil, []v1alpha1.ResolvedReference{ref("secret", ns, "ent", "", "1.pem")}, nil)
	b.ObjectMeta = meta(edits...)
	cb := &v1alpha1.ClusterBundle{ObjectMeta: meta(edits[2])}
	cb.Namespace = ""
	for _, tc := range []struct {
		name    string
		in      runtime.Object
		changed time.Time
	}{
		{"a bundle edited since its creation", b, created.Add(time.Hour)},
		{"a cluster bundle whose only write is to its status", cb, created.Time},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := tc.in.DeepCopyObject()
			out, err := CacheTransform(in)
			if err != nil {
				t.Fatal(err)
			}
			o := out.(metav1.Object)
			if o.GetAnnotations() != nil {
				t.Errorf("annotations kept: %d", len(o.GetAnnotations()))
			}
			for _, f := range o.GetManagedFields() {
				if f.FieldsV1 != nil || f.Manager != "" || f.Subresource != "" {
					t.Errorf("managed fields kept: %+v", f)
				}
			}
			if got := specChanged(o); !got.Equal(tc.changed) {
				t.Errorf("spec changed at %v after the transform, want %v", got, tc.changed)
			}
			// Everything but annotations and managed fields is as it was.
			want := tc.in.DeepCopyObject().(metav1.Object)
			want.SetAnnotations(nil)
			want.SetManagedFields(o.GetManagedFields())
			if !equality.Semantic.DeepEqual(want, out) {
				t.Errorf("the transform changed more than annotations and managed fields")
			}
		})
	}
	if out, _ := CacheTransform("other"); out != "other" {
		t.Errorf("another object was changed: %v", out)
	}
}
