package iamrolerequest

// The controller's sync against a real IAM and STS: versitygw's IAM service
// (test/s3server with IAM), on loopback. Only the Kubernetes side is fake
// (listers from indexers, fake clientsets), and each test has its own
// infrastructure name, so roles of different tests never meet.

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	awscredentials "github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/iam"
	iamtypes "github.com/aws/aws-sdk-go-v2/service/iam/types"
	configv1 "github.com/openshift/api/config/v1"
	operatorv1 "github.com/openshift/api/operator/v1"
	configv1listers "github.com/openshift/client-go/config/listers/config/v1"
	"github.com/openshift/library-go/pkg/controller/factory"
	"github.com/openshift/library-go/pkg/operator/events"
	"github.com/openshift/library-go/pkg/operator/v1helpers"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	kubefake "k8s.io/client-go/kubernetes/fake"
	corev1listers "k8s.io/client-go/listers/core/v1"
	clienttesting "k8s.io/client-go/testing"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/record"
	"k8s.io/client-go/util/workqueue"
	"k8s.io/utils/clock"

	operatorv1alpha1 "github.com/openshift/cluster-workload-access-operator/pkg/apis/operator/v1alpha1"
	podidentityv1alpha1 "github.com/openshift/cluster-workload-access-operator/pkg/apis/podidentity/v1alpha1"
	"github.com/openshift/cluster-workload-access-operator/pkg/generated/clientset/versioned/fake"
	operatorv1alpha1listers "github.com/openshift/cluster-workload-access-operator/pkg/generated/listers/operator/v1alpha1"
	podidentitylisters "github.com/openshift/cluster-workload-access-operator/pkg/generated/listers/podidentity/v1alpha1"
	"github.com/openshift/cluster-workload-access-operator/pkg/operator/frame/operatorclient"
	"github.com/openshift/cluster-workload-access-operator/pkg/operator/frame/reconcileloop"
	"github.com/openshift/cluster-workload-access-operator/pkg/operator/podidentity/awscall"
	"github.com/openshift/cluster-workload-access-operator/pkg/operator/podidentity/iamrole"
	"github.com/openshift/cluster-workload-access-operator/test/s3server"
)

const (
	testRegion   = "us-east-1"
	testAudience = "sts.amazonaws.com"
	// testThumbprint is given so versitygw registers a provider without
	// fetching the issuer (it refuses loopback and private addresses).
	testThumbprint = "9e99a48a9960b14926bb7f3b02e22da2b0ab7280"
)

// server is the package's one versitygw with IAM, started by the first test
// that needs it.
var server struct {
	once sync.Once
	s    *s3server.Server
	dir  string
	err  error
}

func TestMain(m *testing.M) {
	code := m.Run()
	if server.s != nil {
		server.s.Stop()
		os.RemoveAll(server.dir)
	}
	os.Exit(code)
}

func startServer(t *testing.T) *s3server.Server {
	t.Helper()
	server.once.Do(func() {
		if server.dir, server.err = os.MkdirTemp("", "iamrolerequest-iam-"); server.err != nil {
			return
		}
		// The binary before the deadline: a cold build (`make s3server`) has none.
		binary, err := s3server.ResolveBinary()
		if server.err = err; err != nil {
			return
		}
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		server.s, server.err = s3server.Start(ctx, s3server.Options{Dir: filepath.Join(server.dir, "s3"), Binary: binary, Region: testRegion, IAM: true})
	})
	if server.err != nil {
		t.Fatalf("starting versitygw with IAM: %v", server.err)
	}
	return server.s
}

// rootIAM is an admin's IAM client (versitygw's root account).
func rootIAM(s *s3server.Server) *iam.Client {
	return iamClient(s, s.AccessKeyID, s.SecretAccessKey)
}

func iamClient(s *s3server.Server, keyID, secret string) *iam.Client {
	return iam.New(iam.Options{Region: testRegion, Credentials: awscredentials.NewStaticCredentialsProvider(keyID, secret, ""),
		BaseEndpoint: aws.String(s.IAMEndpoint), RetryMaxAttempts: 1})
}

// call is one IAM or STS request the controller sent.
type call struct {
	action string
	params url.Values
}

// recorder is the controller's HTTP transport: it passes every request to
// versitygw and keeps its Query-protocol parameters.
type recorder struct {
	mu    sync.Mutex
	calls []call
	// aws, when set, receives what the controller sends to AWS's own
	// endpoints (*.amazonaws.com), with the Host it was signed for.
	aws *url.URL
}

func (r *recorder) RoundTrip(req *http.Request) (*http.Response, error) {
	body, err := io.ReadAll(req.Body)
	if err != nil {
		return nil, err
	}
	if r.aws != nil && strings.HasSuffix(req.URL.Hostname(), ".amazonaws.com") {
		req = req.Clone(req.Context())
		req.Host = req.URL.Host
		req.URL.Scheme, req.URL.Host = r.aws.Scheme, r.aws.Host
	}
	req.Body = io.NopCloser(bytes.NewReader(body))
	params, _ := url.ParseQuery(string(body))
	r.mu.Lock()
	r.calls = append(r.calls, call{params.Get("Action"), params})
	r.mu.Unlock()
	return http.DefaultTransport.RoundTrip(req)
}

func (r *recorder) reset() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.calls = nil
}

// writes are the calls that change IAM: all but Get*, List* and STS's
// GetCallerIdentity.
func (r *recorder) writes() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []string
	for _, c := range r.calls {
		if !strings.HasPrefix(c.action, "Get") && !strings.HasPrefix(c.action, "List") {
			out = append(out, c.action)
		}
	}
	return out
}

func (r *recorder) find(action string) (url.Values, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, c := range r.calls {
		if c.action == action {
			return c.params, true
		}
	}
	return nil, false
}

