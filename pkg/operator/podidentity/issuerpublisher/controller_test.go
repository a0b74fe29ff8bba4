package issuerpublisher

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"net"
	"net/http"
	"net/url"
	"os"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/s3"
	s3types "github.com/aws/aws-sdk-go-v2/service/s3/types"
	"github.com/aws/smithy-go"
	smithyhttp "github.com/aws/smithy-go/transport/http"
	configv1 "github.com/openshift/api/config/v1"
	operatorv1 "github.com/openshift/api/operator/v1"
	configv1listers "github.com/openshift/client-go/config/listers/config/v1"
	applyoperatorv1 "github.com/openshift/client-go/operator/applyconfigurations/operator/v1"
	"github.com/openshift/library-go/pkg/controller/factory"
	"github.com/openshift/library-go/pkg/operator/events"
	"github.com/openshift/library-go/pkg/operator/v1helpers"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	corev1listers "k8s.io/client-go/listers/core/v1"
	clienttesting "k8s.io/client-go/testing"
	"k8s.io/client-go/tools/cache"
	"k8s.io/utils/clock"

	operatorv1alpha1 "github.com/openshift/cluster-workload-access-operator/pkg/apis/operator/v1alpha1"
	operatorfake "github.com/openshift/cluster-workload-access-operator/pkg/generated/clientset/versioned/fake"
	operatorv1alpha1listers "github.com/openshift/cluster-workload-access-operator/pkg/generated/listers/operator/v1alpha1"
	"github.com/openshift/cluster-workload-access-operator/pkg/operator/frame/operatorclient"
	"github.com/openshift/cluster-workload-access-operator/pkg/operator/frame/relatedobjects"
	"github.com/openshift/cluster-workload-access-operator/pkg/operator/podidentity"
	"github.com/openshift/cluster-workload-access-operator/pkg/operator/podidentity/awscall"
	"github.com/openshift/cluster-workload-access-operator/pkg/operator/podidentity/issuer"
)

const (
	testAccessKeyID = "AKIAEXAMPLEKEYID0001"
	testSecret      = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"
	awsIssuer       = "https://mycluster-workload-access-oidc.s3.us-east-2.amazonaws.com"
	// testAccount owns the credentials, and the buckets they create.
	testAccount = "111122223333"
)

func pemFixture(t *testing.T, name string) string {
	t.Helper()
	data, err := os.ReadFile("../issuer/testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

func awsInfrastructure() *configv1.Infrastructure {
	return &configv1.Infrastructure{
		ObjectMeta: metav1.ObjectMeta{Name: "cluster"},
		Status: configv1.InfrastructureStatus{
			InfrastructureName: "mycluster",
			Platform:           configv1.AWSPlatformType,
			PlatformStatus:     &configv1.PlatformStatus{Type: configv1.AWSPlatformType, AWS: &configv1.AWSPlatformStatus{Region: "us-east-2"}},
		},
	}
}

func credentialsSecret(data map[string]string) *corev1.Secret {
	s := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: operatorclient.OperatorNamespace, Name: CredentialsSecret}, Data: map[string][]byte{}}
	for k, v := range data {
		s.Data[k] = []byte(v)
	}
	return s
}

func validCredentials() *corev1.Secret {
	return credentialsSecret(map[string]string{awscall.AccessKeyIDKey: testAccessKeyID, awscall.SecretAccessKeyKey: testSecret})
}

func authentication(issuerURL string) *configv1.Authentication {
	return &configv1.Authentication{ObjectMeta: metav1.ObjectMeta{Name: "cluster"}, Spec: configv1.AuthenticationSpec{ServiceAccountIssuer: issuerURL}}
}

// inputs are what one test starts from; New fills in the defaults of a
// healthy AWS cluster.
type inputs struct {
	state  operatorv1.ManagementState
	infra  *configv1.Infrastructure
	spec   operatorv1alpha1.PodIdentitySpec
	keys   map[string]string // nil: no ConfigMap
	secret *corev1.Secret
	auth   *configv1.Authentication
}

type fixture struct {
	t      *testing.T
	c      *controller
	s3     *fakeS3
	stores []connection
	// accountLookups counts the STS GetCallerIdentity calls.
	accountLookups int
	operator       *countingOperatorClient
	client         *operatorfake.Clientset
	was            cache.Indexer
	configMaps     cache.Indexer
	secrets        cache.Indexer
	recorder       events.InMemoryRecorder
	clock          *fakeClock
}

func healthy(t *testing.T) inputs {
	return inputs{
		state:  operatorv1.Managed,
		infra:  awsInfrastructure(),
		keys:   map[string]string{"service-account-001.pub": pemFixture(t, "rsa2048.pub.pem")},
		secret: validCredentials(),
		auth:   authentication(awsIssuer),
	}
}

func newFixture(t *testing.T, in inputs) *fixture {
	t.Helper()
	f := &fixture{t: t, s3: newFakeS3(), clock: &fakeClock{now: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}}
	f.s3.account = testAccount
	index := func(objects ...runtime.Object) cache.Indexer {
		indexer := cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{cache.NamespaceIndex: cache.MetaNamespaceIndexFunc})
		for _, o := range objects {
			if err := indexer.Add(o); err != nil {
				t.Fatal(err)
			}
		}
		return indexer
	}
	wa := &operatorv1alpha1.WorkloadAccess{ObjectMeta: metav1.ObjectMeta{Name: operatorclient.ConfigName}, Spec: operatorv1alpha1.WorkloadAccessSpec{PodIdentity: in.spec}}
	f.was = index(wa)
	f.client = operatorfake.NewSimpleClientset(wa)
	f.client.PrependReactor("patch", "workloadaccesses", f.applyStatus)

	var infras, auths []runtime.Object
	if in.infra != nil {
		infras = append(infras, in.infra)
	}
	if in.auth != nil {
		auths = append(auths, in.auth)
	}
	f.configMaps = index()
	if in.keys != nil {
		f.setKeys(in.keys)
	}
	f.secrets = index()
	if in.secret != nil {
		if err := f.secrets.Add(in.secret); err != nil {
			t.Fatal(err)
		}
	}
	f.operator = &countingOperatorClient{OperatorClient: v1helpers.NewFakeOperatorClient(&operatorv1.OperatorSpec{ManagementState: in.state}, &operatorv1.OperatorStatus{}, nil)}
	f.recorder = events.NewInMemoryRecorder("test", clock.RealClock{})
	f.c = &controller{
		operatorClient:   f.operator,
		workloadAccesses: operatorv1alpha1listers.NewWorkloadAccessLister(f.was),
		statusClient:     f.client.OperatorV1alpha1(),
		infrastructures:  configv1listers.NewInfrastructureLister(index(infras...)),
		authentications:  configv1listers.NewAuthenticationLister(index(auths...)),
		configMaps:       corev1listers.NewConfigMapLister(f.configMaps),
		secrets:          corev1listers.NewSecretLister(f.secrets),
		clock:            f.clock,
		newStore: func(conn connection) objectStore {
			f.stores = append(f.stores, conn)
			f.s3.region = conn.region
			return f.s3
		},
		lookupAccount: func(_ context.Context, conn connection) (string, error) {
			f.accountLookups++
			if conn.endpoint != "" {
				return "", nil
			}
			return testAccount, nil
		},
		unsupported: map[string]bool{},
	}
	return f
}

