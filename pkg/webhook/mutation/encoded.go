package mutation

import (
	"encoding/json"
	"fmt"
	"sync"

	corev1 "k8s.io/api/core/v1"
)

// Encoded is a patch value encoded once, before the admissions that send
// it (a token volume, an environment block): the server writes it into
// the patch as it is, where any other value is encoded by reflection.
type Encoded []byte

// Encode encodes a patch value once, for every admission after.
func Encode(value any) Encoded {
	raw, err := json.Marshal(value)
	if err != nil {
		panic(fmt.Sprintf("encoding a patch value: %v", err))
	}
	return raw
}

// MarshalJSON returns the value as it was encoded.
func (e Encoded) MarshalJSON() ([]byte, error) { return e, nil }

// Volumes is a list of volumes as a patch value, of which those with an
// Encoded entry were encoded once already (the injected ones); the pod's
// own are encoded with the patch.
type Volumes struct {
	Items   []corev1.Volume
	Encoded []Encoded
}

// MarshalJSON encodes the list as []corev1.Volume encodes.
func (v Volumes) MarshalJSON() ([]byte, error) {
	if v.Items == nil {
		return []byte("null"), nil
	}
	out := []byte{'['}
	for i := range v.Items {
		if i > 0 {
			out = append(out, ',')
		}
		if i < len(v.Encoded) && v.Encoded[i] != nil {
			out = append(out, v.Encoded[i]...)
			continue
		}
		if IsNameOnly(&v.Items[i]) {
			return nil, errNotDecoded(&v.Items[i])
		}
		raw, err := json.Marshal(&v.Items[i])
		if err != nil {
			return nil, err
		}
		out = append(out, raw...)
	}
	return append(out, ']'), nil
}

// CheckDecoded returns an error for the first volume of items, without an
// entry in encoded, of which only the name was decoded: such a volume can
// be sent back only as the review carried it.
func CheckDecoded(items []corev1.Volume, encoded []Encoded) error {
	for i := range items {
		if (i >= len(encoded) || encoded[i] == nil) && IsNameOnly(&items[i]) {
			return errNotDecoded(&items[i])
		}
	}
	return nil
}

// maxEncoded bounds an EncodedCache: past it, the cache starts again
// empty.
const maxEncoded = 4096

// EncodedCache holds values encoded once, by what they are built from: a
// mutator's patch values that depend on its settings or on a bundle's
// generation, never on the pod.
type EncodedCache[K comparable, V any] struct {
	mu     sync.Mutex
	values map[K]V
}

// Get returns the value for key, built the first time.
func (c *EncodedCache[K, V]) Get(key K, build func() V) V {
	c.mu.Lock()
	defer c.mu.Unlock()
	if v, ok := c.values[key]; ok {
		return v
	}
	if c.values == nil || len(c.values) >= maxEncoded {
		c.values = make(map[K]V)
	}
	v := build()
	c.values[key] = v
	return v
}