// fixture is one cluster: its Infrastructure, WorkloadAccess, credentials,
// requests and ServiceAccounts, and the controller.
type fixture struct {
	t           *testing.T
	s           *s3server.Server
	root        *iam.Client
	infraName   string
	issuerURL   string
	hostPath    string
	providerARN string

	infra    *configv1.Infrastructure
	auth     *configv1.Authentication
	wa       *operatorv1alpha1.WorkloadAccess
	secret   *corev1.Secret
	kube     *kubefake.Clientset
	requests *fake.Clientset
	events   *record.FakeRecorder
	http     *recorder
	c        *controller
	// retries are the waits the syncs scheduled (Queue().AddAfter).
	retries []time.Duration
}

func randomSuffix() string {
	b := make([]byte, 4)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// newFixture registers an OIDC provider for the fixture's issuer (as an
// admin does, phase 1) unless registerProvider is false.
func newFixture(t *testing.T, registerProvider bool) *fixture {
	t.Helper()
	s := startServer(t)
	f := &fixture{t: t, s: s, root: rootIAM(s), infraName: "t" + randomSuffix(), http: &recorder{}}
	f.hostPath = "oidc.example.test/" + f.infraName
	f.issuerURL = "https://" + f.hostPath
	ctx := context.Background()
	if registerProvider {
		out, err := f.root.CreateOpenIDConnectProvider(ctx, &iam.CreateOpenIDConnectProviderInput{
			Url: aws.String(f.issuerURL), ClientIDList: []string{testAudience}, ThumbprintList: []string{testThumbprint}})
		if err != nil {
			t.Fatalf("registering the OIDC provider: %v", err)
		}
		f.providerARN = aws.ToString(out.OpenIDConnectProviderArn)
	}
	f.infra = &configv1.Infrastructure{ObjectMeta: metav1.ObjectMeta{Name: "cluster"}, Status: configv1.InfrastructureStatus{
		InfrastructureName: f.infraName,
		PlatformStatus:     &configv1.PlatformStatus{Type: configv1.AWSPlatformType, AWS: &configv1.AWSPlatformStatus{Region: testRegion}},
	}}
	f.wa = &operatorv1alpha1.WorkloadAccess{ObjectMeta: metav1.ObjectMeta{Name: operatorclient.ConfigName},
		Spec: operatorv1alpha1.WorkloadAccessSpec{PodIdentity: operatorv1alpha1.PodIdentitySpec{
			Roles: operatorv1alpha1.IAMRolesSpec{IAMEndpoint: s.IAMEndpoint, STSEndpoint: s.IAMEndpoint}}},
		Status: operatorv1alpha1.WorkloadAccessStatus{PodIdentity: operatorv1alpha1.PodIdentityStatus{Region: testRegion, IssuerURL: f.issuerURL}}}
	f.useKeys(s.AccessKeyID, s.SecretAccessKey)
	f.kube = kubefake.NewClientset()
	f.requests = fake.NewSimpleClientset()
	f.events = record.NewFakeRecorder(100)
	return f
}

func (f *fixture) useKeys(keyID, secret string) {
	f.secret = &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: operatorclient.OperatorNamespace, Name: CredentialsSecret},
		Data: map[string][]byte{awscall.AccessKeyIDKey: []byte(keyID), awscall.SecretAccessKeyKey: []byte(secret)}}
}

// namespace creates a namespace in the fake API server, once, an hour
// before the fixture's requests (the fake sets no UID or creation time).
func (f *fixture) namespace(name string) {
	f.t.Helper()
	if _, err := f.namespaceCreatedAt(name, time.Now().Add(-time.Hour)); err != nil && !apierrors.IsAlreadyExists(err) {
		f.t.Fatal(err)
	}
}

// namespaceCreatedAt creates a namespace with a new UID, created at created.
func (f *fixture) namespaceCreatedAt(name string, created time.Time) (*corev1.Namespace, error) {
	return f.createNamespace(name, created, nil)
}

// createNamespace creates a namespace with a new UID and labels, created at
// created (whole seconds, as the API server stores it).
func (f *fixture) createNamespace(name string, created time.Time, labels map[string]string) (*corev1.Namespace, error) {
	return f.kube.CoreV1().Namespaces().Create(context.Background(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{
		Name: name, Labels: labels, UID: types.UID("ns-" + name + "-" + randomSuffix()), CreationTimestamp: metav1.NewTime(created.Truncate(time.Second)),
	}}, metav1.CreateOptions{})
}

// request creates an IAMRoleRequest for ServiceAccount namespace/name, and
// the namespace before it when absent.
func (f *fixture) request(name, namespace, sa string, entries ...podidentityv1alpha1.StatementEntry) *podidentityv1alpha1.IAMRoleRequest {
	f.t.Helper()
	f.namespace(namespace)
	return f.requestOnly(name, namespace, sa, entries...)
}

// requestOnly creates an IAMRoleRequest, created now, whether or not its
// namespace exists.
func (f *fixture) requestOnly(name, namespace, sa string, entries ...podidentityv1alpha1.StatementEntry) *podidentityv1alpha1.IAMRoleRequest {
	f.t.Helper()
	if len(entries) == 0 {
		entries = []podidentityv1alpha1.StatementEntry{{Effect: "Allow", Action: []string{"s3:GetObject"}, Resource: "arn:aws:s3:::data/*"}}
	}
	r := &podidentityv1alpha1.IAMRoleRequest{
		ObjectMeta: metav1.ObjectMeta{Name: name, UID: types.UID("uid-" + name + "-" + randomSuffix()), Generation: 1,
			CreationTimestamp: metav1.NewTime(time.Now().Truncate(time.Second))},
		Spec: podidentityv1alpha1.IAMRoleRequestSpec{
			Storage:      podidentityv1alpha1.Storage{ServiceAccount: podidentityv1alpha1.ServiceAccountStorage{Namespace: namespace, Name: sa}},
			ProviderSpec: podidentityv1alpha1.AWSProviderSpec{StatementEntries: entries},
		},
	}
	created, err := f.requests.PodIdentityV1alpha1().IAMRoleRequests().Create(context.Background(), r, metav1.CreateOptions{})
	if err != nil {
		f.t.Fatal(err)
	}
	return created
}