// applyStatus plays the API server for the server-side apply of
// status.podIdentity, and refreshes the informer's copy.
func (f *fixture) applyStatus(action clienttesting.Action) (bool, runtime.Object, error) {
	patch := action.(clienttesting.PatchActionImpl)
	if patch.GetSubresource() != "status" || patch.GetPatchType() != types.ApplyPatchType {
		f.t.Fatalf("unexpected patch %s %s of %s", patch.GetPatchType(), patch.GetSubresource(), patch.GetName())
	}
	if patch.PatchOptions.FieldManager != statusFieldManager || patch.PatchOptions.Force == nil || !*patch.PatchOptions.Force {
		f.t.Fatalf("status applied with options %+v", patch.PatchOptions)
	}
	var applied map[string]any
	if err := json.Unmarshal(patch.GetPatch(), &applied); err != nil {
		f.t.Fatal(err)
	}
	status, _ := applied["status"].(map[string]any)
	if len(applied) != 4 || len(status) != 1 || status["podIdentity"] == nil {
		f.t.Fatalf("the apply must hold status.podIdentity and nothing else: %s", patch.GetPatch())
	}
	var body struct {
		Status struct {
			PodIdentity operatorv1alpha1.PodIdentityStatus `json:"podIdentity"`
		} `json:"status"`
	}
	if err := json.Unmarshal(patch.GetPatch(), &body); err != nil {
		f.t.Fatal(err)
	}
	wa := f.workloadAccess().DeepCopy()
	wa.Status.PodIdentity = body.Status.PodIdentity
	if err := f.was.Update(wa); err != nil {
		f.t.Fatal(err)
	}
	return true, wa, nil
}

func (f *fixture) workloadAccess() *operatorv1alpha1.WorkloadAccess {
	obj, ok, err := f.was.GetByKey(operatorclient.ConfigName)
	if err != nil || !ok {
		f.t.Fatalf("no WorkloadAccess: %v", err)
	}
	return obj.(*operatorv1alpha1.WorkloadAccess)
}

func (f *fixture) setKeys(keys map[string]string) {
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: SigningCertsNamespace, Name: SigningCertsConfigMap}, Data: keys}
	if err := f.configMaps.Update(cm); err != nil {
		f.t.Fatal(err)
	}
}

func (f *fixture) sync() error {
	f.t.Helper()
	return f.c.sync(context.Background(), factory.NewSyncContext("test", f.recorder))
}

func (f *fixture) mustSync() {
	f.t.Helper()
	if err := f.sync(); err != nil {
		f.t.Fatalf("sync: %v", err)
	}
}

func (f *fixture) condition(conditionType string) *operatorv1.OperatorCondition {
	_, status, _, _ := f.operator.GetOperatorState()
	return v1helpers.FindOperatorCondition(status.Conditions, conditionType)
}

func (f *fixture) wantCondition(conditionType string, status operatorv1.ConditionStatus, reason string, messageParts ...string) {
	f.t.Helper()
	c := f.condition(conditionType)
	if c == nil {
		f.t.Fatalf("no %s condition", conditionType)
	}
	if c.Status != status || c.Reason != reason {
		f.t.Errorf("%s = %s/%s (%q), want %s/%s", conditionType, c.Status, c.Reason, c.Message, status, reason)
	}
	for _, part := range messageParts {
		if !strings.Contains(c.Message, part) {
			f.t.Errorf("%s message %q does not say %q", conditionType, c.Message, part)
		}
	}
}

func (f *fixture) eventReasons() []string {
	var out []string
	for _, e := range f.recorder.Events() {
		out = append(out, e.Reason)
	}
	return out
}

func (f *fixture) statusWrites() int {
	n := 0
	for _, a := range f.client.Actions() {
		if a.GetVerb() != "get" && a.GetVerb() != "list" && a.GetVerb() != "watch" {
			n++
		}
	}
	return n
}

// expectedDocuments is what pkg/operator/podidentity/issuer builds for keys at awsIssuer.
func expectedDocuments(t *testing.T, issuerURL string, keys map[string]string) *issuer.Documents {
	t.Helper()
	docs, err := issuer.BuildFromConfigMap(issuerURL, keys)
	if err != nil {
		t.Fatal(err)
	}
	return docs
}

func TestFirstPublishCreatesTheBucketAndUploadsKeysBeforeDiscovery(t *testing.T) {
	in := healthy(t)
	f := newFixture(t, in)
	f.mustSync()

	wantCalls := []string{
		"HeadBucket", "CreateBucket",
		"GetPublicAccessBlock", "PutPublicAccessBlock",
		"GetBucketPolicy", "PutBucketPolicy",
		"GetObject keys.json", "PutObject keys.json",
		"GetObject .well-known/openid-configuration", "PutObject .well-known/openid-configuration",
	}
	if !slices.Equal(f.s3.calls, wantCalls) {
		t.Errorf("S3 calls\n%v\nwant\n%v", f.s3.calls, wantCalls)
	}
	if len(f.stores) != 1 || f.stores[0].region != "us-east-2" || f.stores[0].endpoint != "" ||
		f.stores[0].accessKeyID != testAccessKeyID || f.stores[0].secret != testSecret {
		t.Errorf("S3 clients built for %+v", f.stores)
	}
	bucket := f.s3.buckets["mycluster-workload-access-oidc"]
	if bucket == nil {
		t.Fatalf("buckets %v", f.s3.buckets)
	}
	if bucket.locationConstraint != "us-east-2" {
		t.Errorf("location constraint %q", bucket.locationConstraint)
	}
	if !samePublicAccessBlock(*bucket.publicAccessBlock, wantPublicAccessBlock) {
		t.Errorf("public access block %+v", bucket.publicAccessBlock)
	}
	var policy struct {
		Statement []struct {
			Effect, Principal string
			Action, Resource  []string
		}
	}
	if err := json.Unmarshal([]byte(bucket.policy), &policy); err != nil {
		t.Fatal(err)
	}
	if len(policy.Statement) != 1 || policy.Statement[0].Principal != "*" || policy.Statement[0].Effect != "Allow" ||
		!slices.Equal(policy.Statement[0].Action, []string{"s3:GetObject"}) ||
		!slices.Equal(policy.Statement[0].Resource, []string{"arn:aws:s3:::mycluster-workload-access-oidc/.well-known/openid-configuration", "arn:aws:s3:::mycluster-workload-access-oidc/keys.json"}) {
		t.Errorf("bucket policy %s", bucket.policy)
	}

	docs := expectedDocuments(t, awsIssuer, in.keys)
	for key, body := range map[string][]byte{"keys.json": docs.JWKS, ".well-known/openid-configuration": docs.Discovery} {
		o := bucket.objects[key]
		if string(o.body) != string(body) || o.contentType != "application/json" || o.acl != "" {
			t.Errorf("%s: %q (%s, ACL %q), want %q", key, o.body, o.contentType, o.acl, body)
		}
	}

	status := f.workloadAccess().Status.PodIdentity
	if status.Region != "us-east-2" || status.IssuerURL != awsIssuer || !slices.Equal(status.PublishedKeyIDs, docs.KeyIDs) {
		t.Errorf("status.podIdentity %+v", status)
	}
	f.wantCondition(PodIdentityEnabled, operatorv1.ConditionTrue, podidentity.ReasonPlatformAWS)
	f.wantCondition("IssuerPublisherDegraded", operatorv1.ConditionFalse, "AsExpected")
	f.wantCondition("IssuerPublisherProgressing", operatorv1.ConditionFalse, "AsExpected", "published 1 signing key(s) at "+awsIssuer)
	f.wantCondition(ServiceAccountIssuerMatches, operatorv1.ConditionTrue, "AsExpected", awsIssuer)

	if got := f.eventReasons(); !slices.Equal(got, []string{"BucketCreated", "PublicAccessBlockUpdated", "BucketPolicyUpdated", "IssuerDocumentUploaded", "IssuerDocumentUploaded"}) {
		t.Errorf("events %v", got)
	}
	uploaded := f.recorder.Events()[3].Message
	if !strings.Contains(uploaded, "keys.json") || !strings.Contains(uploaded, "mycluster-workload-access-oidc") || !strings.Contains(uploaded, docs.KeyIDs[0]) {
		t.Errorf("upload event %q names neither the key, the bucket nor the key IDs", uploaded)
	}
}

