package mutation

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
)

// notDecoded marks a volume of which only the name was decoded: no JSON
// spells this pointer. Were such a volume ever encoded from its value, it
// would read "ephemeral": {}, which the API server refuses, rather than
// turn into another volume.
var notDecoded = &corev1.EphemeralVolumeSource{}

// NameOnly is the volume of that name whose contents were not decoded:
// no mutator reads them (VolumeReader), and the pod's JSON for it is
// sent back as it came.
func NameOnly(name string) corev1.Volume {
	return corev1.Volume{Name: name, VolumeSource: corev1.VolumeSource{Ephemeral: notDecoded}}
}

// IsNameOnly reports whether only v's name was decoded.
func IsNameOnly(v *corev1.Volume) bool { return v.Ephemeral == notDecoded }

// errNotDecoded refuses to encode a volume of which only the name is known.
func errNotDecoded(v *corev1.Volume) error {
	return fmt.Errorf("volume %q of the pod was read by name only, and its JSON as received is lost: it cannot be sent back", v.Name)
}

// receivedVolumes is the JSON each of the pod's volumes had in the review,
// kept so that a patch that sends the pod's volumes back sends them as
// they came: no second encoding per admission, and nothing the API server
// knows and this build's corev1 types do not (a volume field newer than
// them) is dropped from the user's volumes.
type receivedVolumes struct {
	// list is the first item of the list the JSON was decoded into: a
	// mutator's patch replaces a list, and Apply copies one before
	// changing it, so the same first item means the same, unchanged list.
	list *corev1.Volume
	json []Encoded
}

// SetReceivedVolumes records raw[i] as the JSON o.Spec.Volumes[i] was
// decoded from; nil, or a length that does not match, records nothing.
// Only the server's decoder calls it, and only for a list each item of
// which was decoded into an empty volume (a duplicate "volumes" member
// merges items, and the merge has no JSON of its own).
func (o *PodOutline) SetReceivedVolumes(raw []Encoded) {
	if len(raw) == 0 || len(raw) != len(o.Spec.Volumes) {
		o.received = receivedVolumes{}
		return
	}
	o.received = receivedVolumes{list: &o.Spec.Volumes[0], json: raw}
}

// ReceivedVolumes is the JSON of each of the pod's volumes as the review
// carried it, while the outline's list is the one decoded from it; else
// nil, and the volumes are encoded from their values.
func (o *PodOutline) ReceivedVolumes() []Encoded {
	v := o.Spec.Volumes
	if o.received.list == nil || len(v) != len(o.received.json) || &v[0] != o.received.list {
		return nil
	}
	return o.received.json
}
