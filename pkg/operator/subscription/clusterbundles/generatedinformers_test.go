package clusterbundles

import (
	"context"
	"reflect"
	"testing"
	"time"

	sharedresourcev1alpha1 "github.com/openshift/api/sharedresource/v1alpha1"
	sharedresourcefake "github.com/openshift/client-go/sharedresource/clientset/versioned/fake"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	kubefake "k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/tools/cache"
)

// managed is metadata as the API server writes it for a generated object:
// the controller's label and owner reference, and managedFields.
func managed(name string) metav1.ObjectMeta {
	now := metav1.Now()
	return metav1.ObjectMeta{
		Name: name, UID: types.UID("uid-" + name), ResourceVersion: "7",
		Labels:      map[string]string{BundleLabel: "entitled"},
		Annotations: map[string]string{"note": "kept"},
		OwnerReferences: []metav1.OwnerReference{{
			APIVersion: "subscription.openshift.io/v1alpha1", Kind: "ClusterBundle", Name: "entitled", UID: "uid-entitled",
		}},
		ManagedFields: []metav1.ManagedFieldsEntry{{
			Manager: "cluster-workload-access-operator", Operation: metav1.ManagedFieldsOperationUpdate, Time: &now,
			FieldsType: "FieldsV1", FieldsV1: &metav1.FieldsV1{Raw: []byte(`{"f:metadata":{"f:labels":{}},"f:spec":{}}`)},
		}},
	}
}

// What the controller generated is cached without managedFields, and with
// everything it reads or writes back: labels, annotations, owner
// references, the spec, the rules.
func TestGeneratedObjectsAreCachedWithoutManagedFields(t *testing.T) {
	share := &sharedresourcev1alpha1.SharedSecret{ObjectMeta: managed("entitled-pull"),
		Spec: sharedresourcev1alpha1.SharedSecretSpec{SecretRef: sharedresourcev1alpha1.SharedSecretReference{Name: "pull", Namespace: "ops"}}}
	role := &rbacv1.ClusterRole{ObjectMeta: managed("entitled-reader"),
		Rules: []rbacv1.PolicyRule{{APIGroups: []string{"sharedresource.openshift.io"}, Resources: []string{"sharedsecrets"}, Verbs: []string{"use"}}}}
	kubeInformers, shareInformers := generatedInformers(kubefake.NewClientset(role), sharedresourcefake.NewSimpleClientset(share))
	roles, shares := kubeInformers.Rbac().V1().ClusterRoles(), shareInformers.Sharedresource().V1alpha1().SharedSecrets()
	roles.Informer()
	shares.Informer()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	kubeInformers.Start(ctx.Done())
	shareInformers.Start(ctx.Done())
	if !cache.WaitForCacheSync(ctx.Done(), roles.Informer().HasSynced, shares.Informer().HasSynced) {
		t.Fatal("informers did not sync")
	}

	cachedRole, err := roles.Lister().Get("entitled-reader")
	if err != nil {
		t.Fatal(err)
	}
	cachedShare, err := shares.Lister().Get("entitled-pull")
	if err != nil {
		t.Fatal(err)
	}
	for name, got := range map[string]metav1.ObjectMeta{"ClusterRole": cachedRole.ObjectMeta, "SharedSecret": cachedShare.ObjectMeta} {
		if got.ManagedFields != nil {
			t.Errorf("the cached %s keeps its managedFields", name)
		}
		want := managed(got.Name)
		want.ManagedFields = nil
		if !reflect.DeepEqual(got, want) {
			t.Errorf("the cached %s lost more than its managedFields:\n got %+v\nwant %+v", name, got, want)
		}
	}
	if !reflect.DeepEqual(cachedRole.Rules, role.Rules) || cachedShare.Spec != share.Spec {
		t.Error("the cached role's rules or the share's spec changed")
	}
}