func TestResyncWithNothingChangedWritesNothing(t *testing.T) {
	f := newFixture(t, healthy(t))
	f.mustSync()
	writesBefore, eventsBefore, changesBefore := f.statusWrites(), len(f.recorder.Events()), f.operator.changes

	// An event right after (another controller's condition, say) reads
	// nothing from S3 either.
	f.s3.calls = nil
	f.mustSync()
	if len(f.s3.calls) != 0 {
		t.Errorf("an event with unchanged inputs called S3: %v", f.s3.calls)
	}

	// The periodic resync reads the bucket back, and writes nothing.
	f.clock.now = f.clock.now.Add(ResyncInterval)
	f.mustSync()
	if len(f.s3.calls) == 0 {
		t.Error("the resync did not check the bucket")
	}
	if w := f.s3.writes(); len(w) != 0 {
		t.Errorf("the resync wrote to S3: %v", w)
	}
	if f.statusWrites() != writesBefore {
		t.Errorf("the resync wrote status.podIdentity: %v", f.client.Actions())
	}
	if f.operator.changes != changesBefore {
		t.Errorf("the resync changed conditions %d times", f.operator.changes-changesBefore)
	}
	if len(f.recorder.Events()) != eventsBefore {
		t.Errorf("the resync emitted events %v", f.eventReasons()[eventsBefore:])
	}
	if len(f.stores) != 1 {
		t.Errorf("built %d S3 clients for one connection", len(f.stores))
	}
}

func TestRotationRepublishesKeysWithBothKeys(t *testing.T) {
	in := healthy(t)
	f := newFixture(t, in)
	f.mustSync()
	f.s3.calls = nil

	rotated := map[string]string{"service-account-001.pub": in.keys["service-account-001.pub"], "service-account-002.pub": pemFixture(t, "rsa2048b.pub.pem")}
	f.setKeys(rotated)
	f.mustSync()

	if w := f.s3.writes(); !slices.Equal(w, []string{"PutObject keys.json"}) {
		t.Errorf("rotation wrote %v, want only keys.json (the discovery document still says RS256)", w)
	}
	docs := expectedDocuments(t, awsIssuer, rotated)
	if len(docs.KeyIDs) != 2 {
		t.Fatalf("key IDs %v", docs.KeyIDs)
	}
	if got := f.s3.buckets["mycluster-workload-access-oidc"].objects["keys.json"].body; string(got) != string(docs.JWKS) {
		t.Errorf("keys.json %s", got)
	}
	if got := f.workloadAccess().Status.PodIdentity.PublishedKeyIDs; !slices.Equal(got, docs.KeyIDs) {
		t.Errorf("publishedKeyIDs %v, want %v", got, docs.KeyIDs)
	}

	// An ECDSA key changes the algorithms: both documents, keys first.
	f.s3.calls = nil
	rotated["service-account-003.pub"] = pemFixture(t, "ec256.pub.pem")
	f.setKeys(rotated)
	f.mustSync()
	if w := f.s3.writes(); !slices.Equal(w, []string{"PutObject keys.json", "PutObject .well-known/openid-configuration"}) {
		t.Errorf("adding an ES256 key wrote %v", w)
	}

	// The old key is no longer trusted once the ConfigMap drops it.
	f.s3.calls = nil
	delete(rotated, "service-account-001.pub")
	f.setKeys(rotated)
	f.mustSync()
	if got := f.workloadAccess().Status.PodIdentity.PublishedKeyIDs; !slices.Equal(got, expectedDocuments(t, awsIssuer, rotated).KeyIDs) {
		t.Errorf("publishedKeyIDs %v after the old key left the ConfigMap", got)
	}
}

func TestResyncRepairsDrift(t *testing.T) {
	f := newFixture(t, healthy(t))
	f.mustSync()
	bucket := f.s3.buckets["mycluster-workload-access-oidc"]
	good := bucket.objects[".well-known/openid-configuration"]

	delete(bucket.objects, "keys.json")
	bucket.objects[".well-known/openid-configuration"] = fakeObject{body: []byte(`{"issuer":"https://evil.example"}`), contentType: "application/json"}
	bucket.policy = ""
	bucket.publicAccessBlock.BlockPublicPolicy = ptrTo(true)
	f.s3.calls = nil

	f.clock.now = f.clock.now.Add(ResyncInterval)
	f.mustSync()
	if w := f.s3.writes(); !slices.Equal(w, []string{"PutPublicAccessBlock", "PutBucketPolicy", "PutObject keys.json", "PutObject .well-known/openid-configuration"}) {
		t.Errorf("repair wrote %v", w)
	}
	if string(bucket.objects[".well-known/openid-configuration"].body) != string(good.body) || bucket.objects["keys.json"].body == nil {
		t.Error("the documents were not restored")
	}

	// The same bytes uploaded with another content type are replaced too.
	o := bucket.objects["keys.json"]
	o.contentType = "binary/octet-stream"
	bucket.objects["keys.json"] = o
	f.s3.calls = nil
	f.clock.now = f.clock.now.Add(ResyncInterval)
	f.mustSync()
	if w := f.s3.writes(); !slices.Equal(w, []string{"PutObject keys.json"}) {
		t.Errorf("content type repair wrote %v", w)
	}
}

