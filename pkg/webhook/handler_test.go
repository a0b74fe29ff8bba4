package webhook

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil"
	admissionv1 "k8s.io/api/admission/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/tools/cache"
	"k8s.io/utils/ptr"

	podidentityv1alpha1 "github.com/openshift/cluster-workload-access-operator/pkg/apis/podidentity/v1alpha1"
	"github.com/openshift/cluster-workload-access-operator/pkg/apis/subscription/v1alpha1"
	"github.com/openshift/cluster-workload-access-operator/pkg/webhook/clusterreads"
	"github.com/openshift/cluster-workload-access-operator/pkg/webhook/mutation"
	"github.com/openshift/cluster-workload-access-operator/pkg/webhook/mutation/mutationtest"
	"github.com/openshift/cluster-workload-access-operator/pkg/webhook/podidentity"
)

// labelMutator patches pods that carry its annotation, denies those whose
// annotation says "deny", and ignores the rest.
type labelMutator struct{ annotation string }

func (m labelMutator) Name() string                 { return "label" }
func (m labelMutator) RequestAnnotations() []string { return []string{m.annotation} }
func (m labelMutator) Mutate(_ context.Context, req *mutation.Request) mutation.Result {
	switch req.Outline.Metadata.Annotations[m.annotation] {
	case "":
		return mutation.Result{}
	case "deny":
		return mutation.Deny("Asked", "pod "+req.Namespace+"/"+req.Outline.Metadata.Name+" asked to be denied")
	}
	return mutation.Result{Patch: []mutation.PatchOperation{{Op: "add", Path: "/metadata/labels/injected", Value: "yes"}}}
}

func realisticPod(annotations map[string]string) *corev1.Pod {
	return &corev1.Pod{
		TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Pod"},
		ObjectMeta: metav1.ObjectMeta{
			GenerateName: "frontend-7d9f8b6c5d-", Namespace: "shop",
			Labels:      map[string]string{"app": "frontend", "pod-template-hash": "7d9f8b6c5d"},
			Annotations: annotations,
			OwnerReferences: []metav1.OwnerReference{{
				APIVersion: "apps/v1", Kind: "ReplicaSet", Name: "frontend-7d9f8b6c5d", UID: "0c6e1a43-5b1c-4f0e-9d55-2f3a9c3f6d10",
				Controller: ptr.To(true), BlockOwnerDeletion: ptr.To(true),
			}},
		},
		Spec: corev1.PodSpec{
			ServiceAccountName: "frontend",
			InitContainers: []corev1.Container{{
				Name: "migrate", Image: "quay.io/example/frontend@sha256:4f1c", Command: []string{"/bin/migrate", "--wait"},
			}},
			Containers: []corev1.Container{{
				Name: "web", Image: "quay.io/example/frontend@sha256:4f1c",
				Ports:        []corev1.ContainerPort{{Name: "http", ContainerPort: 8080, Protocol: corev1.ProtocolTCP}},
				Env:          []corev1.EnvVar{{Name: "LOG_LEVEL", Value: "info"}, {Name: "POD_NAME", ValueFrom: &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{FieldPath: "metadata.name"}}}},
				VolumeMounts: []corev1.VolumeMount{{Name: "kube-api-access-x7k2p", MountPath: "/var/run/secrets/kubernetes.io/serviceaccount", ReadOnly: true}},
				SecurityContext: &corev1.SecurityContext{
					AllowPrivilegeEscalation: ptr.To(false), RunAsNonRoot: ptr.To(true),
					Capabilities: &corev1.Capabilities{Drop: []corev1.Capability{"ALL"}},
				},
			}, {
				Name: "proxy", Image: "quay.io/example/proxy:1.4",
				Args: []string{"--upstream=http://localhost:8080", "--listen=:8443"},
			}},
			Volumes: []corev1.Volume{{Name: "kube-api-access-x7k2p", VolumeSource: corev1.VolumeSource{Projected: &corev1.ProjectedVolumeSource{
				Sources: []corev1.VolumeProjection{{ServiceAccountToken: &corev1.ServiceAccountTokenProjection{Path: "token", ExpirationSeconds: ptr.To(int64(3607))}}},
			}}}},
			Tolerations: []corev1.Toleration{{Key: "node.kubernetes.io/not-ready", Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoExecute, TolerationSeconds: ptr.To(int64(300))}},
		},
	}
}

