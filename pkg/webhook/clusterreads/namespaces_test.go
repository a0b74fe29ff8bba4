package clusterreads

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/fake"
	clienttesting "k8s.io/client-go/testing"
)

func namespaceObjects(active []string, terminating ...string) []runtime.Object {
	var out []runtime.Object
	for _, name := range active {
		out = append(out, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}})
	}
	for _, name := range terminating {
		out = append(out, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name, DeletionTimestamp: &metav1.Time{}, Finalizers: []string{"kubernetes"}}})
	}
	return out
}

// namespaceVerbs are the verbs of the client's namespace requests, in order.
func namespaceVerbs(client *fake.Clientset) []string {
	var out []string
	for _, a := range client.Actions() {
		if a.GetResource().Resource == "namespaces" {
			out = append(out, a.GetVerb())
		}
	}
	return out
}

// A few names are read with a GET each, more with one list; either way a
// namespace that does not exist is missing and one with a deletion
// timestamp is terminating.
func TestLiveNamespacesTellMissingFromTerminating(t *testing.T) {
	var many, manyExisting []string
	for i := range namespaceGetsUpTo + 1 {
		name := fmt.Sprintf("team-%02d", i)
		many = append(many, name)
		if i%2 == 0 {
			manyExisting = append(manyExisting, name)
		}
	}
	for name, tc := range map[string]struct {
		objects          []runtime.Object
		names            []string
		missing, leaving []string
		verbs            []string
	}{
		"a GET each": {
			objects: namespaceObjects([]string{"shop"}, "old"),
			names:   []string{"payments", "shop", "old", "billing"},
			missing: []string{"billing", "payments"}, leaving: []string{"old"},
			verbs: []string{"get", "get", "get", "get"},
		},
		"one list for many": {
			objects: namespaceObjects(manyExisting, "team-01", "elsewhere"),
			names:   many,
			missing: []string{"team-03", "team-05", "team-07", "team-09", "team-11", "team-13", "team-15"}, leaving: []string{"team-01"},
			verbs: []string{"list"},
		},
	} {
		t.Run(name, func(t *testing.T) {
			client := fake.NewSimpleClientset(tc.objects...)
			missing, leaving, err := LiveNamespaces{Client: client.CoreV1()}.Unusable(context.Background(), tc.names)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(missing, tc.missing) || !slices.Equal(leaving, tc.leaving) {
				t.Errorf("missing %v, terminating %v; want %v, %v", missing, leaving, tc.missing, tc.leaving)
			}
			if got := namespaceVerbs(client); !slices.Equal(got, tc.verbs) {
				t.Errorf("requests %v, want %v", got, tc.verbs)
			}
		})
	}
}

// A read that fails is an error, never "missing" nor "exists": the check
// refuses, retryably.
func TestLiveNamespacesReportFailures(t *testing.T) {
	for name, names := range map[string][]string{
		"GET":  {"shop", "payments"},
		"list": make([]string, namespaceGetsUpTo+1),
	} {
		t.Run(name, func(t *testing.T) {
			client := fake.NewSimpleClientset(namespaceObjects([]string{"shop"})...)
			client.PrependReactor("*", "namespaces", func(clienttesting.Action) (bool, runtime.Object, error) {
				return true, nil, errors.New("etcd is down")
			})
			missing, leaving, err := LiveNamespaces{Client: client.CoreV1()}.Unusable(context.Background(), names)
			if err == nil || !strings.Contains(err.Error(), "etcd is down") || missing != nil || leaving != nil {
				t.Errorf("got %v, %v, %v; want the error alone", missing, leaving, err)
			}
		})
	}
}
