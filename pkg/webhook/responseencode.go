package webhook

import (
	"encoding/base64"
	"encoding/json"
	"net/http"
	"sync"

	admissionv1 "k8s.io/api/admission/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/openshift/cluster-workload-access-operator/pkg/webhook/mutation"
)

// The patch and the answer are written without reflection, byte for byte
// as encoding/json writes them (TestEncodingMatchesEncodingJSON): each
// admission sends them, and most of a patch's values are encoded once by
// the mutators (mutation.Encoded). Other values go through encoding/json.

// Patches are encoded into pooled buffers too: the answer carries them
// base64-encoded, a copy, so the buffer is free once the answer is.
var patchBuffers = sync.Pool{New: func() any { b := make([]byte, 0, 8<<10); return &b }}

func releasePatchBuffer(buf *[]byte) {
	if cap(*buf) <= pooledBodyBytes {
		*buf = (*buf)[:0]
		patchBuffers.Put(buf)
	}
}

// So are answers, once written: one carries its patch in base64.
var answers sync.Pool

// answerBuffer is an empty buffer of at least size bytes.
func answerBuffer(size int) []byte {
	if b, ok := answers.Get().(*[]byte); ok && cap(*b) >= size {
		return (*b)[:0]
	}
	return make([]byte, 0, size)
}

func denied(message string) *admissionv1.AdmissionResponse {
	return &admissionv1.AdmissionResponse{Result: &metav1.Status{
		Status: metav1.StatusFailure, Code: http.StatusForbidden, Reason: metav1.StatusReasonForbidden, Message: message,
	}}
}

func ptrTo[T any](v T) *T { return &v }

// appendPatch appends the JSON of a patch.
func appendPatch(dst []byte, patch []mutation.PatchOperation) ([]byte, error) {
	dst = append(dst, '[')
	for i, op := range patch {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = append(dst, `{"op":`...)
		dst = mutation.AppendString(dst, op.Op)
		dst = append(dst, `,"path":`...)
		dst = mutation.AppendString(dst, op.Path)
		if op.Value != nil {
			dst = append(dst, `,"value":`...)
			var err error
			if dst, err = appendValue(dst, op.Value); err != nil {
				return nil, err
			}
		}
		dst = append(dst, '}')
	}
	return append(dst, ']'), nil
}

func appendValue(dst []byte, value any) ([]byte, error) {
	switch v := value.(type) {
	case mutation.Encoded:
		return append(dst, v...), nil
	case string:
		return mutation.AppendString(dst, v), nil
	case []corev1.VolumeMount:
		if v == nil {
			return append(dst, "null"...), nil
		}
		dst = append(dst, '[')
		for i := range v {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = appendMount(dst, &v[i])
		}
		return append(dst, ']'), nil
	case mutation.Volumes:
		if v.Items == nil {
			return append(dst, "null"...), nil
		}
		if err := mutation.CheckDecoded(v.Items, v.Encoded); err != nil {
			return nil, err
		}
		dst = append(dst, '[')
		for i := 0; i < len(v.Items); {
			if i > 0 {
				dst = append(dst, ',')
			}
			if i < len(v.Encoded) && v.Encoded[i] != nil {
				dst = append(dst, v.Encoded[i]...)
				i++
				continue
			}
			// The pod's own volumes, in all their variety: each run of
			// them in one call.
			end := i + 1
			for end < len(v.Items) && (end >= len(v.Encoded) || v.Encoded[end] == nil) {
				end++
			}
			raw, err := json.Marshal(v.Items[i:end])
			if err != nil {
				return nil, err
			}
			dst = append(dst, raw[1:len(raw)-1]...)
			i = end
		}
		return append(dst, ']'), nil
	}
	raw, err := json.Marshal(value)
	if err != nil {
		return nil, err
	}
	return append(dst, raw...), nil
}

