package webhook

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"slices"
	"sync"
	"unicode/utf8"

	jsonv2 "github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
	jsonv1 "github.com/go-json-experiment/json/v1"
	admissionv1 "k8s.io/api/admission/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/openshift/cluster-workload-access-operator/pkg/webhook/mutation"
)

// decodeReview reads an AdmissionReview's header and its pod's outline in
// one pass over body, with the Go team's JSON tokenizer (jsontext): no
// separate validity scan, and nothing decoded that no mutator reads. It
// accepts and refuses what encoding/json.Unmarshal into reviewHeader does
// and decodes the same fields (FuzzReviewDecode compares the two): field
// names matched exactly, else without regard to case; the last of
// duplicate names wins; invalid UTF-8 becomes U+FFFD; null leaves a
// string or struct as it is and empties a map, list or pointer. A value
// of the wrong type is reported once the whole body is read, a syntax
// error first.
//
// With reads set, a volume whose name reads rejects is decoded by name only
// (mutation.NameOnly), its JSON kept to be sent back: its other fields are
// checked for syntax, not for type. Anything in the volumes that a
// name-only reading would not decode as encoding/json does (a duplicate
// "volumes" member, an item that is not an object, a name that is not a
// string) has the whole review decoded again, every volume in full.
func decodeReview(body []byte, review *reviewHeader, reads func(name string) bool) error {
	err := decodeReviewOnce(body, review, reads)
	if errors.Is(err, errDecodeInFull) {
		*review = reviewHeader{}
		err = decodeReviewOnce(body, review, nil)
	}
	return err
}

// errDecodeInFull stops a reading of volumes by name for one in full.
var errDecodeInFull = errors.New("the volumes are to be decoded in full")

func decodeReviewOnce(body []byte, review *reviewHeader, reads func(name string) bool) error {
	r := reviewReaders.Get().(*reviewReader)
	defer r.release()
	r.body = body
	r.reads = reads
	r.in = *bytes.NewBuffer(body)
	r.dec.Reset(&r.in, jsonv1.DefaultOptionsV1())
	err := r.readHeader(review)
	if err == nil {
		err = r.end()
	}
	if err != nil {
		return err
	}
	return r.typeErr
}

// reviewReader is the state of one decodeReview, pooled: a decoder keeps
// its token stack, and the scratch buffer holds escaped strings.
type reviewReader struct {
	dec jsontext.Decoder
	in  bytes.Buffer
	// body is what in reads: volumes are kept as slices of it.
	body    []byte
	scratch []byte
	// volumeScratch collects the volumes' JSON, cloned at the list's end
	// into one slice of its length.
	volumeScratch []mutation.Encoded
	// volumeItems are the volumes of the first list, copied out at its end
	// and cleared, never nil once used (nil is "null" to list).
	volumeItems []corev1.Volume
	// typeErr is the first value of the wrong type; decoding goes on, as
	// encoding/json's does, so that a syntax error later wins.
	typeErr error
	// reads names the volumes decoded in full; nil is all of them.
	reads func(name string) bool
}

var reviewReaders = sync.Pool{New: func() any { return new(reviewReader) }}

func (r *reviewReader) release() {
	r.in, r.body = bytes.Buffer{}, nil
	r.dec.Reset(&r.in) // drops the reference to the body
	r.typeErr, r.reads = nil, nil
	if cap(r.scratch) > 4<<10 {
		r.scratch = nil
	}
	// The slices point into the body: cleared, so the pool keeps no body alive.
	clear(r.volumeScratch[:cap(r.volumeScratch)])
	if cap(r.volumeScratch) > 64 {
		r.volumeScratch = nil
	}
	if cap(r.volumeItems) > 64 {
		r.volumeItems = nil
	}
	reviewReaders.Put(r)
}

// end checks that nothing but white space follows the review.
func (r *reviewReader) end() error {
	if r.dec.PeekKind() != 0 {
		return fmt.Errorf("invalid character after top-level value at offset %d", r.dec.InputOffset())
	}
	if _, err := r.dec.ReadToken(); err != nil && !errors.Is(err, io.EOF) {
		return err
	}
	return nil
}

