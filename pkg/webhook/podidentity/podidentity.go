// Package podidentity is the webhook's AWS pod identity mutator: a pod whose
// ServiceAccount names an IAM role (eks.amazonaws.com/role-arn) gets a
// projected service account token for STS and the environment the AWS SDKs
// read to assume that role, as amazon-eks-pod-identity-webhook gives it in
// IRSA mode and under the same annotations. Unlike upstream it refuses
// malformed annotations rather than ignoring them, it also gives the
// credentials to debug containers added to an injected pod, and a pod may
// name the only containers that get them (allow-containers). The annotation
// names are pkg/apis/podidentity/v1alpha1's, which the IAMRoleRequest
// controller writes too.
package podidentity

import (
	"context"
	"errors"
	"fmt"
	"path"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"unicode/utf8"

	admissionv1 "k8s.io/api/admission/v1"
	corev1 "k8s.io/api/core/v1"

	podidentityv1alpha1 "github.com/openshift/cluster-workload-access-operator/pkg/apis/podidentity/v1alpha1"
	"github.com/openshift/cluster-workload-access-operator/pkg/webhook/mutation"
)

const (
	// VolumeName is the projected token volume the mutator adds.
	VolumeName = "aws-iam-token"
	// TokenFile is the token's file name in that volume.
	TokenFile = "token"

	// MinTokenExpiration is the shortest token Kubernetes issues; shorter
	// requests are raised to it.
	MinTokenExpiration int64 = 600
	// MaxTokenExpiration is the longest token lifetime the API server
	// accepts in a pod.
	MaxTokenExpiration int64 = 1 << 32
)

// The environment the AWS SDKs read.
const (
	envRoleARN       = "AWS_ROLE_ARN"
	envTokenFile     = "AWS_WEB_IDENTITY_TOKEN_FILE"
	envRegion        = "AWS_REGION"
	envDefaultRegion = "AWS_DEFAULT_REGION"
	envRegionalSTS   = "AWS_STS_REGIONAL_ENDPOINTS"
)

// Denial reasons, for metrics and logs.
const (
	reasonMalformedAnnotation = "MalformedAnnotation"
	reasonOversizeAnnotation  = "OversizeAnnotation"
	reasonLookupFailed        = "ServiceAccountLookupFailed"
	reasonConflict            = "Conflict"
)

// ErrLookupBudgetSpent is wrapped by an Annotations error that comes from the
// reader's own bound on live lookups, not from the API server. The pod may
// have asked for nothing, so it is admitted with a warning: refusing it would
// let one namespace's burst refuse other namespaces' pods.
var ErrLookupBudgetSpent = errors.New("the webhook's budget of live ServiceAccount lookups is spent")

// ServiceAccounts reads the annotations of a ServiceAccount. The server
// implements it from an informer cache, with a bounded live read on a miss.
type ServiceAccounts interface {
	// Annotations returns what CachedAnnotations keeps of the
	// ServiceAccount's annotations (nil when it grants no role). found is
	// false when the ServiceAccount does not exist; err when that could not
	// be determined in time, its text safe to show to whoever creates the pod.
	Annotations(ctx context.Context, namespace, name string) (annotations *RoleAnnotations, found bool, err error)
}

// Config is what the webhook's flags set for every pod. ClusterDefaults
// override its defaults, and ServiceAccount and pod annotations override
// both.
type Config struct {
	// Region, when set, becomes AWS_REGION and AWS_DEFAULT_REGION.
	Region string
	// DefaultAudience is the token audience unless the ServiceAccount names one.
	DefaultAudience string
	// DefaultRegionalSTS sets AWS_STS_REGIONAL_ENDPOINTS=regional unless the
	// ServiceAccount says otherwise.
	DefaultRegionalSTS bool
	// DefaultTokenExpiration is the token lifetime in seconds unless an
	// annotation sets one.
	DefaultTokenExpiration int64
	// MountPath is where containers find the token volume.
	MountPath string
}