func (f *fixture) serviceAccount(namespace, name string, annotations map[string]string) {
	f.t.Helper()
	_, err := f.kube.CoreV1().ServiceAccounts(namespace).Create(context.Background(),
		&corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name, Annotations: annotations}}, metav1.CreateOptions{})
	if err != nil {
		f.t.Fatal(err)
	}
}

// controller builds the controller on listers of the fixture's objects as
// they are now (an informer's view), keeping its IAM clients across syncs.
func (f *fixture) controller() *controller {
	indexer := func(objs ...runtime.Object) cache.Indexer {
		i := cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{cache.NamespaceIndex: cache.MetaNamespaceIndexFunc})
		for _, o := range objs {
			if o != nil && !isNilPointer(o) {
				_ = i.Add(o)
			}
		}
		return i
	}
	list, err := f.requests.PodIdentityV1alpha1().IAMRoleRequests().List(context.Background(), metav1.ListOptions{})
	if err != nil {
		f.t.Fatal(err)
	}
	var requests []runtime.Object
	for i := range list.Items {
		requests = append(requests, &list.Items[i])
	}
	var infra, wa, secret runtime.Object = f.infra, f.wa, f.secret
	if f.c == nil {
		f.c = &controller{transport: f.http, backoff: newBackoff()}
		f.c.operatorClient = v1helpers.NewFakeOperatorClient(&operatorv1.OperatorSpec{ManagementState: operatorv1.Managed}, &operatorv1.OperatorStatus{}, nil)
		f.c.unrevokedRoles = reconcileloop.NewFailures(ControllerName, "IAMRoleRequest", f.c.operatorClient)
	}
	f.c.requests = podidentitylisters.NewIAMRoleRequestLister(indexer(requests...))
	f.c.requestClient = f.requests.PodIdentityV1alpha1()
	f.c.workloadAccesses = operatorv1alpha1listers.NewWorkloadAccessLister(indexer(wa))
	f.c.infrastructures = configv1listers.NewInfrastructureLister(indexer(infra))
	f.c.secrets = corev1listers.NewSecretLister(indexer(secret))
	f.c.serviceAccounts = f.kube.CoreV1()
	f.c.namespaces = f.kube.CoreV1()
	f.c.configMaps = f.kube.CoreV1()
	f.c.authentications = configv1listers.NewAuthenticationLister(indexer(f.auth))
	f.c.events = f.events
	return f.c
}

func isNilPointer(o runtime.Object) bool {
	switch v := o.(type) {
	case *configv1.Infrastructure:
		return v == nil
	case *operatorv1alpha1.WorkloadAccess:
		return v == nil
	case *corev1.Secret:
		return v == nil
	case *configv1.Authentication:
		return v == nil
	}
	return false
}

// keyed is a sync context for one queue key whose queue records the
// retries scheduled with AddAfter.
type keyed struct {
	factory.SyncContext
	key   string
	queue *recordingQueue
}

func (k keyed) QueueKey() string                       { return k.key }
func (k keyed) Queue() workqueue.RateLimitingInterface { return k.queue }

type recordingQueue struct {
	workqueue.RateLimitingInterface
	after *[]time.Duration
}

func (q *recordingQueue) AddAfter(item any, d time.Duration) {
	*q.after = append(*q.after, d)
}

// sync runs one sync of the request and returns its error; the waits it
// scheduled are appended to f.retries.
func (f *fixture) sync(name string) error {
	f.t.Helper()
	c := f.controller()
	base := factory.NewSyncContext("test", events.NewInMemoryRecorder("test", clock.RealClock{}))
	syncCtx := keyed{base, name, &recordingQueue{base.Queue(), &f.retries}}
	return c.sync(context.Background(), syncCtx)
}

// wantRetry checks that the last sync scheduled a retry of at least min.
func (f *fixture) wantRetry(min time.Duration) {
	f.t.Helper()
	if len(f.retries) == 0 {
		f.t.Fatal("the failure was not scheduled for a retry")
	}
	if got := f.retries[len(f.retries)-1]; got < min {
		f.t.Errorf("retry after %s, want at least %s", got, min)
	}
}

func (f *fixture) get(name string) *podidentityv1alpha1.IAMRoleRequest {
	f.t.Helper()
	r, err := f.requests.PodIdentityV1alpha1().IAMRoleRequests().Get(context.Background(), name, metav1.GetOptions{})
	if err != nil {
		f.t.Fatal(err)
	}
	return r
}

func (f *fixture) condition(name, conditionType string) metav1.Condition {
	f.t.Helper()
	c := meta.FindStatusCondition(f.get(name).Status.Conditions, conditionType)
	if c == nil {
		f.t.Fatalf("IAMRoleRequest %s has no %s condition: %+v", name, conditionType, f.get(name).Status)
	}
	return *c
}

func (f *fixture) wantCondition(name, conditionType string, status metav1.ConditionStatus, reason string, messageHas ...string) metav1.Condition {
	f.t.Helper()
	c := f.condition(name, conditionType)
	if c.Status != status || c.Reason != reason {
		f.t.Fatalf("%s %s=%s (%s: %s), want %s %s", name, conditionType, c.Status, c.Reason, c.Message, status, reason)
	}
	for _, part := range messageHas {
		if !strings.Contains(c.Message, part) {
			f.t.Errorf("%s message %q does not say %q", conditionType, c.Message, part)
		}
	}
	if c.ObservedGeneration != f.get(name).Generation {
		f.t.Errorf("%s observedGeneration %d, want %d", conditionType, c.ObservedGeneration, f.get(name).Generation)
	}
	return c
}

// kubeWrites are the writes to the API server since the last reset.
func (f *fixture) kubeWrites() []string {
	var out []string
	for _, actions := range [][]clienttesting.Action{f.kube.Actions(), f.requests.Actions()} {
		for _, a := range actions {
			if v := a.GetVerb(); v != "get" && v != "list" && v != "watch" {
				out = append(out, v+" "+a.GetResource().Resource+"/"+a.GetSubresource())
			}
		}
	}
	return out
}

