package webhookavailability

import (
	"context"
	"strings"
	"testing"

	operatorv1 "github.com/openshift/api/operator/v1"
	"github.com/openshift/library-go/pkg/operator/v1helpers"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	admissionregistrationlisters "k8s.io/client-go/listers/admissionregistration/v1"
	appsv1listers "k8s.io/client-go/listers/apps/v1"
	corev1listers "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/utils/ptr"

	"github.com/openshift/cluster-workload-access-operator/pkg/operator/admission/webhooktrust"
	"github.com/openshift/cluster-workload-access-operator/pkg/operator/frame/operatorclient"
)

const (
	image  = "quay.io/example/operator@sha256:1"
	bundle = "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n"
)

func deployment(mutate func(*appsv1.Deployment)) *appsv1.Deployment {
	d := &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Namespace: operatorclient.OperandNamespace, Name: operatorclient.WebhookName, Generation: 3},
		Spec: appsv1.DeploymentSpec{Replicas: ptr.To[int32](2), Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{
			Containers: []corev1.Container{{Name: "webhook", Image: image}},
		}}},
		Status: appsv1.DeploymentStatus{ObservedGeneration: 3, Replicas: 2, UpdatedReplicas: 2, AvailableReplicas: 2},
	}
	if mutate != nil {
		mutate(d)
	}
	return d
}

func caConfigMap() *corev1.ConfigMap {
	return &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Namespace: operatorclient.OperandNamespace, Name: operatorclient.WebhookServingCAConfigMap},
		Data:       map[string]string{operatorclient.CABundleKey: bundle},
	}
}

func webhookConfig(caBundle string) *admissionregistrationv1.MutatingWebhookConfiguration {
	// The shipped configuration's two webhooks, as far as trust goes.
	shipped := &admissionregistrationv1.MutatingWebhookConfiguration{
		ObjectMeta: metav1.ObjectMeta{Name: operatorclient.WebhookName},
		Webhooks:   []admissionregistrationv1.MutatingWebhook{{Name: "requested"}, {Name: "opportunistic"}},
	}
	return webhooktrust.WithCABundle(shipped, []byte(caBundle))
}

func grantsConfig(caBundle string) *admissionregistrationv1.ValidatingWebhookConfiguration {
	config := &admissionregistrationv1.ValidatingWebhookConfiguration{ObjectMeta: metav1.ObjectMeta{Name: operatorclient.WebhookName}}
	for _, name := range []string{"scopetemplates", "scopeinstances", "apiaccesspolicies"} {
		config.Webhooks = append(config.Webhooks, admissionregistrationv1.ValidatingWebhook{Name: name,
			ClientConfig: admissionregistrationv1.WebhookClientConfig{CABundle: []byte(caBundle)}})
	}
	return config
}

func newOperand(t *testing.T, objects ...runtime.Object) *Operand {
	t.Helper()
	return newOperandIn(t, operatorv1.Managed, objects...)
}

