package webhook

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"

	v1alpha1 "github.com/openshift/cluster-workload-access-operator/pkg/apis/subscription/v1alpha1"
	"github.com/openshift/cluster-workload-access-operator/pkg/webhook/mutation"
)

// FuzzReviewDecode compares decodeReview, the one-pass decoder of the
// review header and the pod's outline, with encoding/json.Unmarshal into
// the same types: for any body, both accept or both refuse it, and what
// they accept decodes to equal values. Seeds: the handler's corpus
// (realistic reviews, malformed ones) and the cases below.
func FuzzReviewDecode(f *testing.F) {
	for _, tc := range answerCases() {
		_, body := tc.handler(f)
		f.Add(body)
	}
	f.Add(reviewBody(f, checkoutPod(map[string]string{v1alpha1.InjectBundleAnnotation: "rhel"}), podResource, "ephemeralcontainers"))
	for _, body := range reviewDecodeSeeds {
		f.Add([]byte(body))
	}
	corpus, _ := filepath.Glob("testdata/fuzz/FuzzPodHandler/*")
	for _, file := range corpus {
		body, err := corpusBytes(file)
		if err != nil {
			f.Fatalf("%s: %v", file, err)
		}
		f.Add(body)
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		var want, got reviewHeader
		wantErr := json.Unmarshal(body, &want)
		gotErr := decodeReview(body, &got, nil)
		switch {
		case (wantErr == nil) != (gotErr == nil):
			t.Fatalf("encoding/json: %v; decodeReview: %v; body %q", wantErr, gotErr, body)
		case wantErr != nil:
			return
		}
		if got.Request != nil && got.Request.Object != nil {
			checkReceivedVolumes(t, got.Request.Object, body)
			got.Request.Object.SetReceivedVolumes(nil)
		}
		if !reflect.DeepEqual(want, got) {
			t.Fatalf("encoding/json decoded\n%s\ndecodeReview\n%s\nbody %q", dump(want), dump(got), body)
		}
		checkByName(t, body, want)
	})
}

// readsOddNames is the fuzz's stand-in for the mutators' VolumeReader:
// volumes whose names have an odd length are decoded in full, the others
// by name.
func readsOddNames(name string) bool { return len(name)%2 == 1 }

// checkByName compares decodeReview reading volumes by name with
// encoding/json's decoding of body (want, accepted): equal, but for the
// volumes no reader reads, which are their names alone (or all in full,
// when the volumes had to be decoded again in full).
func checkByName(t *testing.T, body []byte, want reviewHeader) {
	t.Helper()
	var got reviewHeader
	if err := decodeReview(body, &got, readsOddNames); err != nil {
		t.Fatalf("encoding/json accepts the body, decodeReview reading volumes by name refuses it: %v; body %q", err, body)
	}
	compareByName(t, body, want, got)
}

func compareByName(t *testing.T, body []byte, want, got reviewHeader) {
	t.Helper()
	if got.Request != nil && got.Request.Object != nil {
		pod := got.Request.Object
		checkReceivedVolumes(t, pod, body)
		if slices.ContainsFunc(pod.Spec.Volumes, func(v corev1.Volume) bool { return mutation.IsNameOnly(&v) }) {
			want.Request.Object.Spec.Volumes = namesOnly(want.Request.Object.Spec.Volumes)
		}
		pod.SetReceivedVolumes(nil)
	}
	if !reflect.DeepEqual(want, got) {
		t.Fatalf("encoding/json decoded, with volumes read by name\n%s\ndecodeReview\n%s\nbody %q", dump(want), dump(got), body)
	}
}

// namesOnly is volumes as a reading by name (readsOddNames) leaves them.
func namesOnly(volumes []corev1.Volume) []corev1.Volume {
	out := slices.Clone(volumes)
	for i, v := range out {
		if !readsOddNames(v.Name) {
			out[i] = mutation.NameOnly(v.Name)
		}
	}
	return out
}

