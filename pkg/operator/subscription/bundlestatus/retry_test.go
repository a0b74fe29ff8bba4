package bundlestatus

import (
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	subscriptionv1alpha1 "github.com/openshift/cluster-workload-access-operator/pkg/apis/subscription/v1alpha1"
)

func TestMissingRetryBacksOffWithTimeInvalid(t *testing.T) {
	now := time.Now()
	invalidSince := func(d time.Duration, reason string) []metav1.Condition {
		return []metav1.Condition{{Type: subscriptionv1alpha1.ConditionInvalid, Status: metav1.ConditionTrue, Reason: reason,
			LastTransitionTime: metav1.NewTime(now.Add(-d))}}
	}
	for _, tc := range []struct {
		name       string
		conditions []metav1.Condition
		want       time.Duration
	}{
		{"new bundle", nil, MinMissingRetry},
		{"was valid", []metav1.Condition{{Type: subscriptionv1alpha1.ConditionInvalid, Status: metav1.ConditionFalse,
			Reason: subscriptionv1alpha1.ReasonValid, LastTransitionTime: metav1.NewTime(now.Add(-time.Hour))}}, MinMissingRetry},
		{"missing for 3s", invalidSince(3*time.Second, subscriptionv1alpha1.ReasonMissingReference), MinMissingRetry},
		{"missing for 2m", invalidSince(2*time.Minute, subscriptionv1alpha1.ReasonMissingReference), 2 * time.Minute},
		{"missing for a day", invalidSince(24*time.Hour, subscriptionv1alpha1.ReasonMissingReference), MaxMissingRetry},
		{"invalid for another reason", invalidSince(time.Hour, subscriptionv1alpha1.ReasonOverlappingKeys), MinMissingRetry},
	} {
		if got := MissingRetry(tc.conditions, now); got != tc.want {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
	}
}

func TestInvalidRetryBacksOffOnlyForItsReason(t *testing.T) {
	now := time.Now()
	conditions := []metav1.Condition{{Type: subscriptionv1alpha1.ConditionInvalid, Status: metav1.ConditionTrue,
		Reason: subscriptionv1alpha1.ReasonDriverCannotRead, LastTransitionTime: metav1.NewTime(now.Add(-time.Minute))}}
	if got := InvalidRetry(conditions, subscriptionv1alpha1.ReasonDriverCannotRead, now); got != time.Minute {
		t.Errorf("DriverCannotRead for a minute: %v, want 1m", got)
	}
	if got := MissingRetry(conditions, now); got != MinMissingRetry {
		t.Errorf("MissingRetry of a bundle invalid for another reason: %v", got)
	}
}