// mismatch records that the value at path is not of the Go type want
// and skips it.
func (r *reviewReader) mismatch(path, want string) error {
	if r.typeErr == nil {
		got := "unknown"
		switch r.dec.PeekKind() {
		case '{':
			got = "object"
		case '[':
			got = "array"
		case '"':
			got = "string"
		case '0':
			got = "number"
		case 't', 'f':
			got = "bool"
		}
		r.typeErr = fmt.Errorf("json: cannot unmarshal %s into Go struct field %s of type %s", got, path, want)
	}
	return r.skip()
}

func (r *reviewReader) skip() error {
	_, err := r.dec.ReadValue()
	return err
}

// null consumes a null if one is next.
func (r *reviewReader) null() (bool, error) {
	if r.dec.PeekKind() != 'n' {
		return false, nil
	}
	_, err := r.dec.ReadToken()
	return true, err
}

// object calls member for each member of the object next, with its name
// (valid until the next read), after checking that an object is next: a
// null is skipped, anything else recorded as a mismatch. It returns
// whether there was an object.
func (r *reviewReader) object(path, want string, member func(name []byte) error) (bool, error) {
	switch r.dec.PeekKind() {
	case '{':
	case 'n':
		_, err := r.dec.ReadToken()
		return false, err
	default:
		return false, r.mismatch(path, want)
	}
	if _, err := r.dec.ReadToken(); err != nil {
		return false, err
	}
	for r.dec.PeekKind() != '}' {
		raw, err := r.dec.ReadValue()
		if err != nil {
			return false, err
		}
		if err := member(r.unquote(raw)); err != nil {
			return false, err
		}
	}
	_, err := r.dec.ReadToken()
	return true, err
}

// array calls item for each item of the array next, after checking that
// an array is next, as object does. A null array is reported as such.
func (r *reviewReader) array(path, want string, item func(i int) error) (isArray, isNull bool, err error) {
	switch r.dec.PeekKind() {
	case '[':
	case 'n':
		_, err := r.dec.ReadToken()
		return false, true, err
	default:
		return false, false, r.mismatch(path, want)
	}
	if _, err := r.dec.ReadToken(); err != nil {
		return false, false, err
	}
	for i := 0; r.dec.PeekKind() != ']'; i++ {
		if err := item(i); err != nil {
			return false, false, err
		}
	}
	_, err = r.dec.ReadToken()
	return true, false, err
}

// unquote is a JSON string's content: the raw bytes when they need no
// unescaping, else the unescaped text in the scratch buffer (invalid UTF-8
// and lone surrogates as U+FFFD, as encoding/json reads them). The
// decoder has checked the string's syntax already.
func (r *reviewReader) unquote(raw jsontext.Value) []byte {
	inner := raw[1 : len(raw)-1]
	if bytes.IndexByte(inner, '\\') < 0 && utf8.Valid(inner) {
		return inner
	}
	r.scratch, _ = jsontext.AppendUnquote(r.scratch[:0], raw)
	return r.scratch
}

// str decodes a string at path into *s; null leaves it.
func (r *reviewReader) str(path string, s *string) error {
	switch r.dec.PeekKind() {
	case '"':
		raw, err := r.dec.ReadValue()
		if err != nil {
			return err
		}
		*s = string(r.unquote(raw))
		return nil
	case 'n':
		_, err := r.dec.ReadToken()
		return err
	}
	return r.mismatch(path, "string")
}

// strPtr decodes a string at path into *p, reusing the string it points
// to; null sets it to nil.
func strPtr[T ~string](r *reviewReader, path, want string, p **T) error {
	switch r.dec.PeekKind() {
	case '"':
		raw, err := r.dec.ReadValue()
		if err != nil {
			return err
		}
		if *p == nil {
			*p = new(T)
		}
		**p = T(r.unquote(raw))
		return nil
	case 'n':
		*p = nil
		_, err := r.dec.ReadToken()
		return err
	}
	return r.mismatch(path, want)
}