func (f *fixture) resetRecords() {
	f.kube.ClearActions()
	f.requests.ClearActions()
	f.http.reset()
	for len(f.events.Events) > 0 {
		<-f.events.Events
	}
}

func (f *fixture) drainEvents() []string {
	var out []string
	for len(f.events.Events) > 0 {
		out = append(out, <-f.events.Events)
	}
	return out
}

func (f *fixture) roleName(request string) string { return iamrole.RoleName(f.infraName, request) }

func (f *fixture) getRole(request string) (*iam.GetRoleOutput, error) {
	return f.root.GetRole(context.Background(), &iam.GetRoleInput{RoleName: aws.String(f.roleName(request))})
}

func (f *fixture) trustFor(namespace, sa, audience string) string {
	return iamrole.TrustPolicy([]iamrole.Provider{{ARN: f.providerARN, HostPath: f.hostPath}}, namespace, sa, audience)
}

func decoded(t *testing.T, raw string) string {
	t.Helper()
	doc, err := iamrole.DecodeDocument(raw)
	if err != nil {
		t.Fatal(err)
	}
	return doc
}

// The first sync makes the role and the ServiceAccount; the next ones
// write nothing, to IAM or to the API server.
func TestCreateThenResyncWritesNothing(t *testing.T) {
	f := newFixture(t, true)
	ctx := context.Background()
	entries := []podidentityv1alpha1.StatementEntry{{Effect: "Allow", Action: []string{"s3:GetObject", "s3:ListBucket"}, Resource: "arn:aws:s3:::data/*",
		PolicyCondition: map[string]map[string][]string{"StringEquals": {"aws:SourceVpc": {"vpc-1"}}}}}
	created := f.request("registry", "openshift-image-registry", "image-registry-sa", entries...)
	if err := f.sync("registry"); err != nil {
		t.Fatalf("sync: %v", err)
	}

	got, err := f.getRole("registry")
	if err != nil {
		t.Fatalf("the role was not created: %v", err)
	}
	role := got.Role
	if aws.ToString(role.Path) != "/workload-access/"+f.infraName+"/" {
		t.Errorf("path %q", aws.ToString(role.Path))
	}
	tags := map[string]string{}
	for _, tag := range role.Tags {
		tags[aws.ToString(tag.Key)] = aws.ToString(tag.Value)
	}
	wantTags := map[string]string{iamrole.TagRequestUID: string(created.UID), "kubernetes.io/cluster/" + f.infraName: "owned", iamrole.TagRequest: "registry",
		iamrole.TagCluster: f.infraName, iamrole.TagNamespace: "openshift-image-registry", iamrole.TagServiceAccount: "image-registry-sa"}
	if !reflect.DeepEqual(tags, wantTags) {
		t.Errorf("tags %v, want %v", tags, wantTags)
	}
	if trust := decoded(t, aws.ToString(role.AssumeRolePolicyDocument)); !iamrole.SameDocument(trust, f.trustFor("openshift-image-registry", "image-registry-sa", testAudience)) {
		t.Errorf("trust policy %s", trust)
	}
	policy, err := f.root.GetRolePolicy(ctx, &iam.GetRolePolicyInput{RoleName: role.RoleName, PolicyName: aws.String(iamrole.PolicyName)})
	if err != nil {
		t.Fatalf("the inline policy: %v", err)
	}
	want, _ := iamrole.PolicyDocument(entries)
	if doc := decoded(t, aws.ToString(policy.PolicyDocument)); !iamrole.SameDocument(doc, want) {
		t.Errorf("inline policy %s, want %s", doc, want)
	}

	arn := aws.ToString(role.Arn)
	sa, err := f.kube.CoreV1().ServiceAccounts("openshift-image-registry").Get(ctx, "image-registry-sa", metav1.GetOptions{})
	if err != nil {
		t.Fatalf("the ServiceAccount was not created: %v", err)
	}
	if sa.Annotations[podidentityv1alpha1.RoleARNAnnotation] != arn || sa.Annotations[podidentityv1alpha1.LinkedByAnnotation] != string(created.UID) {
		t.Errorf("ServiceAccount annotations %v", sa.Annotations)
	}
	if len(sa.OwnerReferences) != 1 || sa.OwnerReferences[0].UID != created.UID || sa.OwnerReferences[0].Kind != "IAMRoleRequest" {
		t.Errorf("ServiceAccount owner references %+v", sa.OwnerReferences)
	}
	status := f.get("registry")
	if status.Status.RoleARN != arn || status.Status.ProviderStatus == nil || status.Status.ProviderStatus.User != f.roleName("registry") ||
		status.Status.ProviderStatus.Policy != iamrole.PolicyName || status.Status.ServiceAccount != "openshift-image-registry/image-registry-sa" {
		t.Errorf("status %+v", status.Status)
	}
	if !strings.Contains(strings.Join(status.Finalizers, ","), Finalizer) {
		t.Errorf("finalizers %v", status.Finalizers)
	}
	f.wantCondition("registry", podidentityv1alpha1.ConditionProvisioned, metav1.ConditionTrue, podidentityv1alpha1.ReasonProvisioned, arn)
	f.wantCondition("registry", podidentityv1alpha1.ConditionServiceAccountLinked, metav1.ConditionTrue, podidentityv1alpha1.ReasonLinked)
	if evs := strings.Join(f.drainEvents(), "\n"); !strings.Contains(evs, "RoleCreated") || !strings.Contains(evs, "ServiceAccountCreated") {
		t.Errorf("events:\n%s", evs)
	}

	for i := range 2 {
		f.resetRecords()
		if err := f.sync("registry"); err != nil {
			t.Fatalf("resync %d: %v", i, err)
		}
		if w := f.http.writes(); len(w) > 0 {
			t.Errorf("resync %d wrote to IAM: %v", i, w)
		}
		if w := f.kubeWrites(); len(w) > 0 {
			t.Errorf("resync %d wrote to the API server: %v", i, w)
		}
		if evs := f.drainEvents(); len(evs) > 0 {
			t.Errorf("resync %d recorded events: %v", i, evs)
		}
	}
}

