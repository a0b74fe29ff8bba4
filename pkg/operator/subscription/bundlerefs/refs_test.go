package bundlerefs

import (
	"context"
	"reflect"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/fake"
)

func TestResolveReadsKeyNamesAndCollectsEveryMissingRef(t *testing.T) {
	client := fake.NewClientset(
		&corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: "a", Name: "s"}, Data: map[string][]byte{"z.pem": nil, "a.pem": nil}},
		&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "a", Name: "c"}, Data: map[string]string{"b.repo": ""}, BinaryData: map[string][]byte{"a.repo": nil}},
	)
	s := Ref{Kind: Secret, Namespace: "a", Name: "s"}
	c := Ref{Kind: ConfigMap, Namespace: "a", Name: "c"}
	gone1 := Ref{Kind: Secret, Namespace: "a", Name: "gone"}
	gone2 := Ref{Kind: ConfigMap, Namespace: "b", Name: "gone"}
	keys, missing, err := Reader{Kube: client}.Resolve(context.Background(), []Ref{s, gone1, c, gone2})
	if err != nil {
		t.Fatal(err)
	}
	if want := map[Ref][]string{s: {"a.pem", "z.pem"}, c: {"a.repo", "b.repo"}}; !reflect.DeepEqual(keys, want) {
		t.Errorf("keys %v, want %v", keys, want)
	}
	if got, want := MissingMessage(missing), "secret a/gone not found; configmap b/gone not found"; got != want {
		t.Errorf("missing %q, want %q", got, want)
	}
}

func TestSortedKeysMergesDataAndBinaryData(t *testing.T) {
	got := SortedKeys(map[string][]byte{"b": nil, "dup": nil}, map[string]string{"a": "", "dup": ""})
	if want := []string{"a", "b", "dup"}; !reflect.DeepEqual(got, want) {
		t.Errorf("%v, want %v", got, want)
	}
}

func TestOverlaps(t *testing.T) {
	x := Ref{Kind: Secret, Namespace: "a", Name: "x"}
	y := Ref{Kind: Secret, Namespace: "a", Name: "y"}
	z := Ref{Kind: Secret, Namespace: "b", Name: "z"}
	for _, tc := range []struct {
		name string
		refs []Ref
		keys map[Ref][]string
		want []string
	}{
		{name: "disjoint", refs: []Ref{x, y}, keys: map[Ref][]string{x: {"1"}, y: {"2"}}},
		{name: "one key in two", refs: []Ref{x, y}, keys: map[Ref][]string{x: {"k.pem"}, y: {"k.pem"}},
			want: []string{`key "k.pem" is in both secret a/x and secret a/y`}},
		{name: "one key in three names the first holder", refs: []Ref{x, y, z}, keys: map[Ref][]string{x: {"k"}, y: {"k"}, z: {"k"}},
			want: []string{`key "k" is in both secret a/x and secret a/y`, `key "k" is in both secret a/x and secret b/z`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := Overlaps(tc.refs, tc.keys); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("%q, want %q", got, tc.want)
			}
		})
	}
}