// typedStr decodes a string into a string type.
func typedStr[T ~string](r *reviewReader, path string, s *T) error {
	v := string(*s)
	if err := r.str(path, &v); err != nil {
		return err
	}
	*s = T(v)
	return nil
}

// boolean decodes true or false at path into *b; null leaves it.
func (r *reviewReader) boolean(path string, b *bool) error {
	switch r.dec.PeekKind() {
	case 't', 'f':
		tok, err := r.dec.ReadToken()
		if err != nil {
			return err
		}
		*b = tok.Bool()
		return nil
	case 'n':
		_, err := r.dec.ReadToken()
		return err
	}
	return r.mismatch(path, "bool")
}

// stringMap decodes an object of strings into *m, adding to the map it
// has; null sets it to nil.
func (r *reviewReader) stringMap(path string, m *map[string]string) error {
	if null, err := r.null(); null || err != nil {
		if null {
			*m = nil
		}
		return err
	}
	isObject, err := r.object(path, "map[string]string", func(name []byte) error {
		if *m == nil {
			*m = make(map[string]string)
		}
		key := string(name)
		var value string
		switch r.dec.PeekKind() {
		case '"':
			raw, err := r.dec.ReadValue()
			if err != nil {
				return err
			}
			value = string(r.unquote(raw))
		case 'n':
			// encoding/json stores the zero value for a null.
			if _, err := r.dec.ReadToken(); err != nil {
				return err
			}
		default:
			if err := r.mismatch(path, "string"); err != nil {
				return err
			}
			// encoding/json stores the zero value under the key, too.
		}
		(*m)[key] = value
		return nil
	})
	if isObject && *m == nil {
		*m = map[string]string{}
	}
	return err
}

// list decodes an array into *s the way encoding/json does: items
// decoded over those already there, the list cut to the array's length
// (empty, not nil, for []); null sets it to nil.
func list[T any](r *reviewReader, path, want string, s *[]T, item func(*T) error) error {
	n := 0
	isArray, isNull, err := r.array(path, want, func(i int) error {
		if i >= cap(*s) {
			*s = append(*s, *new(T))
		} else if i >= len(*s) {
			*s = (*s)[:i+1]
		}
		n = i + 1
		return item(&(*s)[i])
	})
	switch {
	case err != nil:
	case isNull:
		*s = nil
	case isArray && n == 0:
		*s = []T{}
	case isArray:
		*s = (*s)[:n]
	}
	return err
}

// fieldIndex is the index of name in fields: the exact name, else one
// equal without regard to case (encoding/json's rule), else -1.
func fieldIndex(name []byte, fields []string) int {
	for i, f := range fields {
		if string(name) == f {
			return i
		}
	}
	// An ASCII name folds only to a name of its length (the field names
	// are ASCII); one with other bytes may fold to another length (K,
	// the Kelvin sign, is k).
	ascii := true
	for _, c := range name {
		if c >= utf8.RuneSelf {
			ascii = false
			break
		}
	}
	for i, f := range fields {
		if (!ascii || len(name) == len(f)) && bytes.EqualFold(name, []byte(f)) {
			return i
		}
	}
	return -1
}

var (
	reviewFields   = []string{"apiVersion", "kind", "request"}
	requestFields  = []string{"uid", "resource", "subResource", "namespace", "operation", "object"}
	resourceFields = []string{"group", "version", "resource"}
	podFields      = []string{"metadata", "spec"}
	metadataFields = []string{"name", "generateName", "namespace", "labels", "annotations"}
	specFields     = []string{"serviceAccountName", "nodeSelector", "os", "volumes", "initContainers", "containers", "ephemeralContainers"}
	osFields       = []string{"name"}
	// A volume a mutator reads is decoded by encoding/json's rules (jsonv2
	// with jsonv1's options); any other by its name (volumeByName).
	containerFields = []string{"name", "env", "volumeMounts"}
	envFields       = []string{"name"}
	mountFields     = []string{"name", "readOnly", "recursiveReadOnly", "mountPath", "subPath", "mountPropagation", "subPathExpr"}
)

