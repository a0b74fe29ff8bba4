// Package objectevents records Events on the objects they are about — a
// Bundle, a ClusterBundle — so `oc describe` shows them beside the
// condition. library-go's recorder writes the operator's own events about
// its Deployment; these are for the people who own the objects.
package objectevents

import (
	"context"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/kubernetes"
	typedcorev1 "k8s.io/client-go/kubernetes/typed/core/v1"
	"k8s.io/client-go/tools/record"

	"github.com/openshift/cluster-workload-access-operator/pkg/generated/clientset/versioned/scheme"
	"github.com/openshift/cluster-workload-access-operator/pkg/operator/frame/operatorclient"
)

// New starts a recorder writing Events through kube until ctx ends. Events
// on a namespaced object land in its namespace; on a cluster-scoped one, in
// "default", where `oc describe` looks. The recorder's correlator folds
// repeats into one Event with a count, and throttles a hot object.
func New(ctx context.Context, kube kubernetes.Interface) record.EventRecorder {
	broadcaster := record.NewBroadcaster(record.WithContext(ctx))
	broadcaster.StartRecordingToSink(&typedcorev1.EventSinkImpl{Interface: kube.CoreV1().Events("")})
	go func() {
		<-ctx.Done()
		broadcaster.Shutdown()
	}()
	// The generated scheme knows our kinds, so the recorder can name them
	// in involvedObject.
	return broadcaster.NewRecorder(scheme.Scheme, corev1.EventSource{Component: operatorclient.OperatorName})
}