func reviewBody(t testing.TB, pod *corev1.Pod, resource metav1.GroupVersionResource, subResource string) []byte {
	raw, err := json.Marshal(pod)
	if err != nil {
		t.Fatal(err)
	}
	body, err := json.Marshal(admissionv1.AdmissionReview{
		TypeMeta: metav1.TypeMeta{APIVersion: "admission.k8s.io/v1", Kind: "AdmissionReview"},
		Request: &admissionv1.AdmissionRequest{
			UID: types.UID("6f0d3c2e-1b7a-4f1e-8e2a-9b1d5c7e3a40"), Kind: metav1.GroupVersionKind{Version: "v1", Kind: "Pod"},
			Resource: resource, SubResource: subResource, Namespace: pod.Namespace, Operation: admissionv1.Create,
			Object: runtime.RawExtension{Raw: raw},
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	return body
}

func post(t testing.TB, h http.Handler, body []byte) (*httptest.ResponseRecorder, *admissionv1.AdmissionReview) {
	req := httptest.NewRequest(http.MethodPost, MutatePodsPath, bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	if rec.Code != http.StatusOK {
		return rec, nil
	}
	review := &admissionv1.AdmissionReview{}
	if err := json.Unmarshal(rec.Body.Bytes(), review); err != nil {
		t.Fatalf("response is not an AdmissionReview: %v: %s", err, rec.Body)
	}
	return rec, review
}

func TestPodHandler(t *testing.T) {
	const annotation = "subscription.openshift.io/inject-bundle"
	claimed := []mutation.Mutator{labelMutator{annotation: annotation}}
	for _, tc := range []struct {
		name        string
		mutators    []mutation.Mutator
		annotations map[string]string
		resource    metav1.GroupVersionResource
		subResource string
		wantAllowed bool
		wantPatch   string
		wantMessage string
	}{{
		name: "a pod no mutator is concerned with is allowed without a patch", mutators: claimed,
		resource: podResource, wantAllowed: true,
	}, {
		name: "no mutators at all", resource: podResource, wantAllowed: true,
	}, {
		name: "a concerned mutator's patch is returned", mutators: claimed, annotations: map[string]string{annotation: "b1"},
		resource: podResource, wantAllowed: true, wantPatch: `[{"op":"add","path":"/metadata/labels/injected","value":"yes"}]`,
	}, {
		name: "a denial carries the mutator's message", mutators: claimed, annotations: map[string]string{annotation: "deny"},
		resource: podResource, wantMessage: "pod shop/ asked to be denied",
	}, {
		name: "an explicit request no mutator serves is refused", annotations: map[string]string{annotation: "b1"},
		resource: podResource, wantMessage: "annotation subscription.openshift.io/inject-bundle, which this webhook does not serve",
	}, {
		name: "an empty request annotation asks for nothing, served or not", annotations: map[string]string{annotation: " "},
		resource: podResource, wantAllowed: true,
	}, {
		name: "ephemeral containers are pods too", mutators: claimed, annotations: map[string]string{annotation: "b1"},
		resource: podResource, subResource: "ephemeralcontainers", wantAllowed: true, wantPatch: `[{"op":"add","path":"/metadata/labels/injected","value":"yes"}]`,
	}, {
		name: "other subresources are left alone", annotations: map[string]string{annotation: "b1"},
		resource: podResource, subResource: "status", wantAllowed: true,
	}, {
		name: "other resources are left alone", annotations: map[string]string{annotation: "b1"},
		resource: metav1.GroupVersionResource{Group: "apps", Version: "v1", Resource: "deployments"}, wantAllowed: true,
	}} {
		t.Run(tc.name, func(t *testing.T) {
			h := newPodHandler(tc.mutators, newMetrics())
			_, review := post(t, h, reviewBody(t, realisticPod(tc.annotations), tc.resource, tc.subResource))
			if review == nil || review.Response == nil {
				t.Fatal("no admission response")
			}
			resp := review.Response
			if resp.UID != "6f0d3c2e-1b7a-4f1e-8e2a-9b1d5c7e3a40" {
				t.Errorf("response UID %q does not echo the request", resp.UID)
			}
			if review.APIVersion != "admission.k8s.io/v1" || review.Kind != "AdmissionReview" {
				t.Errorf("response type %s/%s", review.APIVersion, review.Kind)
			}
			if resp.Allowed != tc.wantAllowed {
				t.Fatalf("allowed = %v, want %v (%+v)", resp.Allowed, tc.wantAllowed, resp.Result)
			}
			if string(resp.Patch) != tc.wantPatch {
				t.Errorf("patch = %s, want %s", resp.Patch, tc.wantPatch)
			}
			if (resp.PatchType != nil) != (tc.wantPatch != "") {
				t.Errorf("patch type %v with patch %q", resp.PatchType, tc.wantPatch)
			}
			if tc.wantMessage != "" {
				if resp.Result == nil || !strings.Contains(resp.Result.Message, tc.wantMessage) || resp.Result.Code != http.StatusForbidden {
					t.Errorf("result = %+v, want code 403 and a message containing %q", resp.Result, tc.wantMessage)
				}
			}
		})
	}
}

func TestPodHandlerRejectsMalformedRequests(t *testing.T) {
	h := newPodHandler(nil, newMetrics())
	for _, tc := range []struct {
		name, method, contentType, body string
		wantCode                        int
	}{
		{"GET", http.MethodGet, "application/json", "{}", http.StatusMethodNotAllowed},
		{"not JSON", http.MethodPost, "text/plain", "{}", http.StatusUnsupportedMediaType},
		{"garbage", http.MethodPost, "application/json", "{", http.StatusBadRequest},
		{"no request", http.MethodPost, "application/json", `{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview"}`, http.StatusBadRequest},
		{"too large", http.MethodPost, "application/json", `{"x":"` + strings.Repeat("a", maxRequestBytes) + `"}`, http.StatusRequestEntityTooLarge},
	} {
		t.Run(tc.name, func(t *testing.T) {
			req := httptest.NewRequest(tc.method, MutatePodsPath, strings.NewReader(tc.body))
			req.Header.Set("Content-Type", tc.contentType)
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, req)
			if rec.Code != tc.wantCode {
				t.Errorf("code = %d, want %d (%s)", rec.Code, tc.wantCode, rec.Body)
			}
		})
	}
}

// A pod is decoded as far as the webhook reads it: the outline always, the
// old pod of an UPDATE only for a mutator that reads it; a field nobody
// reads is never decoded. Whatever part is read and does not decode refuses
// the pod, with a refusal rather than an HTTP error that the fail-open
// webhook's failurePolicy would turn into an admission.
func TestPodHandlerRejectsUndecodablePod(t *testing.T) {
	const review = `{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"uid":"u1","resource":{"version":"v1","resource":"pods"},%s}}`
	const create = `"operation":"CREATE","object":%s`
	const debugContainer = `"subResource":"ephemeralcontainers","operation":"UPDATE","object":{},"oldObject":%s`
	readsOldPod := newPodHandler([]mutation.Mutator{oldPodMutator{}}, newMetrics())
	for _, tc := range []struct {
		name, request string
		handler       *podHandler
		wantCode      int32
		wantMessage   string
	}{
		{"malformed metadata", fmt.Sprintf(create, `{"metadata":{"annotations":["not","a","map"]}}`), newPodHandler(nil, newMetrics()), http.StatusBadRequest, "decoding the pod: json: cannot unmarshal array"},
		{"a malformed container list", fmt.Sprintf(create, `{"spec":{"containers":"not a list"}}`), newPodHandler(nil, newMetrics()), http.StatusBadRequest, "decoding the pod: json: cannot unmarshal string"},
		{"a malformed old pod a mutator reads", fmt.Sprintf(debugContainer, `{"spec":{"ephemeralContainers":"not a list"}}`), readsOldPod, http.StatusForbidden, "decoding the old pod: json: cannot unmarshal string"},
		{"no pod", fmt.Sprintf(create, `null`), newPodHandler(nil, newMetrics()), http.StatusBadRequest, "the admission review has no pod"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, got := post(t, tc.handler, []byte(fmt.Sprintf(review, tc.request)))
			if got == nil || got.Response.UID != "u1" || got.Response.Allowed || got.Response.Result.Code != tc.wantCode || !strings.Contains(got.Response.Result.Message, tc.wantMessage) {
				t.Fatalf("want a %d refusal with %q, got %+v", tc.wantCode, tc.wantMessage, got)
			}
		})
	}
	// A field only the whole pod has is not read, so it cannot refuse.
	_, got := post(t, newPodHandler([]mutation.Mutator{volumeMutator{"first"}}, newMetrics()), []byte(fmt.Sprintf(review, fmt.Sprintf(create, `{"spec":{"priority":"high"}}`))))
	if got == nil || !got.Response.Allowed || len(got.Response.Patch) == 0 {
		t.Fatalf("a malformed field nobody reads: want admitted and patched, got %+v", got)
	}
}

// BenchmarkNoOpAdmission is the baseline every mutator adds to: one
// AdmissionReview for a realistic pod that asks for nothing, through the
// handler (decode, no mutator concerned, encode), without TLS.
func BenchmarkNoOpAdmission(b *testing.B) {
	h := newPodHandler([]mutation.Mutator{labelMutator{annotation: "subscription.openshift.io/inject-bundle"}}, newMetrics())
	body := reviewBody(b, realisticPod(map[string]string{"openshift.io/scc": "restricted-v2"}), podResource, "")
	b.ReportAllocs()
	b.SetBytes(int64(len(body)))
	for b.Loop() {
		req := httptest.NewRequest(http.MethodPost, MutatePodsPath, bytes.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if rec.Code != http.StatusOK {
			b.Fatalf("code %d", rec.Code)
		}
	}
}

// oldPodMutator warns with the name of the old pod's first ephemeral
// container, to show what the handler passed it.
type oldPodMutator struct{}

func (oldPodMutator) Name() string                 { return "old" }
func (oldPodMutator) RequestAnnotations() []string { return nil }
func (oldPodMutator) Mutate(_ context.Context, req *mutation.Request) mutation.Result {
	var old *mutation.PodOutline
	if err := req.DecodeOldPod(&old); err != nil {
		return mutation.Undecodable(err)
	}
	if old == nil {
		return mutation.Result{Warnings: []string{"no old pod"}}
	}
	return mutation.Result{Warnings: []string{"old pod had " + old.Spec.EphemeralContainers[0].Name}}
}

func TestPodHandlerPassesOldPodAndReturnsWarnings(t *testing.T) {
	h := newPodHandler([]mutation.Mutator{oldPodMutator{}}, newMetrics())
	_, review := post(t, h, reviewBody(t, realisticPod(nil), podResource, ""))
	if review == nil || !review.Response.Allowed || strings.Join(review.Response.Warnings, ",") != "no old pod" {
		t.Fatalf("create: %+v", review)
	}

	old := realisticPod(nil)
	old.Spec.EphemeralContainers = []corev1.EphemeralContainer{{EphemeralContainerCommon: corev1.EphemeralContainerCommon{Name: "debugger-1"}}}
	oldRaw, err := json.Marshal(old)
	if err != nil {
		t.Fatal(err)
	}
	var update admissionv1.AdmissionReview
	if err := json.Unmarshal(reviewBody(t, realisticPod(nil), podResource, "ephemeralcontainers"), &update); err != nil {
		t.Fatal(err)
	}
	update.Request.Operation = admissionv1.Update
	update.Request.OldObject = runtime.RawExtension{Raw: oldRaw}
	body, err := json.Marshal(update)
	if err != nil {
		t.Fatal(err)
	}
	_, review = post(t, h, body)
	if review == nil || !review.Response.Allowed || strings.Join(review.Response.Warnings, ",") != "old pod had debugger-1" {
		t.Fatalf("update: %+v", review)
	}
}

// volumeMutator adds one volume the way the subscription mutator does: by
// writing the pod's whole volume list.
type volumeMutator struct{ volume string }

func (m volumeMutator) Name() string                 { return m.volume }
func (m volumeMutator) RequestAnnotations() []string { return nil }
func (m volumeMutator) Mutate(_ context.Context, req *mutation.Request) mutation.Result {
	volumes := append(slices.Clone(req.Outline.Spec.Volumes), corev1.Volume{Name: m.volume, VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}})
	return mutation.Result{Patch: []mutation.PatchOperation{{Op: "add", Path: "/spec/volumes", Value: volumes}}}
}

func TestPodHandlerChainsMutatorsThatRewriteTheSameList(t *testing.T) {
	h := newPodHandler([]mutation.Mutator{volumeMutator{"first"}, volumeMutator{"second"}}, newMetrics())
	pod := realisticPod(nil)
	_, review := post(t, h, reviewBody(t, pod, podResource, ""))
	if review == nil || !review.Response.Allowed {
		t.Fatalf("not allowed: %+v", review)
	}
	raw, err := json.Marshal(pod)
	if err != nil {
		t.Fatal(err)
	}
	out := mutationtest.ApplyJSONPatch(t, raw, review.Response.Patch)
	var names []string
	for _, v := range out.Spec.Volumes {
		names = append(names, v.Name)
	}
	if got, want := strings.Join(names, ","), "kube-api-access-x7k2p,first,second"; got != want {
		t.Fatalf("volumes after both mutators: %s, want %s", got, want)
	}
}

// The handler's work ends a little before the API server stops waiting
// for it, as the "timeout" query parameter says; without one (not the API
// server), at the path's default.
func TestAdmissionDeadline(t *testing.T) {
	for _, tc := range []struct {
		query      string
		wantBefore time.Duration // the deadline is at most this far away
		wantAfter  time.Duration // and at least this far
	}{
		{"?timeout=3s", 3*time.Second - admissionMargin, 2 * time.Second},
		{"?timeout=1s", 750 * time.Millisecond, 500 * time.Millisecond},
		{"", podsTimeout - admissionMargin, podsTimeout - time.Second},
		{"?timeout=soon", podsTimeout - admissionMargin, podsTimeout - time.Second},
		{"?timeout=-1s", podsTimeout - admissionMargin, podsTimeout - time.Second},
		{"?timeout=1h", maxAdmissionTimeout - admissionMargin, maxAdmissionTimeout - time.Second},
	} {
		r := httptest.NewRequest(http.MethodPost, "/mutate-pods"+tc.query, nil)
		if left := time.Until(admissionDeadline(r, podsTimeout)); left > tc.wantBefore || left < tc.wantAfter {
			t.Errorf("%q: deadline %v away, want between %v and %v", tc.query, left, tc.wantAfter, tc.wantBefore)
		}
	}
}

// deadlineMutator records how far away its context's deadline is.
type deadlineMutator struct{ left *time.Duration }

func (deadlineMutator) Name() string                 { return "deadline" }
func (deadlineMutator) RequestAnnotations() []string { return nil }
func (m deadlineMutator) Mutate(ctx context.Context, _ *mutation.Request) mutation.Result {
	if deadline, ok := ctx.Deadline(); ok {
		*m.left = time.Until(deadline)
	}
	return mutation.Result{}
}

func TestMutatorsWorkWithinTheAPIServersTimeout(t *testing.T) {
	body := `{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"uid":"u1","resource":{"version":"v1","resource":"pods"},"operation":"CREATE","object":{"metadata":{"name":"p"}}}}`
	for _, tc := range []struct {
		query string
		want  time.Duration
	}{
		{"?timeout=3s", 3*time.Second - admissionMargin},
		// A caller that does not say its timeout still gets a deadline.
		{"", podsTimeout - admissionMargin},
	} {
		var left time.Duration
		h := newPodHandler([]mutation.Mutator{deadlineMutator{&left}}, newMetrics())
		req := httptest.NewRequest(http.MethodPost, MutatePodsPath+tc.query, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if rec.Code != http.StatusOK || left <= tc.want-time.Second || left > tc.want {
			t.Errorf("%q: status %d; the mutator's deadline was %v away, want set and just under %v", tc.query, rec.Code, left, tc.want)
		}
	}
}

// The mutators production runs, one after the other, on a pod that asks
// for a bundle and whose ServiceAccount has a role: the second sees the
// first one's changes through the outline alone (no pod patched and decoded
// in between), the pod gets both, and admitting the result again changes
// nothing.
func TestProductionMutatorsComposeThroughTheOutline(t *testing.T) {
	config := podidentity.DefaultConfig()
	config.Region = "eu-west-3"
	role := staticServiceAccounts{"shop/frontend": podidentity.CachedAnnotations(map[string]string{podidentityv1alpha1.RoleARNAnnotation: "arn:aws:iam::111122223333:role/frontend"})}
	m := newMetrics()
	h := newPodHandler([]mutation.Mutator{fuzzWorld(t), podidentity.New(config, role)}, m)
	pod := realisticPod(map[string]string{v1alpha1.InjectBundleAnnotation: "rhel"})
	_, review := post(t, h, reviewBody(t, pod, podResource, ""))
	if review == nil || !review.Response.Allowed {
		t.Fatalf("not allowed: %+v", review)
	}
	raw, err := json.Marshal(pod)
	if err != nil {
		t.Fatal(err)
	}
	out := mutationtest.ApplyJSONPatch(t, raw, review.Response.Patch)
	var volumes []string
	for _, v := range out.Spec.Volumes {
		volumes = append(volumes, v.Name)
	}
	if !slices.Contains(volumes, podidentity.VolumeName) || !slices.ContainsFunc(volumes, func(v string) bool { return strings.HasPrefix(v, "subscription-") }) {
		t.Errorf("volumes %v: want the token volume and the bundle's", volumes)
	}
	for _, c := range out.Spec.Containers {
		var mounts []string
		for _, vm := range c.VolumeMounts {
			mounts = append(mounts, vm.Name)
		}
		if !slices.Contains(mounts, podidentity.VolumeName) || !slices.ContainsFunc(mounts, func(v string) bool { return strings.HasPrefix(v, "subscription-") }) {
			t.Errorf("container %s mounts %v: want both injections", c.Name, mounts)
		}
	}
	if n := testutil.ToFloat64(m.outlineFallbacks); n != 0 {
		t.Errorf("%v patches went through the whole pod", n)
	}
	_, again := post(t, h, reviewBody(t, out, podResource, ""))
	if again == nil || !again.Response.Allowed || len(again.Response.Patch) != 0 {
		t.Errorf("admitting the injected pod again: %+v", again)
	}
}

// imageMutator changes what the outline does not hold, and adds a volume.
type imageMutator struct{}

func (imageMutator) Name() string                 { return "image" }
func (imageMutator) RequestAnnotations() []string { return nil }
func (imageMutator) Mutate(context.Context, *mutation.Request) mutation.Result {
	return mutation.Result{Patch: []mutation.PatchOperation{
		{Op: "replace", Path: "/spec/containers/0/image", Value: "quay.io/example/other:2"},
		{Op: "add", Path: "/spec/volumes/-", Value: corev1.Volume{Name: "extra"}},
	}}
}

// A patch the outline cannot follow is applied to the whole pod, which the
// next mutator then sees, and it is counted.
func TestPodHandlerPatchesTheWholePodWhereTheOutlineCannotFollow(t *testing.T) {
	m := newMetrics()
	h := newPodHandler([]mutation.Mutator{imageMutator{}, volumeMutator{"second"}}, m)
	pod := realisticPod(nil)
	_, review := post(t, h, reviewBody(t, pod, podResource, ""))
	if review == nil || !review.Response.Allowed {
		t.Fatalf("not allowed: %+v", review)
	}
	raw, err := json.Marshal(pod)
	if err != nil {
		t.Fatal(err)
	}
	out := mutationtest.ApplyJSONPatch(t, raw, review.Response.Patch)
	var names []string
	for _, v := range out.Spec.Volumes {
		names = append(names, v.Name)
	}
	if got, want := strings.Join(names, ","), "kube-api-access-x7k2p,extra,second"; got != want || out.Spec.Containers[0].Image != "quay.io/example/other:2" {
		t.Errorf("volumes %s (want %s), image %s", got, want, out.Spec.Containers[0].Image)
	}
	if n := testutil.ToFloat64(m.outlineFallbacks); n != 1 {
		t.Errorf("%v whole-pod patches, want 1", n)
	}
}

// A pod of a ServiceAccount whose role ARN is past IAM's limit is refused,
// the message naming the ServiceAccount, the annotation and the limit,
// whether the ServiceAccount is cached or looked up live.
func TestOversizeRoleARNRefusesThePod(t *testing.T) {
	for _, live := range []bool{false, true} {
		s := clusterreads.NewServiceAccountAnnotations(fake.NewClientset(&corev1.ServiceAccount{
			ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "frontend", Annotations: map[string]string{
				podidentityv1alpha1.RoleARNAnnotation:  "arn:aws:iam::123456789012:role/" + strings.Repeat("a", 3000-31),
				podidentityv1alpha1.AudienceAnnotation: "sts.amazonaws.com",
			}},
		}), podidentity.CachedAnnotations)
		if !live { // else the cache is not started: every lookup is a miss
			ctx, cancel := context.WithCancel(context.Background())
			t.Cleanup(cancel)
			go s.Run(ctx)
			if !cache.WaitForCacheSync(ctx.Done(), s.HasSynced) {
				t.Fatal("cache did not sync")
			}
		}
		h := newPodHandler([]mutation.Mutator{podidentity.New(podidentity.DefaultConfig(), s)}, newMetrics())
		_, review := post(t, h, reviewBody(t, realisticPod(nil), podResource, ""))
		if review == nil || review.Response == nil {
			t.Fatal("no admission response")
		}
		want := "annotation eks.amazonaws.com/role-arn on ServiceAccount shop/frontend is longer than 2048 bytes"
		if r := review.Response; r.Allowed || r.Result == nil || !strings.HasPrefix(r.Result.Message, want) {
			t.Errorf("live lookup %v: allowed=%v result=%+v, want a refusal starting %q", live, r.Allowed, r.Result, want)
		}
	}
}