// appendMount appends a volume mount as corev1.VolumeMount's JSON tags
// encode it.
func appendMount(dst []byte, m *corev1.VolumeMount) []byte {
	dst = append(dst, `{"name":`...)
	dst = mutation.AppendString(dst, m.Name)
	if m.ReadOnly {
		dst = append(dst, `,"readOnly":true`...)
	}
	if m.RecursiveReadOnly != nil {
		dst = append(dst, `,"recursiveReadOnly":`...)
		dst = mutation.AppendString(dst, string(*m.RecursiveReadOnly))
	}
	dst = append(dst, `,"mountPath":`...)
	dst = mutation.AppendString(dst, m.MountPath)
	if m.SubPath != "" {
		dst = append(dst, `,"subPath":`...)
		dst = mutation.AppendString(dst, m.SubPath)
	}
	if m.MountPropagation != nil {
		dst = append(dst, `,"mountPropagation":`...)
		dst = mutation.AppendString(dst, string(*m.MountPropagation))
	}
	if m.SubPathExpr != "" {
		dst = append(dst, `,"subPathExpr":`...)
		dst = mutation.AppendString(dst, m.SubPathExpr)
	}
	return append(dst, '}')
}

// encodeAdmitted encodes the answer admitting a pod with the mutators'
// patch and warnings, the patch composed into a pooled buffer.
func encodeAdmitted(typeMeta metav1.TypeMeta, uid types.UID, patch []mutation.PatchOperation, warnings []string) ([]byte, *metav1.Status) {
	patchBuf := patchBuffers.Get().(*[]byte)
	defer releasePatchBuffer(patchBuf)
	response := &admissionv1.AdmissionResponse{Allowed: true, Warnings: warnings}
	if len(patch) > 0 {
		raw, err := appendPatch((*patchBuf)[:0], patch)
		if err != nil {
			return encodeResponse(typeMeta, uid, denied("encoding the patch: "+err.Error()))
		}
		*patchBuf = raw
		response.Patch = raw
		response.PatchType = ptrTo(admissionv1.PatchTypeJSONPatch)
	}
	return encodeResponse(typeMeta, uid, response)
}

// encodeResponse encodes the answer to a review.
func encodeResponse(typeMeta metav1.TypeMeta, uid types.UID, response *admissionv1.AdmissionResponse) ([]byte, *metav1.Status) {
	response.UID = uid
	if response.Result != nil || response.AuditAnnotations != nil {
		// Refusals: rare, and their status has many fields.
		out, err := json.Marshal(admissionv1.AdmissionReview{TypeMeta: typeMeta, Response: response})
		if err != nil {
			return nil, &metav1.Status{Code: 500, Reason: metav1.StatusReasonInternalError, Message: "encoding the response: " + err.Error()}
		}
		return out, nil
	}
	size := 128 + len(typeMeta.Kind) + len(typeMeta.APIVersion) + len(uid) + base64.StdEncoding.EncodedLen(len(response.Patch))
	for _, w := range response.Warnings {
		size += len(w) + 3
	}
	out := answerBuffer(size)
	out = append(out, '{')
	if typeMeta.Kind != "" {
		out = append(out, `"kind":`...)
		out = mutation.AppendString(out, typeMeta.Kind)
		out = append(out, ',')
	}
	if typeMeta.APIVersion != "" {
		out = append(out, `"apiVersion":`...)
		out = mutation.AppendString(out, typeMeta.APIVersion)
		out = append(out, ',')
	}
	out = append(out, `"response":{"uid":`...)
	out = mutation.AppendString(out, string(uid))
	if response.Allowed {
		out = append(out, `,"allowed":true`...)
	} else {
		out = append(out, `,"allowed":false`...)
	}
	if len(response.Patch) > 0 {
		out = append(out, `,"patch":"`...)
		out = base64.StdEncoding.AppendEncode(out, response.Patch)
		out = append(out, '"')
	}
	if response.PatchType != nil {
		out = append(out, `,"patchType":`...)
		out = mutation.AppendString(out, string(*response.PatchType))
	}
	if len(response.Warnings) > 0 {
		out = append(out, `,"warnings":[`...)
		for i, w := range response.Warnings {
			if i > 0 {
				out = append(out, ',')
			}
			out = mutation.AppendString(out, w)
		}
		out = append(out, ']')
	}
	return append(out, "}}"...), nil
}