// Whoever uploads an object chooses its user metadata: a forged keys.json
// that carries the legitimate SHA-256 (what the publisher once wrote as
// x-amz-meta-sha256) is repaired all the same, and so is one with our bytes
// served gzip-encoded. A resync with nothing changed reads the documents
// back and writes nothing.
func TestForgedDocumentsAreRepairedWhateverTheirMetadataSays(t *testing.T) {
	f := newFixture(t, healthy(t))
	f.mustSync()
	bucket := f.s3.buckets["mycluster-workload-access-oidc"]
	good := bucket.objects["keys.json"]
	sum := sha256.Sum256(good.body)
	forged := fakeObject{body: []byte(`{"keys":[{"kty":"RSA","kid":"attacker","n":"AQAB","e":"AQAB"}]}`), contentType: contentType,
		metadata: map[string]string{"sha256": hex.EncodeToString(sum[:])}}

	for name, o := range map[string]fakeObject{
		"other bytes, our checksum in metadata": forged,
		"our bytes, served gzip-encoded":        {body: good.body, contentType: contentType, contentEncoding: "gzip"},
		"a large object":                        {body: bytes.Repeat([]byte(" "), 10<<20), contentType: contentType},
	} {
		t.Run(name, func(t *testing.T) {
			bucket.objects["keys.json"] = o
			f.s3.calls, f.s3.bytesRead = nil, 0
			f.clock.now = f.clock.now.Add(ResyncInterval)
			f.mustSync()
			if w := f.s3.writes(); !slices.Equal(w, []string{"PutObject keys.json"}) {
				t.Errorf("wrote %v, want keys.json repaired", w)
			}
			if got := bucket.objects["keys.json"]; !bytes.Equal(got.body, good.body) || got.contentEncoding != "" {
				t.Errorf("keys.json is %.80q (encoding %q) after the resync", got.body, got.contentEncoding)
			}
			if f.s3.bytesRead > 2*len(good.body)+len(bucket.objects[".well-known/openid-configuration"].body) {
				t.Errorf("read %d bytes back to check two small documents", f.s3.bytesRead)
			}
		})
	}

	f.s3.calls = nil
	f.clock.now = f.clock.now.Add(ResyncInterval)
	f.mustSync()
	if w := f.s3.writes(); len(w) != 0 {
		t.Errorf("a resync with nothing changed wrote %v", w)
	}
	if !slices.Contains(f.s3.calls, "GetObject keys.json") {
		t.Errorf("the resync did not read keys.json back: %v", f.s3.calls)
	}
}

func TestS3CompatibleServersWithoutPublicAccessBlock(t *testing.T) {
	for name, fail := range map[string]map[string]error{
		// versitygw and s3rver
		"NotImplemented": {"GetPublicAccessBlock": apiError("NotImplemented", "A header you provided implies functionality that is not implemented"),
			"PutPublicAccessBlock": apiError("NotImplemented", "not implemented")},
		// MinIO: Get NotImplemented, Put MalformedXML
		"MinIO": {"GetPublicAccessBlock": apiError("NotImplemented", "not implemented"),
			"PutPublicAccessBlock": apiError("MalformedXML", "The XML you provided was not well-formed")},
		// A server that says there is none, then cannot store one.
		"Put MalformedXML": {"GetPublicAccessBlock": apiError("NoSuchPublicAccessBlockConfiguration", "none"),
			"PutPublicAccessBlock": apiError("MalformedXML", "The XML you provided was not well-formed")},
	} {
		t.Run(name, func(t *testing.T) {
			in := healthy(t)
			in.spec = operatorv1alpha1.PodIdentitySpec{Mode: operatorv1alpha1.PodIdentityEnabled, Issuer: operatorv1alpha1.IssuerPublishingSpec{Bucket: "oidc", Endpoint: "http://127.0.0.1:7070"}}
			in.infra.Status.PlatformStatus = &configv1.PlatformStatus{Type: configv1.NonePlatformType}
			in.auth = authentication("http://127.0.0.1:7070/oidc")
			f := newFixture(t, in)
			f.s3.fail = fail
			f.s3.buckets["oidc"] = &fakeBucket{objects: map[string]fakeObject{}}
			f.mustSync()
			f.wantCondition("IssuerPublisherDegraded", operatorv1.ConditionFalse, "AsExpected")
			f.wantCondition(ServiceAccountIssuerMatches, operatorv1.ConditionTrue, "AsExpected")
			if f.stores[0].endpoint != "http://127.0.0.1:7070" || f.stores[0].region != "" {
				t.Errorf("S3 client for %+v", f.stores[0])
			}
			if got := f.workloadAccess().Status.PodIdentity.IssuerURL; got != "http://127.0.0.1:7070/oidc" {
				t.Errorf("issuerURL %q", got)
			}
			if len(f.s3.buckets["oidc"].objects) != 2 {
				t.Errorf("objects %v", f.s3.buckets["oidc"].objects)
			}
			if len(f.c.unsupported) == 0 {
				t.Error("the missing call was not noted")
			}
		})
	}
}

