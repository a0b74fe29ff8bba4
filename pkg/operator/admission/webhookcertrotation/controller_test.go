package webhookcertrotation

import (
	"context"
	"errors"
	"strings"
	"testing"

	operatorv1 "github.com/openshift/api/operator/v1"
	"github.com/openshift/library-go/pkg/controller/factory"
	"github.com/openshift/library-go/pkg/operator/events"
	"github.com/openshift/library-go/pkg/operator/v1helpers"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/fake"
	corev1listers "k8s.io/client-go/listers/core/v1"
	clienttesting "k8s.io/client-go/testing"
	"k8s.io/client-go/tools/cache"
	"k8s.io/utils/clock"

	"github.com/openshift/cluster-workload-access-operator/pkg/operator/frame/operatorclient"
)

func TestReporterWritesItsConditionAndSaysWhenItChanged(t *testing.T) {
	client := v1helpers.NewFakeOperatorClient(&operatorv1.OperatorSpec{}, &operatorv1.OperatorStatus{}, nil)
	r := &conditionReporter{operatorClient: client}
	ctx := context.Background()
	condition := func() *operatorv1.OperatorCondition {
		_, status, _, _ := client.GetOperatorState()
		return v1helpers.FindOperatorCondition(status.Conditions, "WebhookCertRotationDegraded")
	}

	for i, step := range []struct {
		err         error
		wantChanged bool
		wantStatus  operatorv1.ConditionStatus
	}{
		{nil, true, operatorv1.ConditionFalse},
		{nil, false, operatorv1.ConditionFalse},
		{errors.New("secrets is forbidden"), true, operatorv1.ConditionTrue},
		{errors.New("secrets is forbidden"), false, operatorv1.ConditionTrue},
		{nil, true, operatorv1.ConditionFalse},
	} {
		changed, err := r.Report(ctx, ControllerName, step.err)
		if err != nil {
			t.Fatal(err)
		}
		c := condition()
		if changed != step.wantChanged || c == nil || c.Status != step.wantStatus {
			t.Fatalf("step %d: changed %v, condition %+v; want changed %v and status %s", i, changed, c, step.wantChanged, step.wantStatus)
		}
		if step.err != nil && (c.Reason != "RotationError" || !strings.Contains(c.Message, step.err.Error())) {
			t.Errorf("step %d: the condition does not say what failed: %+v", i, c)
		}
	}
}

func TestHostnamesAreWhatTheAPIServerVerifies(t *testing.T) {
	got := strings.Join(Hostnames(), ",")
	if got != "workload-access-webhook.openshift-workload-access.svc,workload-access-webhook.openshift-workload-access.svc.cluster.local" {
		t.Errorf("hostnames %s", got)
	}
}

func TestOnlyItsOwnObjectsTriggerASync(t *testing.T) {
	ns := operatorclient.OperandNamespace
	for obj, want := range map[any]bool{
		&corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: operatorclient.WebhookSignerSecret}}:          true,
		&corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: operatorclient.WebhookServingCertSecret}}:     true,
		&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: operatorclient.WebhookServingCAConfigMap}}: true,
		&corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "workload-access-webhook-token"}}:             false,
		&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "kube-root-ca.crt"}}:                       false,
	} {
		if got := isRotated(obj); got != want {
			t.Errorf("isRotated(%T %v) = %v, want %v", obj, obj, got, want)
		}
	}
}

func TestRotationTimingKeepsTrustAheadOfUse(t *testing.T) {
	// certrotation starts using a new signer 10% of the serving refresh
	// after it appears; the old signer must outlive every certificate it
	// signed before that.
	if SignerValidity-SignerRefresh < ServingCertValidity+ServingCertRefresh/10 {
		t.Errorf("an old signer expires before the last certificate it signed")
	}
	if ServingCertRefresh >= ServingCertValidity || SignerRefresh >= SignerValidity {
		t.Errorf("refresh periods must be shorter than validity")
	}
}

func TestRemovedDeletesTheKeysOnceAndThenWritesNothing(t *testing.T) {
	ns := operatorclient.OperandNamespace
	objects := []runtime.Object{
		&corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: operatorclient.WebhookSignerSecret}},
		&corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: operatorclient.WebhookServingCertSecret}},
		&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: operatorclient.WebhookServingCAConfigMap}},
		// Not the controller's: left alone.
		&corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "unrelated"}},
	}
	client := fake.NewClientset(objects...)
	secrets := cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{cache.NamespaceIndex: cache.MetaNamespaceIndexFunc})
	configMaps := cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{cache.NamespaceIndex: cache.MetaNamespaceIndexFunc})
	for _, obj := range objects {
		if _, ok := obj.(*corev1.Secret); ok {
			_ = secrets.Add(obj)
		} else {
			_ = configMaps.Add(obj)
		}
	}
	c := &controller{
		operatorClient: v1helpers.NewFakeOperatorClient(&operatorv1.OperatorSpec{ManagementState: operatorv1.Removed}, &operatorv1.OperatorStatus{}, nil),
		kubeClient:     client,
		secrets:        corev1listers.NewSecretLister(secrets),
		configMaps:     corev1listers.NewConfigMapLister(configMaps),
	}
	recorder := events.NewInMemoryRecorder("test", clock.RealClock{})
	syncCtx := factory.NewSyncContext("test", recorder)
	if err := c.sync(context.Background(), syncCtx); err != nil {
		t.Fatal(err)
	}
	var deleted []string
	for _, a := range client.Actions() {
		if d, ok := a.(clienttesting.DeleteAction); ok {
			deleted = append(deleted, d.GetResource().Resource+"/"+d.GetName())
		} else {
			t.Errorf("unexpected %s %s", a.GetVerb(), a.GetResource().Resource)
		}
	}
	want := "secrets/" + operatorclient.WebhookSignerSecret + ",secrets/" + operatorclient.WebhookServingCertSecret + ",configmaps/" + operatorclient.WebhookServingCAConfigMap
	if got := strings.Join(deleted, ","); got != want {
		t.Fatalf("deleted %s, want %s", got, want)
	}
	if _, err := client.CoreV1().Secrets(ns).Get(context.Background(), "unrelated", metav1.GetOptions{}); err != nil {
		t.Errorf("an unrelated Secret went too: %v", err)
	}

	// The informers catch up; a resync then costs nothing.
	for _, obj := range objects {
		_ = secrets.Delete(obj)
		_ = configMaps.Delete(obj)
	}
	client.ClearActions()
	if err := c.sync(context.Background(), syncCtx); err != nil {
		t.Fatal(err)
	}
	if n := len(client.Actions()); n != 0 {
		t.Errorf("resync after removal made %d API calls: %v", n, client.Actions())
	}
}