// FuzzReviewDecodeByName checks what reading volumes by name may accept
// that encoding/json refuses: only a body whose type errors are all inside
// volumes read by name, which with those volumes cut to their names
// encoding/json accepts, and decodes as the reading did.
func FuzzReviewDecodeByName(f *testing.F) {
	for _, tc := range answerCases() {
		_, body := tc.handler(f)
		f.Add(body)
	}
	for _, body := range reviewDecodeSeeds {
		f.Add([]byte(body))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		var want, got reviewHeader
		wantErr := json.Unmarshal(body, &want)
		gotErr := decodeReview(body, &got, readsOddNames)
		switch {
		case wantErr == nil && gotErr != nil:
			t.Fatalf("encoding/json accepts the body, decodeReview reading volumes by name refuses it: %v; body %q", gotErr, body)
		case gotErr != nil:
			return
		case wantErr == nil:
			compareByName(t, body, want, got)
			return
		}
		cut := cutToNames(t, body, got.Request.Object)
		var cutWant reviewHeader
		if err := json.Unmarshal(cut, &cutWant); err != nil {
			t.Fatalf("decodeReview reading volumes by name accepts a body encoding/json refuses (%v), and refuses still with the volumes read by name cut to their names: %v; body %q", wantErr, err, body)
		}
		compareByName(t, body, cutWant, got)
	})
}

// cutToNames is body with the JSON of each volume the pod has by name
// alone replaced by an object of its name.
func cutToNames(t *testing.T, body []byte, pod *mutation.PodOutline) []byte {
	t.Helper()
	if pod == nil {
		return body
	}
	received := pod.ReceivedVolumes()
	var out []byte
	at := 0
	for i, v := range pod.Spec.Volumes {
		if !mutation.IsNameOnly(&v) {
			continue
		}
		if received == nil {
			t.Fatalf("volume %d was read by name with no JSON recorded; body %q", i, body)
		}
		// Each recorded JSON is a slice of body.
		start := cap(body) - cap(received[i])
		name, _ := json.Marshal(v.Name)
		out = append(append(append(append(out, body[at:start]...), `{"name":`...), name...), '}')
		at = start + len(received[i])
	}
	return append(out, body[at:]...)
}

// checkReceivedVolumes checks the JSON recorded for each volume decodes, by
// encoding/json, to that volume: a patch sends it back in its place.
func checkReceivedVolumes(t *testing.T, pod *mutation.PodOutline, body []byte) {
	received := pod.ReceivedVolumes()
	if received == nil {
		return
	}
	for i, raw := range received {
		if mutation.IsNameOnly(&pod.Spec.Volumes[i]) {
			var named struct{ Name string }
			if err := json.Unmarshal(raw, &named); err != nil || named.Name != pod.Spec.Volumes[i].Name {
				t.Fatalf("volume %d, read by name as %q, was recorded as %q (%v); body %q", i, pod.Spec.Volumes[i].Name, raw, err, body)
			}
			continue
		}
		var v corev1.Volume
		if err := json.Unmarshal(raw, &v); err != nil {
			t.Fatalf("volume %d was recorded as %q, which does not decode: %v; body %q", i, raw, err, body)
		}
		if !reflect.DeepEqual(v, pod.Spec.Volumes[i]) {
			t.Fatalf("volume %d was recorded as %q, which decodes to\n%s\nnot\n%s\nbody %q", i, raw, dump(v), dump(pod.Spec.Volumes[i]), body)
		}
	}
}

func dump(v any) string { return fmt.Sprintf("%#v", v) }

// corpusBytes reads the one []byte of a "go test fuzz v1" corpus file.
func corpusBytes(file string) ([]byte, error) {
	raw, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	_, value, ok := strings.Cut(string(raw), "\n")
	value = strings.TrimSpace(value)
	if !ok || !strings.HasPrefix(value, "[]byte(") || !strings.HasSuffix(value, ")") {
		return nil, fmt.Errorf("not a corpus file of one []byte")
	}
	var s string
	if _, err := fmt.Sscanf(strings.TrimSuffix(strings.TrimPrefix(value, "[]byte("), ")"), "%q", &s); err != nil {
		return nil, err
	}
	return []byte(s), nil
}