func TestFailuresReportTheirReasonWithoutCredentials(t *testing.T) {
	unreachable := &smithy.OperationError{ServiceID: "S3", OperationName: "HeadBucket", Err: &smithyhttp.RequestSendError{Err: &url.Error{
		Op: "Head", URL: "https://" + testAccessKeyID + ":" + testSecret + "@mycluster-workload-access-oidc.s3.us-east-2.amazonaws.com/",
		Err: &net.OpError{Op: "dial", Net: "tcp", Err: syscall.ECONNREFUSED}}}}
	for _, tc := range []struct {
		name    string
		modify  func(*inputs)
		fail    map[string]error
		reason  string
		message []string
	}{
		{name: "no Secret", modify: func(in *inputs) { in.secret = nil }, reason: ReasonMissingCredentials,
			message: []string{"Secret openshift-workload-access-operator/workload-access-issuer-s3", "does not exist"}},
		{name: "no secret key", modify: func(in *inputs) {
			in.secret = credentialsSecret(map[string]string{awscall.AccessKeyIDKey: testAccessKeyID})
		}, reason: ReasonMissingCredentials, message: []string{"has no aws_secret_access_key"}},
		{name: "no ConfigMap", modify: func(in *inputs) { in.keys = nil }, reason: ReasonSigningKeysMissing,
			message: []string{"openshift-kube-apiserver/bound-sa-token-signing-certs"}},
		{name: "a private key in the ConfigMap", modify: func(in *inputs) {
			in.keys["service-account-002.pub"] = "-----BEGIN RSA PRIVATE KEY-----\nAAAA\n-----END RSA PRIVATE KEY-----\n"
		}, reason: ReasonInvalidSigningKeys, message: []string{`signing key "service-account-002.pub"`, "only public keys"}},
		{name: "endpoint unreachable", fail: map[string]error{"HeadBucket": unreachable}, reason: ReasonS3Unreachable,
			message: []string{`S3 HeadBucket on bucket "mycluster-workload-access-oidc"`, "connection refused"}},
		{name: "write denied", fail: map[string]error{"PutObject keys.json": apiError("AccessDenied", "Access Denied")}, reason: ReasonAccessDenied,
			message: []string{`S3 PutObject on bucket "mycluster-workload-access-oidc" key "keys.json": AccessDenied: Access Denied`}},
		{name: "HeadBucket 403 without a body", fail: map[string]error{"HeadBucket": apiError("Forbidden", "Forbidden")}, reason: ReasonAccessDenied,
			message: []string{`S3 HeadBucket on bucket "mycluster-workload-access-oidc": Forbidden`}},
		{name: "wrong secret", fail: map[string]error{"HeadBucket": apiError("SignatureDoesNotMatch", "The request signature we calculated does not match the signature you provided.")},
			reason: ReasonInvalidCredentials, message: []string{"SignatureDoesNotMatch"}},
		{name: "unknown access key, echoed by the server", fail: map[string]error{"HeadBucket": apiError("InvalidAccessKeyId", "The AWS Access Key Id "+testAccessKeyID+" does not exist; secret "+testSecret)},
			reason: ReasonInvalidCredentials, message: []string{"InvalidAccessKeyId", "[redacted]"}},
		{name: "bucket name taken", fail: map[string]error{"HeadBucket": &s3types.NotFound{}, "CreateBucket": apiError("BucketAlreadyExists", "The requested bucket name is not available.")},
			reason: ReasonBucketNameTaken, message: []string{"S3 CreateBucket", "spec.podIdentity.issuer.bucket"}},
		{name: "policy refused", fail: map[string]error{"PutBucketPolicy": apiError("AccessDenied", "public policies are blocked by the BlockPublicPolicy block public access setting")},
			reason: ReasonAccessDenied, message: []string{"S3 PutBucketPolicy", "BlockPublicPolicy"}},
		{name: "public access block refused", fail: map[string]error{"PutPublicAccessBlock": apiError("AccessDenied", "Access Denied")},
			reason: ReasonAccessDenied, message: []string{"S3 PutPublicAccessBlock"}},
		{name: "server error", fail: map[string]error{"GetObject .well-known/openid-configuration": apiError("InternalError", "We encountered an internal error.")},
			reason: ReasonS3Error, message: []string{`key ".well-known/openid-configuration": InternalError`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := healthy(t)
			if tc.modify != nil {
				tc.modify(&in)
			}
			f := newFixture(t, in)
			f.s3.fail = tc.fail
			err := f.sync()
			if err == nil {
				t.Fatal("the sync succeeded")
			}
			f.wantCondition("IssuerPublisherDegraded", operatorv1.ConditionTrue, tc.reason, tc.message...)
			f.wantCondition("IssuerPublisherProgressing", operatorv1.ConditionTrue, ReasonPublishing, awsIssuer)
			f.wantCondition(PodIdentityEnabled, operatorv1.ConditionTrue, podidentity.ReasonPlatformAWS)
			if got := f.workloadAccess().Status.PodIdentity; got.IssuerURL != "" || len(got.PublishedKeyIDs) != 0 || got.Region != "us-east-2" {
				t.Errorf("status.podIdentity %+v after a failed first publish", got)
			}
			_, status, _, _ := f.operator.GetOperatorState()
			texts := []string{err.Error()}
			for _, c := range status.Conditions {
				texts = append(texts, c.Message)
			}
			for _, e := range f.recorder.Events() {
				texts = append(texts, e.Message)
			}
			for _, text := range texts {
				if strings.Contains(text, testSecret) || strings.Contains(text, testAccessKeyID) || strings.Contains(text, "127.0.0.1") {
					t.Errorf("a credential or request URL leaked: %q", text)
				}
			}
		})
	}
}

func TestBucketInAnotherRegionSaysWhichRegions(t *testing.T) {
	redirectWithoutRegion := httpError("PutObject", 301, http.Header{}, apiError("PermanentRedirect", "The bucket you are attempting to access must be addressed using the specified endpoint."))
	for _, tc := range []struct {
		name  string
		style wrongRegionStyle
		fail  map[string]error
		// the bucket's region, "" when S3 does not name it
		bucketRegion string
		call         string
	}{
		{name: "HeadBucket 301 with the region header", style: redirect, bucketRegion: "eu-west-1", call: "HeadBucket"},
		{name: "HeadBucket 400 with the region header", style: malformedAuthorization, bucketRegion: "eu-west-1", call: "HeadBucket"},
		{name: "PermanentRedirect naming no region", fail: map[string]error{"GetObject keys.json": redirectWithoutRegion}, call: "GetObject"},
		{name: "AuthorizationHeaderMalformed naming the expected region", fail: map[string]error{"GetBucketPolicy": httpError("GetBucketPolicy", 400, http.Header{},
			apiError("AuthorizationHeaderMalformed", "The authorization header is malformed; the region 'us-east-2' is wrong; expecting 'ap-south-1'"))},
			bucketRegion: "ap-south-1", call: "GetBucketPolicy"},
		{name: "IllegalLocationConstraintException", fail: map[string]error{"HeadBucket": &s3types.NotFound{}, "CreateBucket": apiError("IllegalLocationConstraintException",
			"The unspecified location constraint is incompatible for the region specific endpoint this request was sent to.")}, call: "CreateBucket"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t, healthy(t))
			f.s3.wrongRegion = tc.style
			f.s3.fail = tc.fail
			if tc.fail == nil {
				f.s3.buckets["mycluster-workload-access-oidc"] = &fakeBucket{region: tc.bucketRegion, objects: map[string]fakeObject{}}
			} else {
				f.s3.buckets["mycluster-workload-access-oidc"] = &fakeBucket{objects: map[string]fakeObject{}, publicAccessBlock: &wantPublicAccessBlock}
			}
			err := f.sync()
			if err == nil {
				t.Fatal("the sync succeeded")
			}
			want := []string{`S3 ` + tc.call + ` on bucket "mycluster-workload-access-oidc"`, "set spec.podIdentity.region to ", "spec.podIdentity.issuer.bucket to a bucket in us-east-2"}
			if tc.bucketRegion != "" {
				want = append(want, "is in region "+tc.bucketRegion+", not in the configured region us-east-2", "set spec.podIdentity.region to "+tc.bucketRegion)
			} else {
				want = append(want, "is in another region than the configured region us-east-2")
			}
			f.wantCondition("IssuerPublisherDegraded", operatorv1.ConditionTrue, ReasonBucketInAnotherRegion, want...)
			t.Log(f.condition("IssuerPublisherDegraded").Message)
			if w := f.s3.writes(); tc.fail == nil && len(w) != 0 {
				t.Errorf("wrote %v to a bucket in another region", w)
			}
			if strings.Contains(err.Error(), testSecret) || strings.Contains(err.Error(), testAccessKeyID) {
				t.Errorf("credentials in %q", err)
			}
		})
	}

	t.Run("other 400s stay what they are", func(t *testing.T) {
		f := newFixture(t, healthy(t))
		f.s3.fail = map[string]error{"HeadBucket": httpError("HeadBucket", 400, http.Header{}, apiError("AuthorizationHeaderMalformed",
			"The authorization header is malformed; a non-empty Access Key (AKID) must be provided in the credential."))}
		_ = f.sync()
		f.wantCondition("IssuerPublisherDegraded", operatorv1.ConditionTrue, ReasonS3Error, "AuthorizationHeaderMalformed")
	})

	t.Run("in the configured region once spec.podIdentity.region says so", func(t *testing.T) {
		in := healthy(t)
		in.spec.Region = "eu-west-1"
		in.auth = authentication("https://mycluster-workload-access-oidc.s3.eu-west-1.amazonaws.com")
		f := newFixture(t, in)
		f.s3.buckets["mycluster-workload-access-oidc"] = &fakeBucket{region: "eu-west-1", objects: map[string]fakeObject{}}
		f.mustSync()
		f.wantCondition("IssuerPublisherDegraded", operatorv1.ConditionFalse, "AsExpected")
		f.wantCondition(ServiceAccountIssuerMatches, operatorv1.ConditionTrue, "AsExpected")
	})
}

