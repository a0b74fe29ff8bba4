package staticresources

import (
	"context"
	"strings"
	"testing"

	operatorv1 "github.com/openshift/api/operator/v1"
	"github.com/openshift/library-go/pkg/operator/resource/resourceread"
	"github.com/openshift/library-go/pkg/operator/v1helpers"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/tools/cache"

	"github.com/openshift/cluster-workload-access-operator/bindata"
	"github.com/openshift/cluster-workload-access-operator/pkg/operator/frame/operatorclient"
)

// operand reads the given objects through real informers over a fake
// clientset, as the operator reads the cluster.
func operand(t *testing.T, state operatorv1.ManagementState, degraded bool, objects ...runtime.Object) *Operand {
	t.Helper()
	status := &operatorv1.OperatorStatus{}
	if degraded {
		status.Conditions = []operatorv1.OperatorCondition{{Type: ControllerName + "Degraded", Status: operatorv1.ConditionTrue}}
	}
	client := v1helpers.NewFakeOperatorClient(&operatorv1.OperatorSpec{ManagementState: state}, status, nil)
	kubeInformers := v1helpers.NewKubeInformersForNamespaces(fake.NewClientset(objects...), operatorclient.OperandNamespace)
	o := NewOperand(kubeInformers, client)
	informers := Informers(kubeInformers)
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	kubeInformers.Start(ctx.Done())
	for _, i := range informers {
		if !cache.WaitForCacheSync(ctx.Done(), i.HasSynced) {
			t.Fatal("informers did not sync")
		}
	}
	return o
}

// shipped are the operand objects as bindata has them.
func shipped(t *testing.T, except string) []runtime.Object {
	t.Helper()
	var out []runtime.Object
	for _, file := range Files {
		if strings.Contains(file, except) && except != "" {
			continue
		}
		obj, err := resourceread.ReadGenericWithUnstructured(bindata.MustAsset(file))
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, obj)
	}
	return out
}

func TestAvailabilityNamesWhatIsMissing(t *testing.T) {
	for _, tc := range []struct {
		name        string
		state       operatorv1.ManagementState
		objects     []runtime.Object
		wantStatus  operatorv1.ConditionStatus // "" for no condition at all
		wantReason  string
		wantMessage string
	}{
		{"all there", operatorv1.Managed, shipped(t, ""), operatorv1.ConditionTrue, "AsExpected", ""},
		{"service deleted", operatorv1.Managed, shipped(t, "service.yaml"), operatorv1.ConditionFalse, "Missing",
			"Missing service/" + operatorclient.OperandNamespace + "/" + operatorclient.WebhookName},
		{"removed as asked", operatorv1.Removed, nil, operatorv1.ConditionTrue, "Removed", "removed"},
		{"unmanaged says nothing", operatorv1.Unmanaged, nil, "", "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := operand(t, tc.state, false, tc.objects...)
			if err := o.syncAvailability()(context.Background(), nil); err != nil {
				t.Fatal(err)
			}
			_, status, _, _ := o.operatorClient.GetOperatorState()
			c := v1helpers.FindOperatorCondition(status.Conditions, ControllerName+"Available")
			switch {
			case tc.wantStatus == "" && c != nil:
				t.Errorf("Unmanaged wrote %+v", c)
			case tc.wantStatus != "" && (c == nil || c.Status != tc.wantStatus || c.Reason != tc.wantReason || !strings.Contains(c.Message, tc.wantMessage)):
				t.Errorf("condition %+v, want %s/%s containing %q", c, tc.wantStatus, tc.wantReason, tc.wantMessage)
			}
		})
	}
}

func TestAtLevel(t *testing.T) {
	for _, tc := range []struct {
		name        string
		state       operatorv1.ManagementState
		degraded    bool
		objects     []runtime.Object
		wantAtLevel bool
		wantMessage string
	}{
		{"applied", operatorv1.Managed, false, shipped(t, ""), true, ""},
		{"a service still missing", operatorv1.Managed, false, shipped(t, "service.yaml"), false, "waiting for service/"},
		{"applied but failing", operatorv1.Managed, true, shipped(t, ""), false, "fail to apply"},
		{"removed and gone", operatorv1.Removed, false, nil, true, ""},
		{"removed, one left", operatorv1.Removed, false, shipped(t, "")[:1], false, "waiting for removal of serviceaccount/"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := operand(t, tc.state, tc.degraded, tc.objects...)
			spec, _, _, _ := o.operatorClient.GetOperatorState()
			atLevel, message, err := o.AtLevel(spec)
			if err != nil {
				t.Fatal(err)
			}
			if atLevel != tc.wantAtLevel || !strings.Contains(message, tc.wantMessage) {
				t.Errorf("AtLevel = %v %q, want %v containing %q", atLevel, message, tc.wantAtLevel, tc.wantMessage)
			}
		})
	}
}
