package mutation

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
)

// errOutsideOutline is an operation on a part of the pod the outline does
// not hold.
var errOutsideOutline = errors.New("the operation is outside the pod's outline")

// Apply returns the outline as ops leave the pod, with RFC 6902's semantics
// for the operations mutators emit ("add", "replace" and "remove" on
// metadata's labels and annotations, the volumes, and each container's env
// and mounts), so that the next mutator sees the pod as the earlier ones left
// it without the whole pod being patched and decoded again. o is not
// changed: what an operation touches is copied first. Apply succeeds only
// where RFC 6902 would; an error means only that Apply cannot tell (an
// operation outside the outline, a form mutators do not emit, or a patch
// that may not apply), and the server then patches the whole pod, whose
// answer is authoritative.
func (o *PodOutline) Apply(ops []PatchOperation) (*PodOutline, error) {
	out := *o
	for i, op := range ops {
		if err := out.apply(op); err != nil {
			return nil, fmt.Errorf("operation %d (%s %s): %w", i, op.Op, op.Path, err)
		}
	}
	return &out, nil
}

func (o *PodOutline) apply(op PatchOperation) error {
	if op.Op != "add" && op.Op != "replace" && op.Op != "remove" {
		return errOutsideOutline
	}
	if op.Op != "remove" && op.Value == nil {
		return errors.New("the operation has no value")
	}
	var array [6]string
	tokens, err := pointer(op.Path, array[:0])
	if err != nil {
		return err
	}
	switch {
	case len(tokens) >= 2 && tokens[0] == "metadata" && (tokens[1] == "annotations" || tokens[1] == "labels"):
		m := &o.Metadata.Annotations
		if tokens[1] == "labels" {
			m = &o.Metadata.Labels
		}
		return applyMap(m, tokens[2:], op)
	case len(tokens) >= 2 && tokens[0] == "spec" && tokens[1] == "volumes":
		return applyList(&o.Spec.Volumes, tokens[2:], op)
	case len(tokens) >= 3 && tokens[0] == "spec":
		containers := o.containers(tokens[1])
		if containers == nil {
			return errOutsideOutline
		}
		return applyContainer(containers, tokens[2:], op)
	}
	return errOutsideOutline
}

func (o *PodOutline) containers(field string) *[]ContainerOutline {
	switch field {
	case "containers":
		return &o.Spec.Containers
	case "initContainers":
		return &o.Spec.InitContainers
	case "ephemeralContainers":
		return &o.Spec.EphemeralContainers
	}
	return nil
}

// applyContainer applies op under one container: its env or its mounts.
func applyContainer(containers *[]ContainerOutline, tokens []string, op PatchOperation) error {
	i, err := existingIndex(tokens[0], len(*containers))
	if err != nil {
		return err
	}
	if len(tokens) < 2 || (tokens[1] != "env" && tokens[1] != "volumeMounts") {
		return errOutsideOutline
	}
	// Copy the list and the one container: both are shared with the
	// outline the mutators before were given.
	*containers = slices.Clone(*containers)
	c := &(*containers)[i]
	if tokens[1] == "env" {
		return applyList(&c.Env, tokens[2:], op)
	}
	return applyList(&c.VolumeMounts, tokens[2:], op)
}

// applyMap applies op to a string map: the whole map (no tokens) or one
// member.
func applyMap(m *map[string]string, tokens []string, op PatchOperation) error {
	switch len(tokens) {
	case 0:
		if op.Op != "add" && *m == nil {
			return errors.New("no such member")
		}
		if op.Op == "remove" {
			*m = nil
			return nil
		}
		var v map[string]string
		if err := decodeValue(op.Value, &v); err != nil {
			return err
		}
		*m = v
		return nil
	case 1:
		if *m == nil {
			return errors.New("the parent member does not exist")
		}
		key := tokens[0]
		_, exists := (*m)[key]
		if op.Op != "add" && !exists {
			return fmt.Errorf("no member %q", key)
		}
		*m = maps.Clone(*m)
		if op.Op == "remove" {
			delete(*m, key)
			return nil
		}
		var v string
		if err := decodeValue(op.Value, &v); err != nil {
			return err
		}
		(*m)[key] = v
		return nil
	}
	return errOutsideOutline
}