// reviewDecodeSeeds are where the two decoders could part: case, duplicate
// names, nulls, wrong types, escapes, invalid UTF-8, trailing data.
var reviewDecodeSeeds = []string{
	``,
	// Volumes recorded as received, or not (a merge, a null item).
	`{"request":{"object":{"spec":{"volumes":[ {"name":"a"} ,` + "\n" + ` {"name":"c","emptyDir":{}}]}}}}`,
	`{"request":{"object":{"spec":{"volumes":[{"name":"a","secret":{"secretName":"s"}}],"volumes":[{"name":"b"}]}}}}`,
	`{"request":{"object":{"spec":{"volumes":[{"name":"a"},{"name":"b"}],"volumes":[{"name":"c"}],"Volumes":[{"name":"d"},{"name":"e"}]}}}}`,
	`{"request":{"object":{"spec":{"volumes":[{"name":"a"},null,{"name":"c"}]}}}}`,
	`null`,
	`[]`,
	`{"request":null}`,
	`{"request":5}`,
	`{"request":{}} x`,
	`{"request":{}} {}`,
	`{"request":{}}   `,
	`{"REQUEST":{"UID":"u","Object":{"Metadata":{"Annotations":{"a":"b"}}}}}`,
	`{"request":{"uid":"a","uid":"b","object":{"metadata":{"labels":{"a":"1"}},"metadata":{"labels":{"b":"2"},"name":"n"}}}}`,
	`{"request":{"object":{"spec":{"containers":[{"name":"a","env":[{"name":"X"}]},{"name":"b"}],"containers":[{"name":"c"}]}}}}`,
	`{"request":{"object":{"spec":{"containers":[{"name":"a"},{"name":"b"}],"containers":[{"env":[]}],"containers":[{},{}]}}}}`,
	`{"request":{"object":{"spec":{"volumes":[],"containers":null,"initContainers":[{"volumeMounts":null}]}}}}`,
	`{"request":{"object":{"metadata":{"annotations":null,"labels":{"a":null}}}}}`,
	`{"request":{"object":{"metadata":{"annotations":{"a":1}}}}}`,
	`{"request":{"object":{"metadata":{"annotations":["not","a","map"]}}}}`,
	`{"request":{"object":{"spec":{"containers":"not a list"}}}}`,
	`{"request":{"object":{"spec":{"containers":[{"volumeMounts":[{"name":"a","readOnly":"yes"}]}]}}}}`,
	`{"request":{"object":{"spec":{"containers":[{"volumeMounts":[{"mountPropagation":null,"recursiveReadOnly":"IfPossible"}]}]}}}}`,
	`{"request":{"object":{"spec":{"volumes":[{"name":"v","emptyDir":{"sizeLimit":"1Gi"}},{"name":"w","projected":{"defaultMode":"x"}}]}}}}`,
	`{"request":{"object":{"spec":{"volumes":[{"name":"v","configMap":{"name":"c","defaultMode":420,"items":[{"key":"k","path":"p"}]}}]}}}}`,
	`{"request":{"object":{"spec":{"volumes":[{"name":"v","Name":"w","NAME":null}]}}}}`,
	`{"request":{"object":{"spec":{"os":{"name":"windows"},"os":null,"nodeSelector":{"kubernetes.io/os":"windows"}}}}}`,
	`{"request":{"object":{"spec":{"os":5}}}}`,
	`{"request":{"object":"pod"}}`,
	`{"request":{"object":{"metadata":{"name":"a\u00e9\ud800\udc00\ud800x\"\\\/\b\f\n\r\t"}}}}`,
	"{\"request\":{\"object\":{\"metadata\":{\"name\":\"\xff\xfe\",\"annotations\":{\"\xc3\":\"\xed\xa0\x80\"}}}}}",
	`{"request":{"object":{"metadata":{"name":"\u0000"}}}}`,
	"{\"request\":{\"object\":{\"metadata\":{\"name\":\"a\tb\"}}}}",
	`{"request":{"object":{"metadata":{"name":"\x"}}}}`,
	`{"request":{"resource":{"version":"v1","resource":"pods"},"subResource":"ephemeralcontainers","operation":"UPDATE","namespace":"shop"}}`,
	`{"request":{"resource":{"version":1}}}`,
	`{"request":{"operation":true}}`,
	`{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"uid":"u"},"response":{"allowed":true}}`,
	`{"request":{"object":{"spec":{"priority":"high","containers":[{"image":5,"name":"a"}]}}}}`,
	`{"request":{"obje\u0063t":{"metadata":{"nam\u0065":"escaped names"}}}}`,
	`{"request":{"object":{"metadata":{"ſ":"long s","K":"kelvin"}}}}`,
	`{"request":{"object":{"spec":{"serviceAccountName":-0.5e10}}}}`,
	`{"request":{"object":{"spec":{"volumes":[{"name":"v","csi":{"driver":"d","volumeAttributes":{"a":"b"},"readOnly":true}}],"volumes":[{"csi":null}]}}}}`,
	`{"request":{"object":{"spec":{"volumes":[1,{"name":"after"}]}}}}`,
	`{"request":{"object":{"spec":{"volumes":[{"name":"v","projected":{"sources":[{"serviceAccountToken":{"path":"token","expirationSeconds":"3600"}}]}}]}}}}`,
	`{"request":{"object":{"spec":{"volumes":[{"name":"v"}],"volumes":[{"secret":{"secretName":"s"}}]}}}}`,
	`{"request":{"object":{"spec":{"volumes":[{"name":"v"},{"name":"w"}],"volumes":[{"name":"x"}],"volumes":[{},{}]}}}}`,
	`{"request":{"object":{"spec":{"volumes":[{"name":"v"` + "\n",
	`{"request":{"object":{"spec":{"containers":[{"name":"a",}]}}}}`,
	`{"request":{"object":{"metadata":{"labels":{"a":"b","a":"c"}}}}}`,
}

