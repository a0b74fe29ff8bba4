// Package mutation is the contract between the admission server and the
// mutators that plug into it. A mutator is a pure function of the pod and a
// cached view of the cluster: it reaches no client and no network itself;
// what it needs beyond its caches (the subscription mutator's
// SubjectAccessReview) arrives through an interface the server implements,
// so each one is table-tested without a server. pkg/importrules enforces it.
package mutation

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	admissionv1 "k8s.io/api/admission/v1"
	corev1 "k8s.io/api/core/v1"

	subscriptionv1alpha1 "github.com/openshift/cluster-workload-access-operator/pkg/apis/subscription/v1alpha1"
)

// Request is one pod admission. Decoding a whole pod costs several times
// what the rest of an admission does, so the server decodes only the pod's
// Outline, in the same pass as the rest of the request; mutators decide and
// build their patches from it.
type Request struct {
	Operation admissionv1.Operation
	// Namespace is the request's namespace: a pod being created may not carry
	// it in its own metadata yet.
	Namespace string
	// SubResource is "" for the pod itself, "ephemeralcontainers" for a debug
	// container being added.
	SubResource string
	// Outline is the part of the pod always decoded. Shared by every
	// mutator of the request: read it, never modify it.
	Outline *PodOutline

	oldPod OldPodDecoder
}

// PodOutline is a pod's metadata and the part of its spec injections
// touch: volumes and mounts whole, and of each container its name and the
// names of its variables. It has corev1.Pod's JSON field names, so it
// decodes from a pod's JSON; probes, resources, env values and security
// contexts, most of a pod's bytes and of the time to decode one, are skipped.
// The server reads it with its own one-pass decoder (pkg/webhook,
// reviewdecode.go): a field added here must be added there too, or
// FuzzReviewDecode fails on the seed pods that carry it.
type PodOutline struct {
	Metadata struct {
		Name         string            `json:"name"`
		GenerateName string            `json:"generateName"`
		Namespace    string            `json:"namespace"`
		Labels       map[string]string `json:"labels"`
		Annotations  map[string]string `json:"annotations"`
	} `json:"metadata"`
	Spec struct {
		ServiceAccountName  string             `json:"serviceAccountName"`
		NodeSelector        map[string]string  `json:"nodeSelector"`
		OS                  *corev1.PodOS      `json:"os"`
		Volumes             []corev1.Volume    `json:"volumes"`
		InitContainers      []ContainerOutline `json:"initContainers"`
		Containers          []ContainerOutline `json:"containers"`
		EphemeralContainers []ContainerOutline `json:"ephemeralContainers"`
	} `json:"spec"`
	received receivedVolumes
}

// ContainerOutline is a container's name, the names of its variables and
// its mounts.
type ContainerOutline struct {
	Name string `json:"name"`
	Env  []struct {
		Name string `json:"name"`
	} `json:"env"`
	VolumeMounts []corev1.VolumeMount `json:"volumeMounts"`
}

// DisplayName is the pod's name or, for a pod the API server will name, its
// prefix.
func (o *PodOutline) DisplayName() string {
	if o.Metadata.Name != "" {
		return o.Metadata.Name
	}
	return o.Metadata.GenerateName
}

// OldPodDecoder decodes the pod before an UPDATE into any shape: a *corev1.Pod, or
// a struct holding the few fields a mutator reads (a PodOutline). It leaves
// into untouched when there is no old pod.
type OldPodDecoder interface {
	DecodeOldPod(into any) error
}

// NewRequest returns a request whose old pod is decoded by oldPod on
// demand.
func NewRequest(operation admissionv1.Operation, namespace, subResource string, outline *PodOutline, oldPod OldPodDecoder) *Request {
	return &Request{Operation: operation, Namespace: namespace, SubResource: subResource, Outline: outline, oldPod: oldPod}
}

// RequestFor returns a request for typed pods, as tests and benchmarks build
// them: the pods are encoded to JSON, and the outline and pods decoded from
// it the way the server decodes the API server's.
func RequestFor(operation admissionv1.Operation, namespace, subResource string, pod, oldPod *corev1.Pod) *Request {
	old := encodedOldPod{}
	outline := &PodOutline{}
	if pod != nil {
		if err := json.Unmarshal(mustEncode(pod), outline); err != nil {
			panic(fmt.Sprintf("decoding the outline of a pod: %v", err))
		}
	}
	if oldPod != nil {
		old.oldPod = mustEncode(oldPod)
	}
	return NewRequest(operation, namespace, subResource, outline, old)
}