func newOperandIn(t *testing.T, state operatorv1.ManagementState, objects ...runtime.Object) *Operand {
	t.Helper()
	indexers := cache.Indexers{cache.NamespaceIndex: cache.MetaNamespaceIndexFunc}
	deployments := cache.NewIndexer(cache.MetaNamespaceKeyFunc, indexers)
	configMaps := cache.NewIndexer(cache.MetaNamespaceKeyFunc, indexers)
	configs := cache.NewIndexer(cache.MetaNamespaceKeyFunc, indexers)
	grants := cache.NewIndexer(cache.MetaNamespaceKeyFunc, indexers)
	for _, obj := range objects {
		var err error
		switch obj.(type) {
		case *appsv1.Deployment:
			err = deployments.Add(obj)
		case *corev1.ConfigMap:
			err = configMaps.Add(obj)
		case *admissionregistrationv1.MutatingWebhookConfiguration:
			err = configs.Add(obj)
		case *admissionregistrationv1.ValidatingWebhookConfiguration:
			err = grants.Add(obj)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	return &Operand{
		operatorClient: v1helpers.NewFakeOperatorClient(&operatorv1.OperatorSpec{ManagementState: state}, &operatorv1.OperatorStatus{}, nil),
		deployments:    appsv1listers.NewDeploymentLister(deployments),
		configMaps:     corev1listers.NewConfigMapLister(configMaps),
		webhookConfigs: admissionregistrationlisters.NewMutatingWebhookConfigurationLister(configs),
		grantsConfigs:  admissionregistrationlisters.NewValidatingWebhookConfigurationLister(grants),
		image:          image,
	}
}

func TestUnavailable(t *testing.T) {
	for _, tc := range []struct {
		name       string
		objects    []runtime.Object
		wantReason string
	}{
		{"everything in place", []runtime.Object{deployment(nil), caConfigMap(), webhookConfig(bundle), grantsConfig(bundle)}, ""},
		{"one replica is enough to call", []runtime.Object{deployment(func(d *appsv1.Deployment) { d.Status.AvailableReplicas = 1 }), caConfigMap(), webhookConfig(bundle), grantsConfig(bundle)}, ""},
		{"no deployment", []runtime.Object{caConfigMap(), webhookConfig(bundle), grantsConfig(bundle)}, "DeploymentMissing"},
		{"no replica available", []runtime.Object{deployment(func(d *appsv1.Deployment) { d.Status.AvailableReplicas = 0 }), caConfigMap(), webhookConfig(bundle), grantsConfig(bundle)}, "NoAvailableReplicas"},
		{"no CA bundle", []runtime.Object{deployment(nil), webhookConfig(bundle), grantsConfig(bundle)}, "CABundleMissing"},
		{"no access-grants configuration", []runtime.Object{deployment(nil), caConfigMap(), webhookConfig(bundle)}, "WebhookConfigurationMissing"},
		{"access-grants caBundle stale", []runtime.Object{deployment(nil), caConfigMap(), webhookConfig(bundle), grantsConfig("old CA")}, "CABundleNotSynced"},
		{"no webhook configuration", []runtime.Object{deployment(nil), caConfigMap(), grantsConfig(bundle)}, "WebhookConfigurationMissing"},
		{"stale caBundle", []runtime.Object{deployment(nil), caConfigMap(), webhookConfig("old CA"), grantsConfig(bundle)}, "CABundleNotSynced"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			unavailable, message, err := newOperand(t, tc.objects...).unavailable()
			if err != nil {
				t.Fatal(err)
			}
			if unavailable.Reason != tc.wantReason || (unavailable.Message == "") == (message == "") {
				t.Errorf("unavailable %+v (%q), want reason %q and one message", unavailable, message, tc.wantReason)
			}
		})
	}
}

func TestAtLevel(t *testing.T) {
	managed := &operatorv1.OperatorSpec{ManagementState: operatorv1.Managed}
	removed := &operatorv1.OperatorSpec{ManagementState: operatorv1.Removed}
	for _, tc := range []struct {
		name        string
		spec        *operatorv1.OperatorSpec
		objects     []runtime.Object
		wantAtLevel bool
		wantMessage string
	}{
		{"rolled out", managed, []runtime.Object{deployment(nil), caConfigMap(), webhookConfig(bundle), grantsConfig(bundle)}, true, ""},
		{"old image", managed, []runtime.Object{deployment(func(d *appsv1.Deployment) { d.Spec.Template.Spec.Containers[0].Image = "old" }), caConfigMap(), webhookConfig(bundle), grantsConfig(bundle)}, false, "to use image"},
		{"generation not observed", managed, []runtime.Object{deployment(func(d *appsv1.Deployment) { d.Status.ObservedGeneration = 2 }), caConfigMap(), webhookConfig(bundle), grantsConfig(bundle)}, false, "rollout"},
		{"one replica still old", managed, []runtime.Object{deployment(func(d *appsv1.Deployment) { d.Status.UpdatedReplicas = 1 }), caConfigMap(), webhookConfig(bundle), grantsConfig(bundle)}, false, "1 of 2"},
		{"surge pod still around", managed, []runtime.Object{deployment(func(d *appsv1.Deployment) { d.Status.Replicas = 3 }), caConfigMap(), webhookConfig(bundle), grantsConfig(bundle)}, false, "rollout"},
		{"bundle not synced", managed, []runtime.Object{deployment(nil), caConfigMap(), webhookConfig("old"), grantsConfig(bundle)}, false, "does not trust"},
		{"no deployment", managed, []runtime.Object{caConfigMap(), webhookConfig(bundle), grantsConfig(bundle)}, false, "Deployment"},
		{"removed and gone", removed, nil, true, ""},
		{"removed, configuration left", removed, []runtime.Object{webhookConfig(bundle)}, false, "removal"},
		{"removed, access-grants configuration left", removed, []runtime.Object{grantsConfig(bundle)}, false, "removal"},
		{"access-grants bundle not synced", managed, []runtime.Object{deployment(nil), caConfigMap(), webhookConfig(bundle), grantsConfig("old")}, false, "ValidatingWebhookConfiguration"},
		{"removed, deployment left", removed, []runtime.Object{deployment(nil)}, false, "removal"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			atLevel, message, err := newOperand(t, tc.objects...).AtLevel(tc.spec)
			if err != nil {
				t.Fatal(err)
			}
			if atLevel != tc.wantAtLevel || !strings.Contains(message, tc.wantMessage) {
				t.Errorf("AtLevel = %v %q, want %v containing %q", atLevel, message, tc.wantAtLevel, tc.wantMessage)
			}
		})
	}
}

func TestSyncReportsWebhookAvailableByManagementState(t *testing.T) {
	ready := []runtime.Object{deployment(nil), caConfigMap(), webhookConfig(bundle), grantsConfig(bundle)}
	for _, tc := range []struct {
		name       string
		state      operatorv1.ManagementState
		objects    []runtime.Object
		wantStatus operatorv1.ConditionStatus // "" for no condition at all
		wantReason string
	}{
		{"managed and serving", operatorv1.Managed, ready, operatorv1.ConditionTrue, "AsExpected"},
		{"managed, stale caBundle", operatorv1.Managed, []runtime.Object{deployment(nil), caConfigMap(), webhookConfig("old"), grantsConfig(bundle)}, operatorv1.ConditionFalse, "CABundleNotSynced"},
		{"removed as asked", operatorv1.Removed, nil, operatorv1.ConditionTrue, "Removed"},
		{"unmanaged says nothing", operatorv1.Unmanaged, nil, "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := newOperandIn(t, tc.state, tc.objects...)
			if err := o.syncAvailability()(context.Background(), nil); err != nil {
				t.Fatal(err)
			}
			_, status, _, _ := o.operatorClient.GetOperatorState()
			c := v1helpers.FindOperatorCondition(status.Conditions, ConditionType)
			switch {
			case tc.wantStatus == "" && c != nil:
				t.Errorf("Unmanaged wrote %+v", c)
			case tc.wantStatus != "" && (c == nil || c.Status != tc.wantStatus || c.Reason != tc.wantReason):
				t.Errorf("%s = %+v, want %s/%s", ConditionType, c, tc.wantStatus, tc.wantReason)
			}
		})
	}
}
