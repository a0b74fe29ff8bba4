// Package mutation is the contract between the admission server and the
// mutators that plug into it. A mutator is a pure function of the pod and a
// cached view of the cluster: it reaches no client and no network itself;
// what it needs beyond its caches (the subscription mutator's
// SubjectAccessReview) arrives through an interface the server implements,
// so each one is table-tested without a server. pkg/importrules enforces it.
package mutation

import (
	"context"

	admissionv1 "k8s.io/api/admission/v1"
	corev1 "k8s.io/api/core/v1"

	subscriptionv1alpha1 "github.com/openshift/cluster-workload-access-operator/pkg/apis/subscription/v1alpha1"
)

// Request is one pod admission, decoded once by the server.
type Request struct {
	Operation admissionv1.Operation
	// Namespace is the request's namespace: a pod being created may not carry
	// it in its own metadata yet.
	Namespace string
	// SubResource is "" for the pod itself, "ephemeralcontainers" for a debug
	// container being added.
	SubResource string
	// Pod is shared by every mutator of the request: read it, never modify it.
	Pod *corev1.Pod
	// OldPod is the pod before an UPDATE (nil for CREATE), shared likewise.
	OldPod *corev1.Pod
}

// PatchOperation is one RFC 6902 JSON patch operation against the pod.
type PatchOperation struct {
	Op    string `json:"op"`
	Path  string `json:"path"`
	Value any    `json:"value,omitempty"`
}

// Result is a mutator's answer: a patch (possibly empty) or a denial.
type Result struct {
	Patch []PatchOperation
	// Denied, when set, rejects the pod. Its Message is shown to whoever
	// creates the pod, so it names the object and the key at fault and never
	// carries secret contents.
	Denied *Denial
	// Warnings are shown to whoever creates the pod (kubectl prints them);
	// they explain what was left out and why, never secret contents.
	Warnings []string
}

// Denial explains a rejected pod.
type Denial struct {
	// Reason is a short CamelCase word for metrics and logs.
	Reason string
	// Message is what the user reads.
	Message string
}

// Deny returns a Result that rejects the pod.
func Deny(reason, message string) Result {
	return Result{Denied: &Denial{Reason: reason, Message: message}}
}

// Mutator injects one kind of access into pods.
type Mutator interface {
	// Name labels the mutator's metrics and log lines.
	Name() string
	// RequestAnnotations are the pod annotations by which a pod explicitly asks
	// this mutator for an injection. Such a pod is never admitted without it:
	// the fail-closed webhook matches exactly these.
	RequestAnnotations() []string
	// Mutate decides for one pod. It returns an empty Result for a pod it is
	// not concerned with.
	Mutate(ctx context.Context, req *Request) Result
}

// ExplicitRequestAnnotations are every pod annotation that asks for an
// injection. The operator's MutatingWebhookConfiguration sends pods carrying
// any of them to its fail-closed webhook, and the server refuses such a pod
// when no running mutator claims the annotation, so a request is never
// silently dropped.
var ExplicitRequestAnnotations = []string{
	subscriptionv1alpha1.InjectBundleAnnotation,
	subscriptionv1alpha1.InjectClusterBundleAnnotation,
}