// An existing ServiceAccount is annotated, and its audience annotation
// chooses the trust policy's :aud.
func TestExistingServiceAccountIsAnnotated(t *testing.T) {
	f := newFixture(t, true)
	f.serviceAccount("apps", "reader", map[string]string{podidentityv1alpha1.AudienceAnnotation: "vault.example.com", "keep": "me"})
	created := f.request("reader", "apps", "reader")
	if err := f.sync("reader"); err != nil {
		t.Fatal(err)
	}
	got, err := f.getRole("reader")
	if err != nil {
		t.Fatal(err)
	}
	if trust := decoded(t, aws.ToString(got.Role.AssumeRolePolicyDocument)); !iamrole.SameDocument(trust, f.trustFor("apps", "reader", "vault.example.com")) {
		t.Errorf("trust policy %s", trust)
	}
	sa, _ := f.kube.CoreV1().ServiceAccounts("apps").Get(context.Background(), "reader", metav1.GetOptions{})
	if sa.Annotations[podidentityv1alpha1.RoleARNAnnotation] != aws.ToString(got.Role.Arn) || sa.Annotations[podidentityv1alpha1.LinkedByAnnotation] != string(created.UID) || sa.Annotations["keep"] != "me" {
		t.Errorf("annotations %v", sa.Annotations)
	}
	if len(sa.OwnerReferences) != 0 {
		t.Errorf("an existing ServiceAccount got owner references %v", sa.OwnerReferences)
	}
	f.resetRecords()
	if err := f.sync("reader"); err != nil {
		t.Fatal(err)
	}
	if w := append(f.http.writes(), f.kubeWrites()...); len(w) > 0 {
		t.Errorf("resync wrote %v", w)
	}
}

// What an admin changes in IAM behind the operator's back is restored.
func TestDriftInIAMIsRepaired(t *testing.T) {
	f := newFixture(t, true)
	ctx := context.Background()
	f.request("app", "apps", "app")
	if err := f.sync("app"); err != nil {
		t.Fatal(err)
	}
	name := aws.String(f.roleName("app"))
	wide := `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":"s3:*","Resource":"*"}]}`
	if _, err := f.root.UpdateAssumeRolePolicy(ctx, &iam.UpdateAssumeRolePolicyInput{RoleName: name,
		PolicyDocument: aws.String(f.trustFor("apps", "someone-else", testAudience))}); err != nil {
		t.Fatal(err)
	}
	if _, err := f.root.PutRolePolicy(ctx, &iam.PutRolePolicyInput{RoleName: name, PolicyName: aws.String(iamrole.PolicyName), PolicyDocument: aws.String(wide)}); err != nil {
		t.Fatal(err)
	}
	f.resetRecords()
	if err := f.sync("app"); err != nil {
		t.Fatal(err)
	}
	if w := strings.Join(f.http.writes(), ","); w != "UpdateAssumeRolePolicy,PutRolePolicy" {
		t.Errorf("repair wrote %s", w)
	}
	got, _ := f.getRole("app")
	if trust := decoded(t, aws.ToString(got.Role.AssumeRolePolicyDocument)); !iamrole.SameDocument(trust, f.trustFor("apps", "app", testAudience)) {
		t.Errorf("trust policy not restored: %s", trust)
	}
	policy, _ := f.root.GetRolePolicy(ctx, &iam.GetRolePolicyInput{RoleName: name, PolicyName: aws.String(iamrole.PolicyName)})
	if doc := decoded(t, aws.ToString(policy.PolicyDocument)); iamrole.SameDocument(doc, wide) {
		t.Errorf("inline policy not restored: %s", doc)
	}
	if evs := strings.Join(f.drainEvents(), "\n"); strings.Count(evs, "RoleRepaired") != 2 {
		t.Errorf("events:\n%s", evs)
	}
	// Deleted: put back.
	if _, err := f.root.DeleteRolePolicy(ctx, &iam.DeleteRolePolicyInput{RoleName: name, PolicyName: aws.String(iamrole.PolicyName)}); err != nil {
		t.Fatal(err)
	}
	f.resetRecords()
	if err := f.sync("app"); err != nil {
		t.Fatal(err)
	}
	if w := strings.Join(f.http.writes(), ","); w != "PutRolePolicy" {
		t.Errorf("repair wrote %s", w)
	}
	f.wantCondition("app", podidentityv1alpha1.ConditionProvisioned, metav1.ConditionTrue, podidentityv1alpha1.ReasonProvisioned)
	f.resetRecords()
	if err := f.sync("app"); err != nil {
		t.Fatal(err)
	}
	if w := append(f.http.writes(), f.kubeWrites()...); len(w) > 0 {
		t.Errorf("resync after the repair wrote %v", w)
	}
}

// roleTags are the tags IAM holds on the request's role.
func (f *fixture) roleTags(request string) map[string]string {
	f.t.Helper()
	got, err := f.getRole(request)
	if err != nil {
		f.t.Fatal(err)
	}
	tags := map[string]string{}
	for _, tag := range got.Role.Tags {
		tags[aws.ToString(tag.Key)] = aws.ToString(tag.Value)
	}
	return tags
}

