package bundlestatus

import (
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/record"

	subscriptionv1alpha1 "github.com/openshift/cluster-workload-access-operator/pkg/apis/subscription/v1alpha1"
)

func TestRecordTransition(t *testing.T) {
	invalid := func(reason, message string) []metav1.Condition {
		return []metav1.Condition{{Type: subscriptionv1alpha1.ConditionInvalid, Status: metav1.ConditionTrue, Reason: reason, Message: message}}
	}
	valid := []metav1.Condition{{Type: subscriptionv1alpha1.ConditionInvalid, Status: metav1.ConditionFalse, Reason: subscriptionv1alpha1.ReasonValid}}
	for _, tc := range []struct {
		name          string
		before, after []metav1.Condition
		want          string // "" for no event
	}{
		{"first sync, valid", nil, valid, "Normal Valid ClusterBundle can be injected"},
		{"first sync, invalid", nil, invalid("MissingReference", "secret ns/a does not exist"), "Warning MissingReference ClusterBundle cannot be injected: secret ns/a does not exist"},
		{"turns invalid", valid, invalid("OverlappingKeys", "k"), "Warning OverlappingKeys ClusterBundle cannot be injected: k"},
		{"another reason", invalid("MissingReference", "m"), invalid("OverlappingKeys", "k"), "Warning OverlappingKeys"},
		{"same reason, new message", invalid("MissingReference", "a"), invalid("MissingReference", "b"), "Warning MissingReference ClusterBundle cannot be injected: b"},
		{"turns valid", invalid("MissingReference", "m"), valid, "Normal Valid"},
		{"still invalid", invalid("MissingReference", "m"), invalid("MissingReference", "m"), ""},
		{"still valid", valid, valid, ""},
		{"no condition", nil, nil, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			recorder := record.NewFakeRecorder(4)
			RecordTransition(recorder, "ClusterBundle", &subscriptionv1alpha1.ClusterBundle{}, tc.before, tc.after)
			close(recorder.Events)
			var got []string
			for e := range recorder.Events {
				got = append(got, e)
			}
			switch {
			case tc.want == "" && len(got) != 0:
				t.Errorf("events %q, want none", got)
			case tc.want != "" && (len(got) != 1 || !strings.HasPrefix(got[0], tc.want)):
				t.Errorf("events %q, want one starting %q", got, tc.want)
			}
		})
	}
}