func (r *reviewReader) readHeader(review *reviewHeader) error {
	_, err := r.object("reviewHeader", "webhook.reviewHeader", func(name []byte) error {
		switch fieldIndex(name, reviewFields) {
		case 0:
			return r.str("apiVersion", &review.APIVersion)
		case 1:
			return r.str("kind", &review.Kind)
		case 2:
			if null, err := r.null(); null || err != nil {
				review.Request = nil
				return err
			}
			if review.Request == nil {
				if r.dec.PeekKind() != '{' {
					return r.mismatch("request", "webhook.requestHeader")
				}
				review.Request = &requestHeader{}
			}
			return r.request(review.Request)
		}
		return r.skip()
	})
	return err
}

func (r *reviewReader) request(req *requestHeader) error {
	_, err := r.object("request", "webhook.requestHeader", func(name []byte) error {
		switch fieldIndex(name, requestFields) {
		case 0:
			return typedStr(r, "request.uid", &req.UID)
		case 1:
			_, err := r.object("request.resource", "v1.GroupVersionResource", func(name []byte) error {
				switch fieldIndex(name, resourceFields) {
				case 0:
					return r.str("request.resource.group", &req.Resource.Group)
				case 1:
					return r.str("request.resource.version", &req.Resource.Version)
				case 2:
					return r.str("request.resource.resource", &req.Resource.Resource)
				}
				return r.skip()
			})
			return err
		case 2:
			return r.str("request.subResource", &req.SubResource)
		case 3:
			return r.str("request.namespace", &req.Namespace)
		case 4:
			return typedStr(r, "request.operation", &req.Operation)
		case 5:
			if null, err := r.null(); null || err != nil {
				req.Object = nil
				return err
			}
			if req.Object == nil {
				if r.dec.PeekKind() != '{' {
					return r.mismatch("request.object", "mutation.PodOutline")
				}
				req.Object = &mutation.PodOutline{}
			}
			return r.outline(req.Object)
		}
		return r.skip()
	})
	return err
}

// outline decodes the fields of a pod that mutation.PodOutline holds.
func (r *reviewReader) outline(pod *mutation.PodOutline) error {
	_, err := r.object("request.object", "mutation.PodOutline", func(name []byte) error {
		switch fieldIndex(name, podFields) {
		case 0:
			return r.metadata(pod)
		case 1:
			return r.spec(pod)
		}
		return r.skip()
	})
	return err
}

func (r *reviewReader) metadata(pod *mutation.PodOutline) error {
	m := &pod.Metadata
	_, err := r.object("request.object.metadata", "struct", func(name []byte) error {
		switch fieldIndex(name, metadataFields) {
		case 0:
			return r.str("request.object.metadata.name", &m.Name)
		case 1:
			return r.str("request.object.metadata.generateName", &m.GenerateName)
		case 2:
			return r.str("request.object.metadata.namespace", &m.Namespace)
		case 3:
			return r.stringMap("request.object.metadata.labels", &m.Labels)
		case 4:
			return r.stringMap("request.object.metadata.annotations", &m.Annotations)
		}
		return r.skip()
	})
	return err
}

func (r *reviewReader) spec(pod *mutation.PodOutline) error {
	s := &pod.Spec
	_, err := r.object("request.object.spec", "struct", func(name []byte) error {
		switch fieldIndex(name, specFields) {
		case 0:
			return r.str("request.object.spec.serviceAccountName", &s.ServiceAccountName)
		case 1:
			return r.stringMap("request.object.spec.nodeSelector", &s.NodeSelector)
		case 2:
			return r.podOS(&s.OS)
		case 3:
			return r.volumes(pod)
		case 4:
			return r.containers(initContainerPaths, &s.InitContainers)
		case 5:
			return r.containers(containerListPaths, &s.Containers)
		case 6:
			return r.containers(ephemeralContainerPaths, &s.EphemeralContainers)
		}
		return r.skip()
	})
	return err
}

func (r *reviewReader) podOS(os **corev1.PodOS) error {
	if null, err := r.null(); null || err != nil {
		*os = nil
		return err
	}
	if *os == nil {
		if r.dec.PeekKind() != '{' {
			return r.mismatch("request.object.spec.os", "v1.PodOS")
		}
		*os = &corev1.PodOS{}
	}
	_, err := r.object("request.object.spec.os", "v1.PodOS", func(name []byte) error {
		if fieldIndex(name, osFields) == 0 {
			return typedStr(r, "request.object.spec.os.name", &(*os).Name)
		}
		return r.skip()
	})
	return err
}