// A role made before the operator tagged the ServiceAccount (as an earlier
// version made it), or whose tags were changed in IAM, is brought to its
// tags with one TagRole of only those that differ; the other tags are left
// alone, and a resync writes nothing.
func TestRoleTagsAreRepaired(t *testing.T) {
	f := newFixture(t, true)
	ctx := context.Background()
	f.request("app", "apps", "app")
	if err := f.sync("app"); err != nil {
		t.Fatal(err)
	}
	want := f.roleTags("app")
	name := aws.String(f.roleName("app"))
	if _, err := f.root.UntagRole(ctx, &iam.UntagRoleInput{RoleName: name, TagKeys: []string{iamrole.TagCluster, iamrole.TagNamespace}}); err != nil {
		t.Fatal(err)
	}
	if _, err := f.root.TagRole(ctx, &iam.TagRoleInput{RoleName: name, Tags: []iamtypes.Tag{iamTag(iamrole.TagServiceAccount, "someone-else"), iamTag("owner", "team-a")}}); err != nil {
		t.Fatal(err)
	}
	f.resetRecords()
	if err := f.sync("app"); err != nil {
		t.Fatal(err)
	}
	if w := strings.Join(f.http.writes(), ","); w != "TagRole" {
		t.Errorf("repair wrote %s, want TagRole", w)
	}
	params, _ := f.http.find("TagRole")
	sent := map[string]string{}
	for i := 1; params.Get(fmt.Sprintf("Tags.member.%d.Key", i)) != ""; i++ {
		sent[params.Get(fmt.Sprintf("Tags.member.%d.Key", i))] = params.Get(fmt.Sprintf("Tags.member.%d.Value", i))
	}
	if wantSent := map[string]string{iamrole.TagCluster: f.infraName, iamrole.TagNamespace: "apps", iamrole.TagServiceAccount: "app"}; !reflect.DeepEqual(sent, wantSent) {
		t.Errorf("TagRole sent %v, want only the tags that differed, %v", sent, wantSent)
	}
	want["owner"] = "team-a"
	if got := f.roleTags("app"); !reflect.DeepEqual(got, want) {
		t.Errorf("tags after the repair %v, want %v", got, want)
	}
	if evs := strings.Join(f.drainEvents(), "\n"); !strings.Contains(evs, "RoleRepaired Set the tags") || !strings.Contains(evs, iamrole.TagNamespace+"=apps") {
		t.Errorf("events:\n%s", evs)
	}
	f.wantCondition("app", podidentityv1alpha1.ConditionProvisioned, metav1.ConditionTrue, podidentityv1alpha1.ReasonProvisioned)
	f.resetRecords()
	if err := f.sync("app"); err != nil {
		t.Fatal(err)
	}
	if w := append(f.http.writes(), f.kubeWrites()...); len(w) > 0 {
		t.Errorf("resync after the repair wrote %v", w)
	}
}

// A role of the name that the request's UID tag does not prove is never
// adopted, changed or deleted.
func TestRoleNameTaken(t *testing.T) {
	f := newFixture(t, true)
	ctx := context.Background()
	theirs := `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Principal":{"Federated":"` + f.providerARN + `"},"Action":"sts:AssumeRoleWithWebIdentity"}]}`
	for _, tc := range []struct {
		name string
		tags map[string]string
	}{
		{"untagged", nil},
		{"another-request", map[string]string{iamrole.TagRequestUID: "someone-elses-uid"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			parent := f.t
			f.t = t
			defer func() { f.t = parent }()
			input := &iam.CreateRoleInput{RoleName: aws.String(f.roleName(tc.name)), Path: aws.String(iamrole.RolePath(f.infraName)), AssumeRolePolicyDocument: aws.String(theirs)}
			for k, v := range tc.tags {
				input.Tags = append(input.Tags, iamTag(k, v))
			}
			if _, err := f.root.CreateRole(ctx, input); err != nil {
				t.Fatal(err)
			}
			f.request(tc.name, "apps", tc.name)
			f.resetRecords()
			if err := f.sync(tc.name); err != nil {
				t.Fatal(err)
			}
			f.wantCondition(tc.name, podidentityv1alpha1.ConditionProvisioned, metav1.ConditionFalse, podidentityv1alpha1.ReasonRoleNameTaken, f.roleName(tc.name), "never changes or deletes")
			f.wantCondition(tc.name, podidentityv1alpha1.ConditionServiceAccountLinked, metav1.ConditionFalse, podidentityv1alpha1.ReasonWaitingForRole)
			if w := f.http.writes(); len(w) > 0 {
				t.Errorf("IAM writes on someone else's role: %v", w)
			}
			// Deleting the request leaves the role.
			f.markDeleted(tc.name)
			if err := f.sync(tc.name); err != nil {
				t.Fatal(err)
			}
			if w := f.http.writes(); len(w) > 0 {
				t.Errorf("IAM writes on someone else's role: %v", w)
			}
			got, err := f.getRole(tc.name)
			if err != nil {
				t.Fatalf("someone else's role is gone: %v", err)
			}
			if trust := decoded(t, aws.ToString(got.Role.AssumeRolePolicyDocument)); !iamrole.SameDocument(trust, theirs) {
				t.Errorf("someone else's trust policy changed: %s", trust)
			}
			if fin := f.get(tc.name).Finalizers; len(fin) != 0 {
				t.Errorf("finalizers %v left", fin)
			}
		})
	}
}

func iamTag(k, v string) iamtypes.Tag { return iamtypes.Tag{Key: aws.String(k), Value: aws.String(v)} }

// markDeleted is what the API server does on delete of an object with
// finalizers (the fake clientset deletes at once).
func (f *fixture) markDeleted(name string) {
	f.t.Helper()
	r := f.get(name)
	now := metav1.Now()
	r.DeletionTimestamp = &now
	r.Generation++
	if _, err := f.requests.PodIdentityV1alpha1().IAMRoleRequests().Update(context.Background(), r, metav1.UpdateOptions{}); err != nil {
		f.t.Fatal(err)
	}
}