func TestDegradedClearsAndTheLastPublicationStaysInStatus(t *testing.T) {
	f := newFixture(t, healthy(t))
	f.mustSync()
	published := f.workloadAccess().Status.PodIdentity

	// Drift cannot be repaired: Degraded, but the current keys are still
	// published, so not Progressing.
	f.s3.fail = map[string]error{"HeadBucket": apiError("AccessDenied", "Access Denied")}
	f.clock.now = f.clock.now.Add(ResyncInterval)
	if err := f.sync(); err == nil {
		t.Fatal("the sync succeeded")
	}
	f.wantCondition("IssuerPublisherDegraded", operatorv1.ConditionTrue, ReasonAccessDenied)
	f.wantCondition("IssuerPublisherProgressing", operatorv1.ConditionFalse, "AsExpected")
	if got := f.workloadAccess().Status.PodIdentity; got.IssuerURL != published.IssuerURL || !slices.Equal(got.PublishedKeyIDs, published.PublishedKeyIDs) {
		t.Errorf("status.podIdentity %+v, want the last publication %+v", got, published)
	}

	// A failure is never skipped as "verified": the next sync calls S3
	// again at once, and recovers.
	f.s3.fail = nil
	f.s3.calls = nil
	f.mustSync()
	if len(f.s3.calls) == 0 {
		t.Error("the sync after a failure did not call S3")
	}
	f.wantCondition("IssuerPublisherDegraded", operatorv1.ConditionFalse, "AsExpected")
}

func TestNothingPublishedWhenPodIdentityIsOffOrCannotPublish(t *testing.T) {
	for _, tc := range []struct {
		name         string
		modify       func(*inputs)
		enabled      operatorv1.ConditionStatus
		enabledWhy   string
		degraded     operatorv1.ConditionStatus
		degradedWhy  string
		degradedText string
		region       string
	}{
		{name: "not AWS", modify: func(in *inputs) {
			in.infra.Status.Platform, in.infra.Status.PlatformStatus = configv1.GCPPlatformType, &configv1.PlatformStatus{Type: configv1.GCPPlatformType}
		}, enabled: operatorv1.ConditionFalse, enabledWhy: podidentity.ReasonNotAWS, degraded: operatorv1.ConditionFalse, degradedWhy: "AsExpected"},
		{name: "no Infrastructure", modify: func(in *inputs) { in.infra = nil },
			enabled: operatorv1.ConditionFalse, enabledWhy: podidentity.ReasonNotAWS, degraded: operatorv1.ConditionFalse, degradedWhy: "AsExpected"},
		{name: "disabled on AWS", modify: func(in *inputs) { in.spec.Mode = operatorv1alpha1.PodIdentityDisabled },
			enabled: operatorv1.ConditionFalse, enabledWhy: podidentity.ReasonDisabled, degraded: operatorv1.ConditionFalse, degradedWhy: "AsExpected"},
		{name: "enabled without a bucket", modify: func(in *inputs) {
			in.spec.Mode = operatorv1alpha1.PodIdentityEnabled
			in.infra.Status.InfrastructureName = ""
		}, enabled: operatorv1.ConditionTrue, enabledWhy: podidentity.ReasonForcedOn,
			degraded: operatorv1.ConditionTrue, degradedWhy: ReasonIssuerNotConfigured, degradedText: "no bucket", region: "us-east-2"},
		{name: "a bucket on AWS the shipped credentials do not reach", modify: func(in *inputs) { in.spec.Issuer.Bucket = "prod-issuer" },
			enabled: operatorv1.ConditionTrue, enabledWhy: podidentity.ReasonPlatformAWS, degraded: operatorv1.ConditionTrue,
			degradedWhy: podidentity.ReasonBucketNotCoveredByCredentials, degradedText: `"prod-issuer" is not covered by the operator's S3 credentials`, region: "us-east-2"},
		{name: "a bucket name S3 refuses", modify: func(in *inputs) { in.spec.Issuer.Bucket = "a..b-oidc" },
			enabled: operatorv1.ConditionTrue, enabledWhy: podidentity.ReasonPlatformAWS, degraded: operatorv1.ConditionTrue,
			degradedWhy: podidentity.ReasonInvalidBucketName, degradedText: "two adjacent dots", region: "us-east-2"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := healthy(t)
			tc.modify(&in)
			f := newFixture(t, in)
			f.mustSync()
			if len(f.s3.calls) != 0 || len(f.stores) != 0 {
				t.Errorf("S3 used: clients %v, calls %v", f.stores, f.s3.calls)
			}
			f.wantCondition(PodIdentityEnabled, tc.enabled, tc.enabledWhy)
			f.wantCondition("IssuerPublisherDegraded", tc.degraded, tc.degradedWhy, tc.degradedText)
			f.wantCondition("IssuerPublisherProgressing", operatorv1.ConditionFalse, "AsExpected")
			f.wantCondition(ServiceAccountIssuerMatches, operatorv1.ConditionFalse, ReasonNotPublished, "no issuer is published")
			if got := f.workloadAccess().Status.PodIdentity; got.IssuerURL != "" || len(got.PublishedKeyIDs) != 0 || got.Region != tc.region {
				t.Errorf("status.podIdentity %+v", got)
			}
			if len(f.recorder.Events()) != 0 {
				t.Errorf("events %v", f.eventReasons())
			}
		})
	}
}