// applyList applies op to a list: the whole list (no tokens), or one item
// by index, or "-" to append.
func applyList[T any](list *[]T, tokens []string, op PatchOperation) error {
	switch len(tokens) {
	case 0:
		if op.Op != "add" && *list == nil {
			return errors.New("no such member")
		}
		if op.Op == "remove" {
			*list = nil
			return nil
		}
		var v []T
		if err := decodeValue(op.Value, &v); err != nil {
			return err
		}
		*list = v
		return nil
	case 1:
		if *list == nil {
			return errors.New("the parent member does not exist")
		}
		var i int
		var err error
		switch {
		case op.Op == "add" && tokens[0] == "-":
			i = len(*list)
		case op.Op == "add":
			i, err = index(tokens[0], len(*list)+1)
		default:
			i, err = existingIndex(tokens[0], len(*list))
		}
		if err != nil {
			return err
		}
		if op.Op == "remove" {
			*list = slices.Delete(slices.Clone(*list), i, i+1)
			return nil
		}
		var v T
		if err := decodeValue(op.Value, &v); err != nil {
			return err
		}
		if op.Op == "replace" {
			*list = slices.Clone(*list)
			(*list)[i] = v
			return nil
		}
		*list = slices.Insert(slices.Clip(*list), i, v)
		return nil
	}
	return errOutsideOutline
}

// decodeValue converts an operation's value into the outline's type: the
// types mutators build their patches with directly, anything else through
// its JSON, which is what the API server will see.
func decodeValue(value any, into any) error {
	switch into := into.(type) {
	case *string:
		if s, ok := value.(string); ok {
			*into = s
			return nil
		}
	case *map[string]string:
		if m, ok := value.(map[string]string); ok {
			*into = maps.Clone(m)
			return nil
		}
	case *corev1.Volume:
		if v, ok := value.(corev1.Volume); ok {
			*into = v
			return nil
		}
	// Lists are shared with the patch, not copied: the outline never
	// changes a list in place (applyList copies first), and a mutator's
	// patch is not changed once returned.
	case *[]corev1.Volume:
		switch v := value.(type) {
		case []corev1.Volume:
			*into = v
			return nil
		case Volumes:
			*into = v.Items
			return nil
		}
	case *corev1.VolumeMount:
		switch v := value.(type) {
		case corev1.VolumeMount:
			*into = v
			return nil
		case *corev1.VolumeMount:
			if v != nil {
				*into = *v
				return nil
			}
		}
	case *[]corev1.VolumeMount:
		if v, ok := value.([]corev1.VolumeMount); ok {
			*into = v
			return nil
		}
	}
	raw, ok := value.(Encoded)
	if !ok {
		var err error
		if raw, err = json.Marshal(value); err != nil {
			return fmt.Errorf("encoding the value: %w", err)
		}
	}
	if err := json.Unmarshal(raw, into); err != nil {
		return fmt.Errorf("the value does not fit the pod: %w", err)
	}
	return nil
}

// pointer splits an RFC 6901 JSON pointer into its unescaped tokens,
// appended to tokens (the caller's array: every operation of every patch
// is split, and mutators' paths have at most five tokens).
func pointer(path string, tokens []string) ([]string, error) {
	if !strings.HasPrefix(path, "/") {
		return nil, fmt.Errorf("path %q is not a JSON pointer", path)
	}
	rest := path[1:]
	for {
		t, after, more := strings.Cut(rest, "/")
		if strings.Contains(t, "~") {
			t = strings.ReplaceAll(strings.ReplaceAll(t, "~1", "/"), "~0", "~")
		}
		tokens = append(tokens, t)
		if !more {
			return tokens, nil
		}
		rest = after
	}
}

// index parses an array index below limit, as RFC 6901 spells it: digits,
// no leading zero.
func index(token string, limit int) (int, error) {
	if token == "" || (len(token) > 1 && token[0] == '0') || strings.TrimLeft(token, "0123456789") != "" {
		return 0, fmt.Errorf("%q is not an array index", token)
	}
	i, err := strconv.Atoi(token)
	if err != nil || i >= limit {
		return 0, fmt.Errorf("index %s is out of range", token)
	}
	return i, nil
}

// existingIndex parses the index of an item that must exist.
func existingIndex(token string, length int) (int, error) {
	return index(token, length)
}