// A ServiceAccount naming another role is never overwritten.
func TestServiceAccountConflict(t *testing.T) {
	f := newFixture(t, true)
	other := "arn:aws:iam::000000000000:role/someone-elses"
	f.serviceAccount("apps", "taken", map[string]string{podidentityv1alpha1.RoleARNAnnotation: other})
	f.request("taken", "apps", "taken")
	if err := f.sync("taken"); err != nil {
		t.Fatal(err)
	}
	f.wantCondition("taken", podidentityv1alpha1.ConditionProvisioned, metav1.ConditionTrue, podidentityv1alpha1.ReasonProvisioned)
	f.wantCondition("taken", podidentityv1alpha1.ConditionServiceAccountLinked, metav1.ConditionFalse, podidentityv1alpha1.ReasonConflict, other, "never overwrites")
	sa, _ := f.kube.CoreV1().ServiceAccounts("apps").Get(context.Background(), "taken", metav1.GetOptions{})
	if sa.Annotations[podidentityv1alpha1.RoleARNAnnotation] != other || sa.Annotations[podidentityv1alpha1.LinkedByAnnotation] != "" {
		t.Errorf("the ServiceAccount was changed: %v", sa.Annotations)
	}
	// Deleting the request deletes its role and leaves the account alone.
	f.markDeleted("taken")
	if err := f.sync("taken"); err != nil {
		t.Fatal(err)
	}
	sa, _ = f.kube.CoreV1().ServiceAccounts("apps").Get(context.Background(), "taken", metav1.GetOptions{})
	if sa.Annotations[podidentityv1alpha1.RoleARNAnnotation] != other {
		t.Errorf("the ServiceAccount was changed on deletion: %v", sa.Annotations)
	}
}

// Deleting a request deletes its role and inline policy, removes the
// annotations it added, then its finalizer.
func TestDeletion(t *testing.T) {
	f := newFixture(t, true)
	f.serviceAccount("apps", "worker", map[string]string{"keep": "me"})
	f.request("worker", "apps", "worker")
	if err := f.sync("worker"); err != nil {
		t.Fatal(err)
	}
	if _, err := f.getRole("worker"); err != nil {
		t.Fatal(err)
	}
	f.drainEvents()
	f.markDeleted("worker")
	f.resetRecords()
	if err := f.sync("worker"); err != nil {
		t.Fatal(err)
	}
	if w := strings.Join(f.http.writes(), ","); w != "DeleteRolePolicy,DeleteRole" {
		t.Errorf("deletion wrote %s", w)
	}
	if _, err := f.getRole("worker"); awscall.ErrorCode(err) != "NoSuchEntity" {
		t.Errorf("the role is still there: %v", err)
	}
	sa, _ := f.kube.CoreV1().ServiceAccounts("apps").Get(context.Background(), "worker", metav1.GetOptions{})
	if _, ok := sa.Annotations[podidentityv1alpha1.RoleARNAnnotation]; ok || sa.Annotations[podidentityv1alpha1.LinkedByAnnotation] != "" || sa.Annotations["keep"] != "me" {
		t.Errorf("annotations after deletion: %v", sa.Annotations)
	}
	if fin := f.get("worker").Finalizers; len(fin) != 0 {
		t.Errorf("finalizers %v left", fin)
	}
	if evs := strings.Join(f.drainEvents(), "\n"); !strings.Contains(evs, "RoleDeleted") || !strings.Contains(evs, "ServiceAccountUnlinked") {
		t.Errorf("events:\n%s", evs)
	}
}

// A deletion IAM refuses keeps the finalizer and says why.
func TestDeletionRefusedKeepsTheFinalizer(t *testing.T) {
	f := newFixture(t, true)
	f.request("kept", "apps", "kept")
	if err := f.sync("kept"); err != nil {
		t.Fatal(err)
	}
	f.useReadOnlyKeys()
	f.markDeleted("kept")
	if err := f.sync("kept"); err != nil {
		t.Fatal(err)
	}
	f.wantRetry(retryInitial)
	f.wantCondition("kept", podidentityv1alpha1.ConditionProvisioned, metav1.ConditionFalse, podidentityv1alpha1.ReasonAccessDenied,
		"deleting the role", "iam:DeleteRolePolicy", "keeps its finalizer")
	if fin := f.get("kept").Finalizers; len(fin) != 1 {
		t.Errorf("finalizers %v", fin)
	}
	if _, err := f.getRole("kept"); err != nil {
		t.Errorf("the role: %v", err)
	}
}

// Without the cluster's OIDC provider in IAM nothing is created, and the
// condition says what to register.
func TestOIDCProviderNotRegistered(t *testing.T) {
	f := newFixture(t, false)
	f.request("early", "apps", "early")
	if err := f.sync("early"); err != nil {
		t.Fatal(err)
	}
	f.wantCondition("early", podidentityv1alpha1.ConditionProvisioned, metav1.ConditionFalse, podidentityv1alpha1.ReasonOIDCProviderNotRegistered,
		"oidc-provider/"+f.hostPath, "create-open-id-connect-provider --url "+f.issuerURL)
	f.wantRetry(waitingRecheck)
	if w := f.http.writes(); len(w) > 0 {
		t.Errorf("IAM writes without a provider: %v", w)
	}
	if _, err := f.getRole("early"); awscall.ErrorCode(err) != "NoSuchEntity" {
		t.Errorf("a role was created: %v", err)
	}
	// Registered later: the next sync creates the role.
	out, err := f.root.CreateOpenIDConnectProvider(context.Background(), &iam.CreateOpenIDConnectProviderInput{
		Url: aws.String(f.issuerURL), ClientIDList: []string{testAudience}, ThumbprintList: []string{testThumbprint}})
	if err != nil {
		t.Fatal(err)
	}
	f.providerARN = aws.ToString(out.OpenIDConnectProviderArn)
	if err := f.sync("early"); err != nil {
		t.Fatal(err)
	}
	f.wantCondition("early", podidentityv1alpha1.ConditionProvisioned, metav1.ConditionTrue, podidentityv1alpha1.ReasonProvisioned)
}

// Credentials IAM refuses: AccessDenied naming the call, retried.
func TestAccessDenied(t *testing.T) {
	f := newFixture(t, true)
	keyID, secret := f.user("nobody", "")
	f.useKeys(keyID, secret)
	f.request("denied", "apps", "denied")
	if err := f.sync("denied"); err != nil {
		t.Fatal(err)
	}
	f.wantRetry(retryInitial)
	// Failing again waits twice as long: no hot loop against IAM.
	if err := f.sync("denied"); err != nil {
		t.Fatal(err)
	}
	f.wantRetry(2 * retryInitial)
	c := f.wantCondition("denied", podidentityv1alpha1.ConditionProvisioned, metav1.ConditionFalse, podidentityv1alpha1.ReasonAccessDenied,
		"iam:GetOpenIDConnectProvider", "AccessDenied", CredentialsSecret)
	if strings.Contains(c.Message, secret) || strings.Contains(c.Message, keyID) {
		t.Errorf("the message holds a credential: %s", c.Message)
	}
}

