// Package specwritten tells whether a namespace existed when an object's
// spec was written, as the API server's own timestamps say. The
// access-grants check judges a ScopeInstance or APIAccessPolicy with the
// namespaces that exist at admission, and refuses one listing a namespace
// that does not; a namespace created after the spec was written is another
// one (deleted and re-created since, perhaps by someone else), which the
// check never judged, so the controllers do not pin it.
package specwritten

import (
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Allowance is how much later than the spec's write a namespace's creation
// may be stamped and still count as before it: API servers' clocks differ
// a little, and both times are kept to the second. A namespace deleted and
// created again takes longer than that (its contents are deleted first).
const Allowance = 2 * time.Second

// At is when obj's spec was last written, as the API server recorded it:
// the latest of its creation and of its managed-fields entries outside a
// subresource (status), but never later than firstRead, when the
// controller first read this generation. Read then, that is that
// generation's write, or a metadata write made after it. The bound is
// needed because managed fields are the client's to write: an entry
// stamped 2099 would otherwise make every namespace created later count
// as judged. The creation time is the API server's own and always counts.
// Nil when obj carries neither time.
func At(obj metav1.Object, firstRead time.Time) *metav1.Time {
	created := obj.GetCreationTimestamp()
	written := created
	for _, f := range obj.GetManagedFields() {
		if f.Subresource == "" && f.Time != nil && f.Time.After(written.Time) {
			written = *f.Time
		}
	}
	if written.After(firstRead) {
		written = metav1.NewTime(firstRead)
	}
	if written.Before(&created) {
		written = created // a controller whose clock is behind the API server's
	}
	if written.IsZero() {
		return nil
	}
	return written.DeepCopy()
}

// Existed says whether namespace was created no later than written (with
// the Allowance), so that it may be the one the check judged. Nil written
// (not known) or a namespace without a creation time says yes.
func Existed(namespace metav1.Object, written *metav1.Time) bool {
	created := namespace.GetCreationTimestamp()
	return written == nil || created.IsZero() || !created.After(written.Add(Allowance))
}