func TestVolumesAreRecordedAsReceived(t *testing.T) {
	for _, tc := range []struct {
		name, volumes string
		// want is each volume's recorded JSON; nil for none.
		want []string
	}{
		{"each item as it came", `[ {"name":"a"} ,` + "\n" + ` {"name":"c","emptyDir":{"medium":"Memory"}}]`,
			[]string{`{"name":"a"}`, `{"name":"c","emptyDir":{"medium":"Memory"}}`}},
		{"a field this build does not know is kept", `[{"name":"a","secret":{"secretName":"s","futureOption":true}}]`,
			[]string{`{"name":"a","secret":{"secretName":"s","futureOption":true}}`}},
		{"none for a merge of two members", `[{"name":"a","secret":{"secretName":"s"}}],"volumes":[{"name":"b"}]`, nil},
		{"none for a null item", `[{"name":"a"},null]`, nil},
		{"none for no volumes", `[]`, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var review reviewHeader
			body := []byte(`{"request":{"uid":"u","object":{"spec":{"volumes":` + tc.volumes + `}}}}`)
			if err := decodeReview(body, &review, nil); err != nil {
				t.Fatal(err)
			}
			pod := review.Request.Object
			var got []string
			for _, raw := range pod.ReceivedVolumes() {
				got = append(got, string(raw))
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("recorded %q, want %q", got, tc.want)
			}
			if tc.want == nil {
				return
			}
			// A list an earlier mutator's patch changed is not the one received.
			next, err := pod.Apply([]mutation.PatchOperation{{Op: "add", Path: "/spec/volumes/-", Value: corev1.Volume{Name: "z"}}})
			if err != nil {
				t.Fatal(err)
			}
			if raw := next.ReceivedVolumes(); raw != nil {
				t.Errorf("after a patch of the volumes, recorded %q, want none", raw)
			}
			if next, err = pod.Apply([]mutation.PatchOperation{{Op: "add", Path: "/metadata/annotations", Value: map[string]string{"a": "b"}}}); err != nil {
				t.Fatal(err)
			}
			if len(next.ReceivedVolumes()) != len(tc.want) {
				t.Errorf("after a patch of the annotations only, the volumes' JSON is gone")
			}
		})
	}
}