// user creates an IAM user with policy (none if empty) and returns its keys.
// useReadOnlyKeys gives the controller keys that may read roles and
// nothing else: every write and delete is refused.
func (f *fixture) useReadOnlyKeys() {
	f.useKeys(f.user("reader", `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":["iam:GetRole"],"Resource":"*"}]}`))
}

func (f *fixture) user(name, policy string) (string, string) {
	f.t.Helper()
	ctx := context.Background()
	name = name + "-" + f.infraName
	if _, err := f.root.CreateUser(ctx, &iam.CreateUserInput{UserName: aws.String(name)}); err != nil {
		f.t.Fatal(err)
	}
	if policy != "" {
		if _, err := f.root.PutUserPolicy(ctx, &iam.PutUserPolicyInput{UserName: aws.String(name), PolicyName: aws.String("operator"), PolicyDocument: aws.String(policy)}); err != nil {
			f.t.Fatalf("PutUserPolicy: %v\n%s", err, policy)
		}
	}
	key, err := f.root.CreateAccessKey(ctx, &iam.CreateAccessKeyInput{UserName: aws.String(name)})
	if err != nil {
		f.t.Fatal(err)
	}
	return aws.ToString(key.AccessKey.AccessKeyId), aws.ToString(key.AccessKey.SecretAccessKey)
}

// The cluster-side reasons: no IAM call at all.
func TestNotReadyReasons(t *testing.T) {
	for _, tc := range []struct {
		name   string
		change func(*fixture)
		reason string
		says   string
	}{
		{"not AWS", func(f *fixture) {
			f.infra.Status.PlatformStatus = &configv1.PlatformStatus{Type: configv1.NonePlatformType}
		},
			podidentityv1alpha1.ReasonPlatformNotSupported, "pod identity is off"},
		{"disabled", func(f *fixture) { f.wa.Spec.PodIdentity.Mode = operatorv1alpha1.PodIdentityDisabled },
			podidentityv1alpha1.ReasonPlatformNotSupported, "Disabled"},
		{"no issuer", func(f *fixture) { f.wa.Status.PodIdentity.IssuerURL = "" }, podidentityv1alpha1.ReasonIssuerNotPublished, "issuerURL is empty"},
		{"no credentials", func(f *fixture) { f.secret = nil }, podidentityv1alpha1.ReasonCredentialsMissing, "workload-access-iam"},
		{"empty credentials", func(f *fixture) { f.secret.Data = nil }, podidentityv1alpha1.ReasonCredentialsMissing, "has no aws_access_key_id and no aws_secret_access_key"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t, true)
			tc.change(f)
			f.request("r", "apps", "r")
			if err := f.sync("r"); err != nil {
				t.Fatal(err)
			}
			f.wantCondition("r", podidentityv1alpha1.ConditionProvisioned, metav1.ConditionFalse, tc.reason, tc.says)
			f.wantCondition("r", podidentityv1alpha1.ConditionServiceAccountLinked, metav1.ConditionFalse, podidentityv1alpha1.ReasonWaitingForRole)
			if len(f.http.calls) > 0 {
				t.Errorf("IAM calls: %+v", f.http.calls)
			}
			// Deleting a request that never got a role lets it go.
			f.markDeleted("r")
			if err := f.sync("r"); err != nil && tc.reason != podidentityv1alpha1.ReasonIssuerNotPublished {
				t.Fatal(err)
			}
		})
	}
}

// A policy over IAM's limit writes nothing.
func TestPolicyTooLarge(t *testing.T) {
	f := newFixture(t, true)
	f.request("big", "apps", "big", podidentityv1alpha1.StatementEntry{Effect: "Allow", Action: []string{"s3:*"}, Resource: strings.Repeat("a", iamrole.MaxPolicySize)})
	if err := f.sync("big"); err != nil {
		t.Fatal(err)
	}
	f.wantCondition("big", podidentityv1alpha1.ConditionProvisioned, metav1.ConditionFalse, podidentityv1alpha1.ReasonInvalidPolicy, "10240", "nothing was written")
	if len(f.http.calls) > 0 {
		t.Errorf("IAM calls: %+v", f.http.calls)
	}
}

// versitygw has no permissions boundaries (it ignores CreateRole's
// PermissionsBoundary and has no PutRolePermissionsBoundary), so what can be
// proven here is that CreateRole sends it; AWS enforces it.
func TestPermissionsBoundaryIsSent(t *testing.T) {
	f := newFixture(t, true)
	boundary := "arn:aws:iam::000000000000:policy/workload-access/boundary"
	f.wa.Spec.PodIdentity.Roles.PermissionsBoundary = boundary
	f.request("bounded", "apps", "bounded")
	if err := f.sync("bounded"); err != nil {
		t.Fatal(err)
	}
	params, ok := f.http.find("CreateRole")
	if !ok {
		t.Fatalf("no CreateRole among %+v", f.http.calls)
	}
	if got := params.Get("PermissionsBoundary"); got != boundary {
		t.Errorf("CreateRole's PermissionsBoundary = %q, want %q", got, boundary)
	}
	// versitygw's GetRole shows no boundary, so the next sync repairs it,
	// and versitygw refuses the call it does not know.
	if err := f.sync("bounded"); err != nil {
		t.Fatal(err)
	}
	f.wantRetry(retryInitial)
	if _, ok := f.http.find("PutRolePermissionsBoundary"); !ok {
		t.Errorf("no PutRolePermissionsBoundary for a role without the boundary: %+v", f.http.writes())
	}
	f.wantCondition("bounded", podidentityv1alpha1.ConditionProvisioned, metav1.ConditionFalse, podidentityv1alpha1.ReasonIAMError, "iam:PutRolePermissionsBoundary")
}