func mustEncode(pod *corev1.Pod) []byte {
	raw, err := json.Marshal(pod)
	if err != nil {
		panic(fmt.Sprintf("encoding a pod: %v", err))
	}
	return raw
}

// DecodeOldPod decodes the pod before an UPDATE into a mutator's own view of
// it, leaving into untouched for a CREATE.
func (r *Request) DecodeOldPod(into any) error {
	if r.oldPod == nil || r.Operation != admissionv1.Update {
		return nil
	}
	if err := r.oldPod.DecodeOldPod(into); err != nil {
		return fmt.Errorf("decoding the old pod: %w", err)
	}
	return nil
}

// Undecodable is the answer to a pod that does not decode: the API server
// sends only pods it has decoded itself, so this is a refusal, never an
// admission without the injection.
func Undecodable(err error) Result {
	return Deny("MalformedPod", err.Error())
}

// encodedOldPod decodes the old pod, when not nil, from its JSON.
type encodedOldPod struct{ oldPod []byte }

func (s encodedOldPod) DecodeOldPod(into any) error {
	if s.oldPod == nil {
		return nil
	}
	return json.Unmarshal(s.oldPod, into)
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
	// not concerned with, having read as little of the pod as that takes.
	Mutate(ctx context.Context, req *Request) Result
}

// VolumeReader is a Mutator that reads the contents of some of the pod's
// volumes only, named by ReadsVolume. The server decodes those in full and
// of every other volume its name alone (NamesOnly), sending it back as the
// review carried it: decoding every volume of a pod was a tenth of an
// admission's CPU. A Mutator that is not a VolumeReader is given every
// volume in full.
type VolumeReader interface {
	ReadsVolume(name string) bool
}

// MirrorPodAnnotation marks the API server's copy of a kubelet's static
// pod. The kubelet, not the API server, runs such a pod from its own file,
// so nothing injected into the copy reaches the containers, and the
// ServiceAccount admission plugin refuses a mirror pod that references a
// ServiceAccount token.
const MirrorPodAnnotation = "kubernetes.io/config.mirror"

// ExplicitRequestAnnotations are every pod annotation that asks for an
// injection. The operator's MutatingWebhookConfiguration sends pods carrying
// any of them to its fail-closed webhook, and the server refuses such a pod
// when no running mutator claims the annotation, so a request is never
// silently dropped.
var ExplicitRequestAnnotations = []string{
	subscriptionv1alpha1.InjectBundleAnnotation,
	subscriptionv1alpha1.InjectClusterBundleAnnotation,
}

// Asks reports whether a request annotation asks for something: it is set
// and not empty or only spaces (Helm renders unset values as ""). The
// webhook configuration's matchConditions and the injection-required
// policy use the same test (CEL's trim() is strings.TrimSpace).
func Asks(annotations map[string]string, annotation string) bool {
	v, ok := annotations[annotation]
	return ok && strings.TrimSpace(v) != ""
}

// OutlineOf is the outline of a typed pod, as the operator reads pods from
// its cache: what a mutator would decide on, had the pod been admitted
// now.
func OutlineOf(pod *corev1.Pod) *PodOutline {
	o := &PodOutline{}
	o.Metadata.Name, o.Metadata.GenerateName, o.Metadata.Namespace = pod.Name, pod.GenerateName, pod.Namespace
	o.Metadata.Labels, o.Metadata.Annotations = pod.Labels, pod.Annotations
	o.Spec.ServiceAccountName, o.Spec.NodeSelector, o.Spec.OS = pod.Spec.ServiceAccountName, pod.Spec.NodeSelector, pod.Spec.OS
	o.Spec.Volumes = pod.Spec.Volumes
	o.Spec.InitContainers = containerOutlines(pod.Spec.InitContainers)
	o.Spec.Containers = containerOutlines(pod.Spec.Containers)
	return o
}

func containerOutlines(containers []corev1.Container) []ContainerOutline {
	out := make([]ContainerOutline, len(containers))
	for i, c := range containers {
		out[i].Name, out[i].VolumeMounts = c.Name, c.VolumeMounts
		for _, e := range c.Env {
			out[i].Env = append(out[i].Env, struct {
				Name string `json:"name"`
			}{Name: e.Name})
		}
	}
	return out
}
