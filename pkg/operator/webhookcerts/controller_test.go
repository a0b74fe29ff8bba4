package webhookcerts

import (
	"context"
	"errors"
	"strings"
	"testing"

	operatorv1 "github.com/openshift/api/operator/v1"
	"github.com/openshift/library-go/pkg/operator/v1helpers"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/openshift/cluster-workload-access-operator/pkg/operator/operatorclient"
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