// DefaultConfig is upstream's defaults.
func DefaultConfig() Config {
	return Config{
		DefaultAudience:        "sts.amazonaws.com",
		DefaultTokenExpiration: 86400,
		MountPath:              "/var/run/secrets/eks.amazonaws.com/serviceaccount",
	}
}

// ClusterDefaults are the defaults the cluster's WorkloadAccess sets
// (spec.podIdentity), which the webhook follows while it runs. A zero field
// leaves the webhook's own default (Config, from its flags) in force.
type ClusterDefaults struct {
	// Audience replaces Config.DefaultAudience.
	Audience string
	// TokenExpiration, in seconds, replaces Config.DefaultTokenExpiration.
	TokenExpiration int64
	// RegionalSTS, when set, replaces Config.DefaultRegionalSTS.
	RegionalSTS *bool
}

// defaults is what a pod gets unless annotations say otherwise: the
// webhook's Config overlaid with the ClusterDefaults. A snapshot, never
// changed once stored, so a request reads it with one atomic load.
type defaults struct {
	audience    string
	expiration  int64
	regionalSTS bool
}

// Mutator is the pod identity mutator.
type Mutator struct {
	config          Config
	tokenPath       string
	windowsPath     string
	serviceAccounts ServiceAccounts
	// The token mount as patch values, encoded once; the token volume
	// and the environment, once per audience and lifetime, and per role
	// (encoded.go).
	mountItem, mountList mutation.Encoded
	volumes              mutation.EncodedCache[volumeKey, *tokenVolume]
	envs                 mutation.EncodedCache[envKey, *envBlock]
	defaults             atomic.Pointer[defaults]
}