func TestDisablingClearsThePublishedIssuerFromStatus(t *testing.T) {
	f := newFixture(t, healthy(t))
	f.mustSync()
	wa := f.workloadAccess().DeepCopy()
	wa.Spec.PodIdentity.Mode = operatorv1alpha1.PodIdentityDisabled
	if err := f.was.Update(wa); err != nil {
		t.Fatal(err)
	}
	f.s3.calls = nil
	f.mustSync()
	if got := f.workloadAccess().Status.PodIdentity; got.IssuerURL != "" || len(got.PublishedKeyIDs) != 0 {
		t.Errorf("status.podIdentity %+v", got)
	}
	if len(f.s3.calls) != 0 {
		t.Errorf("disabling called S3 (nothing published is deleted): %v", f.s3.calls)
	}
}

func TestManagementState(t *testing.T) {
	t.Run("Unmanaged does nothing", func(t *testing.T) {
		in := healthy(t)
		in.state = operatorv1.Unmanaged
		f := newFixture(t, in)
		f.mustSync()
		_, status, _, _ := f.operator.GetOperatorState()
		if len(f.s3.calls) != 0 || len(status.Conditions) != 0 || f.statusWrites() != 0 || len(f.recorder.Events()) != 0 {
			t.Errorf("Unmanaged: S3 %v, conditions %v, API writes %d, events %v", f.s3.calls, status.Conditions, f.statusWrites(), f.eventReasons())
		}
	})
	t.Run("Removed deletes nothing", func(t *testing.T) {
		in := healthy(t)
		f := newFixture(t, in)
		f.mustSync()
		f.s3.fail = map[string]error{"HeadBucket": apiError("AccessDenied", "Access Denied")}
		f.clock.now = f.clock.now.Add(ResyncInterval)
		_ = f.sync()

		f.operator.setState(operatorv1.Removed)
		f.s3.calls = nil
		f.mustSync()
		if len(f.s3.calls) != 0 {
			t.Errorf("Removed called S3: %v", f.s3.calls)
		}
		if len(f.s3.buckets["mycluster-workload-access-oidc"].objects) != 2 {
			t.Error("the published documents are gone")
		}
		f.wantCondition("IssuerPublisherDegraded", operatorv1.ConditionFalse, "AsExpected", "left in place")
		f.wantCondition("IssuerPublisherProgressing", operatorv1.ConditionFalse, ReasonRemoved)
		if got := f.workloadAccess().Status.PodIdentity; got.IssuerURL != awsIssuer {
			t.Errorf("status.podIdentity %+v: the issuer is still published", got)
		}
	})
}

func TestServiceAccountIssuerMatches(t *testing.T) {
	for _, tc := range []struct {
		name    string
		auth    *configv1.Authentication
		status  operatorv1.ConditionStatus
		reason  string
		message []string
	}{
		{"equal", authentication(awsIssuer), operatorv1.ConditionTrue, "AsExpected", []string{awsIssuer}},
		{"differs", authentication("http://old.example.com"), operatorv1.ConditionFalse, ReasonIssuerDiffers,
			[]string{`"http://old.example.com"`, `"` + awsIssuer + `"`}},
		{"the cluster's own issuer (STS mode)", authentication("https://old.example.com"), operatorv1.ConditionFalse, ReasonClusterIssuerInUse,
			[]string{`"https://old.example.com"`, "TokensAccepted", `"` + awsIssuer + `"`}},
		{"trailing slash differs", authentication(awsIssuer + "/"), operatorv1.ConditionFalse, ReasonIssuerDiffers, nil},
		{"default issuer", authentication(""), operatorv1.ConditionFalse, ReasonIssuerDiffers, []string{"the API server's default issuer", awsIssuer}},
		{"the bucket named before the credentials were narrowed", authentication("https://mycluster-oidc.s3.us-east-2.amazonaws.com"), operatorv1.ConditionFalse, ReasonIssuerDiffers,
			[]string{`the default issuer bucket was "mycluster-oidc"`, "no longer reach", "docs/security.md"}},
		{"no Authentication", nil, operatorv1.ConditionFalse, ReasonAuthenticationAbsent, []string{"Authentication/cluster does not exist", awsIssuer}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := healthy(t)
			in.auth = tc.auth
			f := newFixture(t, in)
			f.mustSync()
			f.wantCondition(ServiceAccountIssuerMatches, tc.status, tc.reason, tc.message...)
			// It is advice, not a failure of the publisher.
			f.wantCondition("IssuerPublisherDegraded", operatorv1.ConditionFalse, "AsExpected")
		})
	}
}

func TestChinaRegionPolicyUsesItsPartition(t *testing.T) {
	in := healthy(t)
	in.infra.Status.PlatformStatus.AWS.Region = "cn-north-1"
	in.auth = nil
	f := newFixture(t, in)
	f.mustSync()
	policy := f.s3.buckets["mycluster-workload-access-oidc"].policy
	if !strings.Contains(policy, `"arn:aws-cn:s3:::mycluster-workload-access-oidc/keys.json"`) {
		t.Errorf("policy %s", policy)
	}
	if got := f.workloadAccess().Status.PodIdentity.IssuerURL; got != "https://mycluster-workload-access-oidc.s3.cn-north-1.amazonaws.com.cn" {
		t.Errorf("issuer %s", got)
	}
}

func TestUSEast1CreatesTheBucketWithoutLocationConstraint(t *testing.T) {
	in := healthy(t)
	in.infra.Status.PlatformStatus.AWS.Region = "us-east-1"
	f := newFixture(t, in)
	f.mustSync()
	if lc := f.s3.buckets["mycluster-workload-access-oidc"].locationConstraint; lc != "" {
		t.Errorf("location constraint %q in us-east-1", lc)
	}
}

func TestAnExistingBucketIsAdopted(t *testing.T) {
	f := newFixture(t, healthy(t))
	// Created between HeadBucket and CreateBucket (or owned already).
	f.s3.fail = map[string]error{"HeadBucket": &s3types.NotFound{}}
	f.s3.buckets["mycluster-workload-access-oidc"] = &fakeBucket{objects: map[string]fakeObject{}, publicAccessBlock: &wantPublicAccessBlock}
	f.mustSync()
	f.wantCondition("IssuerPublisherDegraded", operatorv1.ConditionFalse, "AsExpected")
	if slices.Contains(f.eventReasons(), "BucketCreated") {
		t.Error("claimed to create a bucket it already owned")
	}
}

func TestNewCredentialsBuildANewClient(t *testing.T) {
	f := newFixture(t, healthy(t))
	f.mustSync()
	rotated := credentialsSecret(map[string]string{awscall.AccessKeyIDKey: testAccessKeyID, awscall.SecretAccessKeyKey: "another-secret"})
	if err := f.secrets.Update(rotated); err != nil {
		t.Fatal(err)
	}
	f.s3.calls = nil
	f.mustSync()
	if len(f.stores) != 2 || f.stores[1].secret != "another-secret" {
		t.Errorf("clients %d", len(f.stores))
	}
	if len(f.s3.calls) == 0 {
		t.Error("new credentials were not checked against S3")
	}
}

