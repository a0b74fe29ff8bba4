package specwritten

import (
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func TestAtIsTheLatestWriteOutsideStatus(t *testing.T) {
	created := time.Date(2025, 1, 1, 10, 0, 0, 0, time.UTC)
	at := func(d time.Duration) *metav1.Time { return &metav1.Time{Time: created.Add(d)} }
	obj := &metav1.ObjectMeta{CreationTimestamp: metav1.Time{Time: created}, ManagedFields: []metav1.ManagedFieldsEntry{
		{Manager: "kubectl", Operation: metav1.ManagedFieldsOperationUpdate, Time: at(time.Minute)},
		{Manager: "operator", Operation: metav1.ManagedFieldsOperationUpdate, Subresource: "status", Time: at(time.Hour)},
		{Manager: "argocd", Operation: metav1.ManagedFieldsOperationApply, Time: at(2 * time.Minute)},
		{Manager: "untimed"},
	}}
	later := created.Add(time.Hour)
	if got := At(obj, later); got == nil || !got.Time.Equal(created.Add(2*time.Minute)) {
		t.Errorf("At = %v, want the apply two minutes after creation (status writes do not count)", got)
	}
	obj.ManagedFields = nil
	if got := At(obj, later); got == nil || !got.Time.Equal(created) {
		t.Errorf("without managed fields At = %v, want the creation", got)
	}
	if got := At(&metav1.ObjectMeta{}, time.Time{}); got != nil {
		t.Errorf("no times: At = %v, want nil", got)
	}
}

// A client writes managed fields as it likes: an entry stamped in the
// future must not make a namespace created after the first read count as
// one the check judged. The creation time is the API server's.
func TestAForgedManagedFieldsTimeIsBoundedByTheFirstRead(t *testing.T) {
	created := time.Date(2025, 1, 1, 10, 0, 0, 0, time.UTC)
	firstRead := created.Add(time.Minute)
	obj := &metav1.ObjectMeta{CreationTimestamp: metav1.Time{Time: created}, ManagedFields: []metav1.ManagedFieldsEntry{
		{Manager: "forger", Operation: metav1.ManagedFieldsOperationUpdate, Time: &metav1.Time{Time: time.Date(2099, 1, 1, 0, 0, 0, 0, time.UTC)}},
	}}
	got := At(obj, firstRead)
	if got == nil || !got.Time.Equal(firstRead) {
		t.Fatalf("At = %v, want the first read %v", got, firstRead)
	}
	later := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{CreationTimestamp: metav1.Time{Time: firstRead.Add(time.Hour)}}}
	if Existed(later, got) {
		t.Error("a namespace created an hour after the first read counts as judged")
	}
	if got := At(obj, created.Add(-time.Minute)); got == nil || !got.Time.Equal(created) {
		t.Errorf("a first read before the creation (clocks apart): At = %v, want the creation %v", got, created)
	}
}

func TestExistedAllowsTheClocksTwoSeconds(t *testing.T) {
	written := &metav1.Time{Time: time.Date(2025, 1, 1, 10, 0, 0, 0, time.UTC)}
	ns := func(d time.Duration) *corev1.Namespace {
		return &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{CreationTimestamp: metav1.Time{Time: written.Add(d)}}}
	}
	for d, want := range map[time.Duration]bool{-time.Hour: true, 0: true, Allowance: true, Allowance + time.Second: false, time.Hour: false} {
		if got := Existed(ns(d), written); got != want {
			t.Errorf("a namespace created %v after the write: Existed = %v, want %v", d, got, want)
		}
	}
	if !Existed(ns(time.Hour), nil) || !Existed(&corev1.Namespace{}, written) {
		t.Error("an unknown time must not refuse")
	}
}