// volumes decodes the pod's volumes and records the JSON of each
// (mutation.PodOutline.SetReceivedVolumes): a slice of the body, which
// outlives the outline's use.
func (r *reviewReader) volumes(pod *mutation.PodOutline) error {
	raw := r.volumeScratch[:0]
	whole := true
	// The first (usually only) list is decoded into the pooled items and
	// copied out at its length: one allocation, where growing the list
	// item by item takes four for five volumes of 248 bytes each.
	into := &pod.Spec.Volumes
	pooled := pod.Spec.Volumes == nil
	if pooled {
		into = &r.volumeItems
	}
	byName := r.reads != nil
	if byName && pod.Spec.Volumes != nil {
		// A duplicate "volumes" member: encoding/json merges its items
		// into the first's, which needs them in full.
		return errDecodeInFull
	}
	err := list(r, "request.object.spec.volumes", "[]v1.Volume", into, func(v *corev1.Volume) error {
		// An item decoded over another (a duplicate "volumes" member) is
		// a merge of the two, which no JSON of the body spells.
		whole = whole && *v == corev1.Volume{}
		start := r.dec.InputOffset()
		if byName {
			return r.volumeByName(v, start, &raw)
		}
		if err := r.volume(v); err != nil {
			return err
		}
		// What the decoder read since the last value: separators, then
		// the volume.
		item := bytes.TrimLeft(r.body[start:r.dec.InputOffset()], " \t\r\n,")
		whole = whole && len(item) > 0 && item[0] == '{'
		raw = append(raw, item)
		return nil
	})
	r.volumeScratch = raw[:0]
	if pooled {
		if r.volumeItems != nil {
			pod.Spec.Volumes = slices.Clone(r.volumeItems)
		}
		clear(r.volumeItems[:cap(r.volumeItems)])
		r.volumeItems = r.volumeItems[:0:cap(r.volumeItems)]
	}
	if !whole || len(raw) == 0 {
		pod.SetReceivedVolumes(nil)
		return err
	}
	pod.SetReceivedVolumes(slices.Clone(raw))
	return err
}

// volume decodes one volume whole, by encoding/json's rules, from the
// same decoder.
func (r *reviewReader) volume(v *corev1.Volume) error {
	err := jsonv2.UnmarshalDecode(&r.dec, v)
	var semantic *jsonv2.SemanticError
	var typeErr *jsonv1.UnmarshalTypeError
	if errors.As(err, &semantic) || errors.As(err, &typeErr) {
		if r.typeErr == nil {
			// The error names the field from the top: request.object.spec.volumes.<i>.
			r.typeErr = err
		}
		return nil
	}
	return err
}

// volumeByName reads the volume next, which starts after offset start
// (separators first), by its name: in full (jsonv2 over its JSON) when a
// mutator reads it, else as mutation.NameOnly. Its JSON is appended to raw.
// Only an object whose names are strings or null is read this way; else
// errDecodeInFull.
func (r *reviewReader) volumeByName(v *corev1.Volume, start int64, raw *[]mutation.Encoded) error {
	if r.dec.PeekKind() != '{' {
		return errDecodeInFull
	}
	if _, err := r.dec.ReadToken(); err != nil {
		return err
	}
	var name string
	for r.dec.PeekKind() != '}' {
		member, err := r.dec.ReadValue()
		if err != nil {
			return err
		}
		if fieldIndex(r.unquote(member), volumeNameField) != 0 {
			if err := r.skip(); err != nil {
				return err
			}
			continue
		}
		switch r.dec.PeekKind() {
		case '"':
			value, err := r.dec.ReadValue()
			if err != nil {
				return err
			}
			name = string(r.unquote(value)) // the last wins, as in encoding/json
		case 'n':
			if _, err := r.dec.ReadToken(); err != nil { // null leaves a string as it is
				return err
			}
		default:
			return errDecodeInFull
		}
	}
	if _, err := r.dec.ReadToken(); err != nil {
		return err
	}
	item := bytes.TrimLeft(r.body[start:r.dec.InputOffset()], " \t\r\n,")
	*raw = append(*raw, item)
	if !r.reads(name) {
		*v = mutation.NameOnly(name)
		return nil
	}
	err := jsonv2.Unmarshal(item, v, jsonv1.DefaultOptionsV1())
	var semantic *jsonv2.SemanticError
	var typeErr *jsonv1.UnmarshalTypeError
	if errors.As(err, &semantic) || errors.As(err, &typeErr) {
		if r.typeErr == nil {
			r.typeErr = fmt.Errorf("request.object.spec.volumes: volume %q: %w", name, err)
		}
		return nil
	}
	return err
}

