// Package bundlerefs reads what a bundle references: the key names (never
// the values) of Secrets and ConfigMaps, with live GETs, and the keys that
// two references would both mount at one path. The webhook does not import
// it: it reads the key names these controllers record in bundle status.
package bundlerefs

import (
	"context"
	"fmt"
	"sort"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
)

// Kind is what a reference points at, as it appears in messages.
type Kind string

const (
	Secret    Kind = "secret"
	ConfigMap Kind = "configmap"
)

// Ref is one referenced object, its namespace already resolved.
type Ref struct {
	Kind      Kind
	Namespace string
	Name      string
}

func (r Ref) String() string { return fmt.Sprintf("%s %s/%s", r.Kind, r.Namespace, r.Name) }

// Reader reads key names with live GETs. Only the objects a bundle names
// are read: the cluster-wide watch (referencewatch) holds metadata only,
// and says when to read, not what the keys are.
type Reader struct {
	Kube kubernetes.Interface
}

// Resolve reads every ref. missing lists, in order, the refs that do not
// exist; resolved has one entry per ref that does. Any other API error is
// returned so the controller retries.
func (r Reader) Resolve(ctx context.Context, refs []Ref) (resolved map[Ref][]string, missing []Ref, err error) {
	resolved = map[Ref][]string{}
	for _, ref := range refs {
		keys, err := r.keys(ctx, ref)
		if apierrors.IsNotFound(err) {
			missing = append(missing, ref)
			continue
		}
		if err != nil {
			return nil, nil, fmt.Errorf("reading %s: %w", ref, err)
		}
		resolved[ref] = keys
	}
	return resolved, missing, nil
}

func (r Reader) keys(ctx context.Context, ref Ref) ([]string, error) {
	switch ref.Kind {
	case Secret:
		secret, err := r.Kube.CoreV1().Secrets(ref.Namespace).Get(ctx, ref.Name, metav1.GetOptions{})
		if err != nil {
			return nil, err
		}
		return SortedKeys[[]byte, string](secret.Data, nil), nil
	case ConfigMap:
		cm, err := r.Kube.CoreV1().ConfigMaps(ref.Namespace).Get(ctx, ref.Name, metav1.GetOptions{})
		if err != nil {
			return nil, err
		}
		return SortedKeys(cm.BinaryData, cm.Data), nil
	}
	return nil, fmt.Errorf("unknown kind %q", ref.Kind)
}

// SortedKeys are the key names of both maps, sorted: the files a pod sees.
func SortedKeys[A, B any](a map[string]A, b map[string]B) []string {
	keys := make([]string, 0, len(a)+len(b))
	for k := range a {
		keys = append(keys, k)
	}
	for k := range b {
		if _, dup := a[k]; !dup {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	return keys
}

// MissingMessage is e.g. "secret a/x not found; configmap a/y not found".
func MissingMessage(missing []Ref) string {
	parts := make([]string, 0, len(missing))
	for _, ref := range missing {
		parts = append(parts, ref.String()+" not found")
	}
	return strings.Join(parts, "; ")
}

// Overlaps describes every key that two of refs would mount at the same
// path, naming the first ref that holds it, e.g.
// `key "k.pem" is in both secret a/x and secret a/y`. refs share one mount
// directory; their order decides which is "first".
func Overlaps(refs []Ref, keys map[Ref][]string) []string {
	owner := map[string]Ref{}
	var out []string
	for _, ref := range refs {
		for _, key := range keys[ref] {
			first, seen := owner[key]
			if !seen {
				owner[key] = ref
				continue
			}
			if first == ref {
				continue
			}
			out = append(out, fmt.Sprintf("key %q is in both %s and %s", key, first, ref))
		}
	}
	return out
}
