package webhookdeployment

import (
	"strings"
	"testing"

	configv1 "github.com/openshift/api/config/v1"
	operatorv1 "github.com/openshift/api/operator/v1"
	configv1listers "github.com/openshift/client-go/config/listers/config/v1"
	"github.com/openshift/library-go/pkg/operator/resource/resourceread"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	corev1listers "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/tools/cache"

	"github.com/openshift/cluster-workload-access-operator/bindata"
	"github.com/openshift/cluster-workload-access-operator/pkg/operator/frame/operatorclient"
)

func render(t *testing.T, spec *operatorv1.OperatorSpec, image string) *appsv1.Deployment {
	t.Helper()
	manifest, err := ReplacePlaceholders(image)(spec, bindata.MustAsset(ManifestFile))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(manifest), "${") {
		t.Fatalf("placeholders left in the manifest:\n%s", manifest)
	}
	return resourceread.ReadDeploymentV1OrDie(manifest)
}

func TestReplacePlaceholders(t *testing.T) {
	for level, want := range map[operatorv1.LogLevel]string{
		"": "-v=2", operatorv1.Normal: "-v=2", operatorv1.Debug: "-v=4", operatorv1.Trace: "-v=6", operatorv1.TraceAll: "-v=7",
	} {
		d := render(t, &operatorv1.OperatorSpec{LogLevel: level}, "quay.io/example/op@sha256:abc")
		c := d.Spec.Template.Spec.Containers[0]
		if c.Image != "quay.io/example/op@sha256:abc" {
			t.Errorf("image %q", c.Image)
		}
		if !contains(c.Args, want) {
			t.Errorf("logLevel %q: args %v, want %s", level, c.Args, want)
		}
	}
	if _, err := ReplacePlaceholders("")(&operatorv1.OperatorSpec{}, bindata.MustAsset(ManifestFile)); err == nil {
		t.Error("an unknown image must fail, not deploy an empty one")
	}
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

func infrastructureLister(t *testing.T, topology configv1.TopologyMode) configv1listers.InfrastructureLister {
	t.Helper()
	indexer := cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{})
	if topology != "" {
		if err := indexer.Add(&configv1.Infrastructure{ObjectMeta: metav1.ObjectMeta{Name: "cluster"},
			Status: configv1.InfrastructureStatus{ControlPlaneTopology: topology}}); err != nil {
			t.Fatal(err)
		}
	}
	return configv1listers.NewInfrastructureLister(indexer)
}

func TestTopologyHook(t *testing.T) {
	for _, tc := range []struct {
		topology     configv1.TopologyMode
		wantReplicas int32
		wantAffinity bool
		wantErr      bool
	}{
		{topology: configv1.HighlyAvailableTopologyMode, wantReplicas: 2, wantAffinity: true},
		{topology: configv1.HighlyAvailableArbiterMode, wantReplicas: 2, wantAffinity: true},
		{topology: configv1.SingleReplicaTopologyMode, wantReplicas: 1},
		{topology: "", wantErr: true},
	} {
		t.Run(string(tc.topology), func(t *testing.T) {
			d := render(t, &operatorv1.OperatorSpec{}, "img")
			err := TopologyHook(infrastructureLister(t, tc.topology))(&operatorv1.OperatorSpec{}, d)
			if (err != nil) != tc.wantErr {
				t.Fatalf("err = %v, want error %v", err, tc.wantErr)
			}
			if tc.wantErr {
				return
			}
			if *d.Spec.Replicas != tc.wantReplicas || (d.Spec.Template.Spec.Affinity != nil) != tc.wantAffinity {
				t.Errorf("replicas %d, affinity %v", *d.Spec.Replicas, d.Spec.Template.Spec.Affinity)
			}
			// One replica must surge to keep admitting during a rollout; two
			// replicas replace one at a time without a third node.
			ru := d.Spec.Strategy.RollingUpdate
			if tc.wantReplicas == 1 && (ru.MaxUnavailable.IntValue() != 0 || ru.MaxSurge.IntValue() != 1) {
				t.Errorf("single replica rollout: %+v", ru)
			}
			if tc.wantReplicas == 2 && (ru.MaxUnavailable.IntValue() != 1 || ru.MaxSurge.IntValue() != 0) {
				t.Errorf("two replica rollout: %+v", ru)
			}
		})
	}
}

func TestServingCertHashHook(t *testing.T) {
	indexer := cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{cache.NamespaceIndex: cache.MetaNamespaceIndexFunc})
	lister := corev1listers.NewSecretLister(indexer)
	hook := ServingCertHashHook(lister)

	managed := &operatorv1.OperatorSpec{ManagementState: operatorv1.Managed}
	if err := hook(managed, render(t, &operatorv1.OperatorSpec{}, "img")); err == nil {
		t.Fatal("without a serving certificate the Deployment must wait")
	}
	// Removed deletes the Deployment; the missing Secret is no error then.
	if err := hook(&operatorv1.OperatorSpec{ManagementState: operatorv1.Removed}, render(t, &operatorv1.OperatorSpec{}, "img")); err != nil {
		t.Fatalf("under Removed: %v", err)
	}

	secret := &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Namespace: operatorclient.OperandNamespace, Name: operatorclient.WebhookServingCertSecret},
		Data:       map[string][]byte{"tls.crt": []byte("cert-1"), "tls.key": []byte("key-1")},
	}
	hash := func() string {
		t.Helper()
		if err := indexer.Update(secret); err != nil {
			t.Fatal(err)
		}
		d := render(t, &operatorv1.OperatorSpec{}, "img")
		if err := hook(managed, d); err != nil {
			t.Fatal(err)
		}
		return d.Spec.Template.Annotations[ServingCertHashAnnotation]
	}
	first := hash()
	if first == "" || first != hash() {
		t.Fatalf("the hash must be set and stable, got %q", first)
	}
	secret = secret.DeepCopy()
	secret.Data["tls.crt"] = []byte("cert-2")
	if hash() == first {
		t.Error("a new certificate must change the hash, or the pods would not roll")
	}
	// Moving bytes between keys is a different Secret too.
	secret = secret.DeepCopy()
	secret.Data = map[string][]byte{"tls.crt": []byte("cert-1key-1"), "tls.key": []byte("")}
	if hash() == first {
		t.Error("the hash must separate keys")
	}
}