var volumeNameField = []string{"name"}

// containerPaths name a container list's fields in messages, built once.
type containerPaths struct{ list, name, env, envName, mounts string }

func pathsOf(list string) *containerPaths {
	return &containerPaths{list: list, name: list + ".name", env: list + ".env", envName: list + ".env.name", mounts: list + ".volumeMounts"}
}

var (
	initContainerPaths      = pathsOf("request.object.spec.initContainers")
	containerListPaths      = pathsOf("request.object.spec.containers")
	ephemeralContainerPaths = pathsOf("request.object.spec.ephemeralContainers")
)

type envName = struct {
	Name string `json:"name"`
}

func (r *reviewReader) containers(p *containerPaths, s *[]mutation.ContainerOutline) error {
	return list(r, p.list, "[]mutation.ContainerOutline", s, func(c *mutation.ContainerOutline) error {
		_, err := r.object(p.list, "mutation.ContainerOutline", func(name []byte) error {
			switch fieldIndex(name, containerFields) {
			case 0:
				return r.str(p.name, &c.Name)
			case 1:
				return list(r, p.env, "[]struct { Name string }", &c.Env, func(e *envName) error {
					_, err := r.object(p.env, "struct { Name string }", func(name []byte) error {
						if fieldIndex(name, envFields) == 0 {
							return r.str(p.envName, &e.Name)
						}
						return r.skip()
					})
					return err
				})
			case 2:
				return list(r, p.mounts, "[]v1.VolumeMount", &c.VolumeMounts, r.volumeMount)
			}
			return r.skip()
		})
		return err
	})
}

func (r *reviewReader) volumeMount(m *corev1.VolumeMount) error {
	// Which container's mount is in the message's offset.
	_, err := r.object("volumeMounts", "v1.VolumeMount", func(name []byte) error {
		switch fieldIndex(name, mountFields) {
		case 0:
			return r.str("volumeMounts.name", &m.Name)
		case 1:
			return r.boolean("volumeMounts.readOnly", &m.ReadOnly)
		case 2:
			return strPtr(r, "volumeMounts.recursiveReadOnly", "*v1.RecursiveReadOnlyMode", &m.RecursiveReadOnly)
		case 3:
			return r.str("volumeMounts.mountPath", &m.MountPath)
		case 4:
			return r.str("volumeMounts.subPath", &m.SubPath)
		case 5:
			return strPtr(r, "volumeMounts.mountPropagation", "*v1.MountPropagationMode", &m.MountPropagation)
		case 6:
			return r.str("volumeMounts.subPathExpr", &m.SubPathExpr)
		}
		return r.skip()
	})
	return err
}

// reviewHeader is the one pass over an AdmissionReview every request costs:
// what routes it and the pod's outline. The whole pod is decoded from the
// same body only if a mutator asks for it.
type reviewHeader struct {
	metav1.TypeMeta `json:",inline"`
	Request         *requestHeader `json:"request"`
}

type requestHeader struct {
	UID         types.UID                   `json:"uid"`
	Resource    metav1.GroupVersionResource `json:"resource"`
	SubResource string                      `json:"subResource"`
	Namespace   string                      `json:"namespace"`
	Operation   admissionv1.Operation       `json:"operation"`
	Object      *mutation.PodOutline        `json:"object"`
}