func TestBucketPolicyKeepsOtherStatements(t *testing.T) {
	ours := readStatement("b", "us-east-2")
	denyHTTP := `{"Sid":"DenyHTTP","Effect":"Deny","Principal":"*","Action":"s3:*","Resource":["arn:aws:s3:::b","arn:aws:s3:::b/*"],"Condition":{"Bool":{"aws:SecureTransport":"false"}}}`
	for _, tc := range []struct {
		name, existing string
		changed        bool
		wantSids       []string
	}{
		{"none", "", true, []string{readPolicySid}},
		{"ours, as S3 may give it back", `{"Version":"2012-10-17","Statement":[{"Sid":"AllowReadPublicAccess","Effect":"Allow","Principal":{"AWS":"*"},"Action":"s3:GetObject","Resource":["arn:aws:s3:::b/keys.json","arn:aws:s3:::b/.well-known/openid-configuration"]}]}`, false, nil},
		{"ours among others", `{"Version":"2012-10-17","Statement":[` + denyHTTP + `,{"Effect":"Allow","Principal":"*","Action":["s3:GetObject"],"Resource":["arn:aws:s3:::b/.well-known/openid-configuration","arn:aws:s3:::b/keys.json"]}]}`, false, nil},
		{"ours as it was, on every object", `{"Version":"2012-10-17","Statement":[{"Sid":"AllowReadPublicAccess","Effect":"Allow","Principal":"*","Action":"s3:GetObject","Resource":"arn:aws:s3:::b/*"}]}`, true, []string{readPolicySid}},
		{"an admin's statement only", `{"Version":"2012-10-17","Statement":` + denyHTTP + `}`, true, []string{"DenyHTTP", readPolicySid}},
		{"ours changed", `{"Version":"2012-10-17","Statement":[{"Sid":"AllowReadPublicAccess","Effect":"Allow","Principal":"*","Action":["s3:GetObject","s3:ListBucket"],"Resource":["arn:aws:s3:::b/*","arn:aws:s3:::b"]}]}`, true, []string{readPolicySid}},
		{"a condition narrows ours", `{"Statement":[{"Sid":"AllowReadPublicAccess","Effect":"Allow","Principal":"*","Action":"s3:GetObject","Resource":"arn:aws:s3:::b/*","Condition":{"IpAddress":{"aws:SourceIp":"10.0.0.0/8"}}}]}`, true, []string{readPolicySid}},
		{"not JSON", "{", true, []string{readPolicySid}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			policy, changed := withReadStatement(tc.existing, ours)
			if changed != tc.changed {
				t.Fatalf("changed %v, want %v: %s", changed, tc.changed, policy)
			}
			if !changed {
				if policy != tc.existing {
					t.Errorf("unchanged policy rewritten: %s", policy)
				}
				return
			}
			var doc struct {
				Version   string
				Statement []map[string]any
			}
			if err := json.Unmarshal([]byte(policy), &doc); err != nil {
				t.Fatal(err)
			}
			var sids []string
			for _, s := range doc.Statement {
				sids = append(sids, s["Sid"].(string))
			}
			if doc.Version != "2012-10-17" || !slices.Equal(sids, tc.wantSids) {
				t.Errorf("policy %s", policy)
			}
			if _, again := withReadStatement(policy, ours); again {
				t.Error("the written policy is not recognised as ours on the next read")
			}
		})
	}
}

func TestRelatedObjectsCollectTheSigningKeys(t *testing.T) {
	found, request := false, false
	for _, o := range relatedobjects.List() {
		if o.Resource == "configmaps" && o.Namespace == SigningCertsNamespace && o.Name == SigningCertsConfigMap {
			found = true
		}
		if o.Resource == "credentialsrequests" && o.Name == CredentialsSecret {
			request = true
		}
		if o.Resource == "secrets" {
			t.Errorf("must-gather must not be pointed at a Secret: %+v", o)
		}
	}
	if !found || !request {
		t.Errorf("relatedObjects list the signing keys ConfigMap: %v, the CredentialsRequest: %v", found, request)
	}
}

// countingOperatorClient counts applies that changed a condition: the real
// client skips an apply identical to the last, so "changed nothing" is
// "wrote nothing".
type countingOperatorClient struct {
	v1helpers.OperatorClient
	changes int
}

func (c *countingOperatorClient) ApplyOperatorStatus(ctx context.Context, manager string, status *applyoperatorv1.OperatorStatusApplyConfiguration) error {
	_, before, _, _ := c.GetOperatorState()
	before = before.DeepCopy()
	if err := c.OperatorClient.ApplyOperatorStatus(ctx, manager, status); err != nil {
		return err
	}
	_, after, _, _ := c.GetOperatorState()
	if !sameConditions(before.Conditions, after.Conditions) {
		c.changes++
	}
	return nil
}

func (c *countingOperatorClient) setState(state operatorv1.ManagementState) {
	spec, _, rv, _ := c.GetOperatorState()
	spec = spec.DeepCopy()
	spec.ManagementState = state
	if _, _, err := c.UpdateOperatorSpec(context.Background(), rv, spec); err != nil {
		panic(err)
	}
}

func sameConditions(a, b []operatorv1.OperatorCondition) bool {
	key := func(c operatorv1.OperatorCondition) string {
		return strings.Join([]string{c.Type, string(c.Status), c.Reason, c.Message}, "|")
	}
	var ka, kb []string
	for _, c := range a {
		ka = append(ka, key(c))
	}
	for _, c := range b {
		kb = append(kb, key(c))
	}
	slices.Sort(ka)
	slices.Sort(kb)
	return slices.Equal(ka, kb)
}

type fakeClock struct{ now time.Time }

func (c *fakeClock) Now() time.Time                  { return c.now }
func (c *fakeClock) Since(t time.Time) time.Duration { return c.now.Sub(t) }

func ptrTo[T any](v T) *T { return &v }

var _ objectStore = (*s3.Client)(nil)

// On an STS-mode cluster (its tokens carry ccoctl's issuer, which roles
// trust) the publisher needs no S3 credentials: without them it publishes
// nothing and reports nothing wrong; with the ServiceAccountIssuerMatches
// reason that keeps the alert and the ClusterOperator message quiet. On a
// mint-mode cluster the same missing Secret is Degraded.
func TestNoCredentialsAreNeededOnAnSTSModeCluster(t *testing.T) {
	in := healthy(t)
	in.secret = nil
	in.auth = authentication("https://mycluster-oidc.s3.us-east-2.amazonaws.com/ccoctl")
	f := newFixture(t, in)
	f.mustSync()
	f.wantCondition("IssuerPublisherDegraded", operatorv1.ConditionFalse, "AsExpected")
	f.wantCondition("IssuerPublisherProgressing", operatorv1.ConditionFalse, ReasonNotNeeded, "none are needed", "mycluster-oidc")
	f.wantCondition(ServiceAccountIssuerMatches, operatorv1.ConditionFalse, ReasonClusterIssuerInUse)

	in.auth = authentication("")
	f = newFixture(t, in)
	_ = f.sync()
	f.wantCondition("IssuerPublisherDegraded", operatorv1.ConditionTrue, ReasonMissingCredentials)
}