// New returns the mutator. Fields of config left empty take DefaultConfig's
// values; a default expiration under MinTokenExpiration is raised to it.
// Until SetClusterDefaults is called, pods get config's defaults.
func New(config Config, serviceAccounts ServiceAccounts) *Mutator {
	defaultConfig := DefaultConfig()
	if config.DefaultAudience == "" {
		config.DefaultAudience = defaultConfig.DefaultAudience
	}
	if config.DefaultTokenExpiration == 0 {
		config.DefaultTokenExpiration = defaultConfig.DefaultTokenExpiration
	}
	config.DefaultTokenExpiration = clampExpiration(config.DefaultTokenExpiration)
	if config.MountPath == "" {
		config.MountPath = defaultConfig.MountPath
	}
	tokenPath := path.Join(config.MountPath, TokenFile)
	mount := corev1.VolumeMount{Name: VolumeName, MountPath: config.MountPath, ReadOnly: true}
	m := &Mutator{
		config:    config,
		tokenPath: tokenPath,
		// Windows nodes mount the volume at the same path on drive C:.
		windowsPath:     "C:" + strings.ReplaceAll(tokenPath, "/", `\`),
		serviceAccounts: serviceAccounts,
		mountItem:       mutation.Encode(&mount),
		mountList:       mutation.Encode([]corev1.VolumeMount{mount}),
	}
	m.SetClusterDefaults(ClusterDefaults{})
	return m
}

// SetClusterDefaults replaces the cluster's defaults for pods admitted from
// now on; requests in flight keep the snapshot they read. A value the CRD
// would refuse is not used: its field keeps the webhook's own default, and
// the returned problems say why (for the log).
func (m *Mutator) SetClusterDefaults(cluster ClusterDefaults) (problems []string) {
	d := &defaults{
		audience:    m.config.DefaultAudience,
		expiration:  m.config.DefaultTokenExpiration,
		regionalSTS: m.config.DefaultRegionalSTS,
	}
	if cluster.Audience != "" {
		err := parseAudience(cluster.Audience)
		if err == nil && !utf8.ValidString(cluster.Audience) {
			// A patch is JSON: the pod would get U+FFFD instead.
			err = errors.New("it is not valid UTF-8")
		}
		if err != nil {
			problems = append(problems, fmt.Sprintf("default audience %s ignored: %v", quote(cluster.Audience), err))
		} else {
			d.audience = cluster.Audience
		}
	}
	if cluster.TokenExpiration != 0 {
		if cluster.TokenExpiration < MinTokenExpiration || cluster.TokenExpiration > MaxTokenExpiration {
			problems = append(problems, fmt.Sprintf("default token expiration %d s ignored: it is not between %d and %d",
				cluster.TokenExpiration, MinTokenExpiration, MaxTokenExpiration))
		} else {
			d.expiration = cluster.TokenExpiration
		}
	}
	if cluster.RegionalSTS != nil {
		d.regionalSTS = *cluster.RegionalSTS
	}
	m.defaults.Store(d)
	return problems
}

func clampExpiration(seconds int64) int64 {
	return min(max(seconds, MinTokenExpiration), MaxTokenExpiration)
}

// Name implements mutation.Mutator.
func (m *Mutator) Name() string { return "pod-identity" }

// ReadsVolume is true of the token volume's name alone: the injection
// reads no other volume.
func (m *Mutator) ReadsVolume(name string) bool { return name == VolumeName }

// RequestAnnotations implements mutation.Mutator: a pod never asks for pod
// identity, its ServiceAccount grants it, so every pod is sent through the
// fail-open webhook.
func (m *Mutator) RequestAnnotations() []string { return nil }

// Mutate implements mutation.Mutator. The pod's outline holds all it reads,
// so it never decodes the whole pod.
func (m *Mutator) Mutate(ctx context.Context, req *mutation.Request) mutation.Result {
	ephemeral := req.SubResource == "ephemeralcontainers"
	pod := req.Outline
	switch {
	case ephemeral && req.Operation == admissionv1.Update:
		// Only a pod injected at creation has a token volume to share.
		if findVolume(pod.Spec.Volumes) == nil {
			return mutation.Result{}
		}
	case req.Operation != admissionv1.Create || req.SubResource != "":
		return mutation.Result{}
	}
	if _, skip := pod.Metadata.Labels[podidentityv1alpha1.SkipLabel]; skip {
		return mutation.Result{}
	}
	// A static pod's mirror gets no token: the kubelet runs the pod from its
	// file, and the API server would refuse a mirror with a token volume.
	if _, mirror := pod.Metadata.Annotations[mutation.MirrorPodAnnotation]; mirror {
		return mutation.Result{}
	}
	s, d := m.settings(ctx, req)
	if d != nil {
		return mutation.Deny(d.reason, d.message)
	}
	if s == nil {
		return mutation.Result{}
	}
	if s.unchecked != "" {
		return mutation.Result{Warnings: []string{s.unchecked}}
	}
	if ephemeral {
		return m.mutateEphemeral(req, s)
	}
	return m.mutateCreate(pod, s)
}

// settings is what one pod gets, after every annotation was read.
type settings struct {
	serviceAccount string // namespace/name, for messages
	roleARN        string
	audience       string
	regionalSTS    bool
	expiration     int64
	// expirationWarning explains a lifetime raised to MinTokenExpiration.
	expirationWarning string
	// unchecked, when set, is the only field: the warning of a pod admitted
	// without reading its ServiceAccount.
	unchecked string
	skip      map[string]bool
	// allow, when not nil, is the only containers that get credentials
	// (annotation allow-containers).
	allow map[string]bool
	// env is every variable the pod may get, in upstream's order: the
	// regional STS group, the region group, the identity group.
	env [envVariables]corev1.EnvVar
	// encodedEnv is env encoded, shared by every admission of the role.
	encodedEnv *envBlock
}

type denial struct{ reason, message string }

func deny(reason, format string, args ...any) *denial {
	return &denial{reason: reason, message: fmt.Sprintf(format, args...)}
}

// settings reads the pod's ServiceAccount and the annotations of both. It
// returns nil settings for a pod that gets no role.
func (m *Mutator) settings(ctx context.Context, req *mutation.Request) (*settings, *denial) {
	pod := req.Outline
	namespace := req.Namespace
	if namespace == "" {
		namespace = pod.Metadata.Namespace
	}
	name := pod.Spec.ServiceAccountName
	if name == "" {
		name = "default"
	}
	serviceAccount := namespace + "/" + name
	annotations, found, err := m.serviceAccounts.Annotations(ctx, namespace, name)
	if errors.Is(err, ErrLookupBudgetSpent) {
		return &settings{unchecked: fmt.Sprintf("pod identity did not check whether ServiceAccount %s grants an AWS IAM role (annotation %s): %v; "+
			"the pod was admitted without AWS credentials: if the ServiceAccount grants a role, delete the pod so that it is created again with them",
			serviceAccount, podidentityv1alpha1.RoleARNAnnotation, err)}, nil
	}
	if err != nil {
		return nil, deny(reasonLookupFailed, "could not read ServiceAccount %s to learn whether it grants an AWS IAM role (annotation %s): %v; "+
			"the pod is refused rather than started without the credentials its ServiceAccount may grant; retry",
			serviceAccount, podidentityv1alpha1.RoleARNAnnotation, err)
	}
	// An empty role-arn is how charts leave the role unset: upstream
	// injects nothing for it either.
	roleARN := annotations.RoleARN()
	if !found || roleARN == "" {
		return nil, nil
	}
	if d := oversize(annotations, serviceAccount); d != nil {
		return nil, d
	}

	onSA := func(annotation, value string, err error) *denial {
		return deny(reasonMalformedAnnotation, "annotation %s on ServiceAccount %s: %s is malformed: %v", annotation, serviceAccount, quote(value), err)
	}
	podRef := func() string { return "pod " + namespace + "/" + pod.DisplayName() }
	onPod := func(annotation, value string, err error) *denial {
		return deny(reasonMalformedAnnotation, "annotation %s on %s: %s is malformed: %v", annotation, podRef(), quote(value), err)
	}

	d := m.defaults.Load()
	s := &settings{
		serviceAccount: serviceAccount,
		roleARN:        roleARN,
		audience:       d.audience,
		regionalSTS:    d.regionalSTS,
		expiration:     d.expiration,
	}
	if err := parseRoleARN(roleARN); err != nil {
		return nil, onSA(podidentityv1alpha1.RoleARNAnnotation, roleARN, err)
	}
	if v, ok := annotations.lookup(audienceIndex); ok {
		if err := parseAudience(v); err != nil {
			return nil, onSA(podidentityv1alpha1.AudienceAnnotation, v, err)
		}
		s.audience = v
	}
	if v, ok := annotations.lookup(regionalSTSIndex); ok {
		regional, err := parseRegionalSTS(v)
		if err != nil {
			return nil, onSA(podidentityv1alpha1.RegionalSTSAnnotation, v, err)
		}
		s.regionalSTS = regional
	}
	expirationFrom := ""
	if v, ok := annotations.lookup(tokenExpirationIndex); ok {
		seconds, err := parseExpiration(v)
		if err != nil {
			return nil, onSA(podidentityv1alpha1.TokenExpirationAnnotation, v, err)
		}
		s.expiration, expirationFrom = seconds, "ServiceAccount "+serviceAccount
	}
	if v, ok := pod.Metadata.Annotations[podidentityv1alpha1.TokenExpirationAnnotation]; ok {
		seconds, err := parseExpiration(v)
		if err != nil {
			return nil, onPod(podidentityv1alpha1.TokenExpirationAnnotation, v, err)
		}
		s.expiration, expirationFrom = seconds, podRef()
	}
	if s.expiration < MinTokenExpiration {
		s.expirationWarning = fmt.Sprintf("annotation %s on %s asks for a %d s token; Kubernetes issues tokens for at least %d s, so the token lasts %d s",
			podidentityv1alpha1.TokenExpirationAnnotation, expirationFrom, s.expiration, MinTokenExpiration, MinTokenExpiration)
		s.expiration = MinTokenExpiration
	}
	if v, ok := pod.Metadata.Annotations[podidentityv1alpha1.SkipContainersAnnotation]; ok {
		skip, err := parseContainerNames(v)
		if err != nil {
			return nil, onPod(podidentityv1alpha1.SkipContainersAnnotation, v, err)
		}
		s.skip = skip
	}
	// Only a pod that names an allow-list pays for reading it.
	if v, ok := pod.Metadata.Annotations[podidentityv1alpha1.AllowContainersAnnotation]; ok {
		if d := s.readAllowList(v, onPod, podRef); d != nil {
			return nil, d
		}
	}
	tokenPath := m.tokenPath
	// A pod says it runs on Windows by spec.os (what the API server
	// validates it by) or, as before that field, by its node selector.
	windows := pod.Spec.OS != nil && pod.Spec.OS.Name == corev1.Windows
	if windows || pod.Spec.NodeSelector["kubernetes.io/os"] == "windows" || pod.Spec.NodeSelector["beta.kubernetes.io/os"] == "windows" {
		tokenPath = m.windowsPath
	}
	s.env = [envVariables]corev1.EnvVar{
		{Name: envRegionalSTS, Value: "regional"},
		{Name: envDefaultRegion, Value: m.config.Region}, {Name: envRegion, Value: m.config.Region},
		{Name: envRoleARN, Value: roleARN}, {Name: envTokenFile, Value: tokenPath},
	}
	// The region is the flag's, the same for every key.
	s.encodedEnv = m.envs.Get(envKey{roleARN: roleARN, tokenPath: tokenPath}, func() *envBlock { return newEnvBlock(&s.env) })
	return s, nil
}

// readAllowList reads the pod's allow-containers annotation into s.allow.
// A blank list is refused rather than read as no list (every container) or
// an empty one (none): either reading would surprise someone. A container
// both allowed and skipped is refused too. A name of a container the pod
// does not have is no error, as upstream treats skip-containers: a debug
// container added later may carry it.
func (s *settings) readAllowList(value string, onPod func(annotation, value string, err error) *denial, podRef func() string) *denial {
	allow, err := parseContainerNames(value)
	if err == nil && allow == nil {
		err = fmt.Errorf("it is blank; expected a comma-separated list of the containers that get AWS credentials, such as \"app,migrate\" "+
			"(to give none, label the pod %s; to give every container, remove the annotation)", podidentityv1alpha1.SkipLabel)
	}
	if err != nil {
		return onPod(podidentityv1alpha1.AllowContainersAnnotation, value, err)
	}
	var both []string
	for name := range allow {
		if s.skip[name] {
			both = append(both, name)
		}
	}
	if len(both) > 0 {
		slices.Sort(both)
		subject, it := "container "+quoteNames(both)+" is", "it"
		if len(both) > 1 {
			subject, it = "containers "+quoteNames(both)+" are", "each"
		}
		return deny(reasonConflict, "%s named both in annotation %s, which gives AWS credentials, and in annotation %s, which keeps them away, on %s; "+
			"remove %s from one of the two", subject, podidentityv1alpha1.AllowContainersAnnotation, podidentityv1alpha1.SkipContainersAnnotation, podRef(), it)
	}
	s.allow = allow
	return nil
}

// maxQuotedNames is how many container names a message lists; the
// annotations may name thousands.
const maxQuotedNames = 5

// quoteNames lists container names for a message: "a", or "a", "b", the
// first maxQuotedNames of them and how many more.
func quoteNames(names []string) string {
	quoted := make([]string, 0, maxQuotedNames)
	for _, n := range names[:min(len(names), maxQuotedNames)] {
		quoted = append(quoted, strconv.Quote(n))
	}
	list := strings.Join(quoted, ", ")
	if more := len(names) - maxQuotedNames; more > 0 {
		list += fmt.Sprintf(" and %d more", more)
	}
	return list
}
