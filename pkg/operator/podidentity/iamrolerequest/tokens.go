package iamrolerequest

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/iam"
	operatorv1 "github.com/openshift/api/operator/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	podidentityv1alpha1 "github.com/openshift/cluster-workload-access-operator/pkg/apis/podidentity/v1alpha1"
	"github.com/openshift/cluster-workload-access-operator/pkg/operator/podidentity/awscall"
	"github.com/openshift/cluster-workload-access-operator/pkg/operator/podidentity/iamrole"
	"github.com/openshift/cluster-workload-access-operator/pkg/operator/podidentity/issuer"
	"github.com/openshift/cluster-workload-access-operator/pkg/operator/podidentity/tokenissuer"
)

// issuerReadTTL is how long what an issuer serves is taken as read: a
// resync of every request reads each issuer once, not once per request.
const issuerReadTTL = time.Minute

// tokenIssuers reads the issuers the cluster's tokens may carry now.
func (c *controller) tokenIssuers(ctx context.Context) (tokenissuer.Issuers, *awscall.Failure) {
	auth, err := c.authentications.Get("cluster")
	if apierrors.IsNotFound(err) {
		auth, err = nil, nil
	}
	if err != nil {
		return tokenissuer.Issuers{}, &awscall.Failure{Reason: podidentityv1alpha1.ReasonIAMError, Message: "reading Authentication cluster: " + err.Error(), Retry: true}
	}
	var kas *operatorv1.KubeAPIServer
	if c.kubeAPIServer != nil {
		if kas, err = c.kubeAPIServer(ctx); err != nil {
			return tokenissuer.Issuers{}, &awscall.Failure{Reason: podidentityv1alpha1.ReasonIAMError, Message: "reading KubeAPIServer cluster (the issuers whose tokens are still accepted): " + err.Error(), Retry: true}
		}
	}
	return tokenissuer.Read(auth, kas, c.now()), nil
}

// KubeAPIServerReader reads KubeAPIServer/cluster with one GET, nil when
// it or its API is absent (a cluster without the kube-apiserver operator).
// A GET rather than an informer: the controller must run where the API is
// not served, and it reads the object only when a request syncs.
func KubeAPIServerReader(kube kubernetes.Interface) func(context.Context) (*operatorv1.KubeAPIServer, error) {
	return func(ctx context.Context) (*operatorv1.KubeAPIServer, error) {
		raw, err := kube.Discovery().RESTClient().Get().AbsPath("/apis/operator.openshift.io/v1/kubeapiservers/cluster").DoRaw(ctx)
		if apierrors.IsNotFound(err) {
			return nil, nil
		}
		if err != nil {
			return nil, err
		}
		kas := &operatorv1.KubeAPIServer{}
		if err := json.Unmarshal(raw, kas); err != nil {
			return nil, fmt.Errorf("decoding KubeAPIServer cluster: %w", err)
		}
		return kas, nil
	}
}

// provider is an IAM OIDC provider of an issuer the tokens may carry, as
// IAM holds it.
type provider struct {
	issuerURL string
	iamrole.Provider
	clientIDs []string
}

// chosenTrust is who a role trusts: the providers of the issuers the
// cluster's tokens may carry that IAM has, or, when IAM has none of them,
// the published issuer's, ready for the day-2 move to it.
type chosenTrust struct {
	tokens    tokenissuer.Issuers
	providers []provider
	// current is the provider of the issuer new tokens carry, nil when
	// IAM has none or the issuer is not public.
	current *provider
}

func (t chosenTrust) policyProviders() []iamrole.Provider {
	out := make([]iamrole.Provider, 0, len(t.providers))
	for _, p := range t.providers {
		out = append(out, p.Provider)
	}
	return out
}

func (t chosenTrust) describe() string {
	names := make([]string, 0, len(t.providers))
	for _, p := range t.providers {
		names = append(names, p.ARN)
	}
	return strings.Join(names, " and ")
}

// chooseTrust asks IAM for the provider of each issuer the tokens may
// carry. A provider IAM does not have cannot be named in a trust policy
// (IAM refuses the document), so it is left out.
func (c *controller) chooseTrust(ctx context.Context, client iamAPI, env environment, account string, tokens tokenissuer.Issuers) (chosenTrust, *awscall.Failure) {
	t := chosenTrust{tokens: tokens}
	lookup := func(issuerURL string) (*provider, *awscall.Failure) {
		hostPath, err := iamrole.IssuerHostPath(issuerURL)
		if err != nil || !tokenissuer.Public(issuerURL) {
			return nil, nil
		}
		arn := iamrole.ProviderARN(env.partition, account, hostPath)
		out, err := client.GetOpenIDConnectProvider(ctx, &iam.GetOpenIDConnectProviderInput{OpenIDConnectProviderArn: aws.String(arn)})
		if isNoSuchEntity(err) {
			return nil, nil
		}
		if err != nil {
			return nil, describe("iam:GetOpenIDConnectProvider", arn, err, env.creds)
		}
		return &provider{issuerURL: issuerURL, Provider: iamrole.Provider{ARN: arn, HostPath: hostPath}, clientIDs: out.ClientIDList}, nil
	}
	for i, issuerURL := range tokens.All() {
		p, f := lookup(issuerURL)
		if f != nil {
			return t, f
		}
		if p == nil {
			continue
		}
		t.providers = append(t.providers, *p)
		if i == 0 {
			t.current = &t.providers[0]
		}
	}
	if len(t.providers) > 0 {
		return t, nil
	}
	if env.issuerURL != "" {
		p, f := lookup(env.issuerURL)
		if f != nil {
			return t, f
		}
		if p != nil {
			t.providers = append(t.providers, *p)
			return t, nil
		}
	}
	return t, notRegistered(env, account, tokens)
}

// notRegistered says which issuer to register: the one the tokens carry
// when STS could read it, else the published one (the day-2 move goes to
// it).
func notRegistered(env environment, account string, tokens tokenissuer.Issuers) *awscall.Failure {
	audience := iamrole.Audience("", env.defaultAudience)
	register := func(issuerURL, why string) *awscall.Failure {
		hostPath, _ := iamrole.IssuerHostPath(issuerURL)
		return &awscall.Failure{Reason: podidentityv1alpha1.ReasonOIDCProviderNotRegistered, Message: fmt.Sprintf(
			"IAM has no OIDC provider %s: %s; register it with client ID (audience) %s, for example "+
				"`aws iam create-open-id-connect-provider --url %s --client-id-list %s`; the operator checks again every minute",
			iamrole.ProviderARN(env.partition, account, hostPath), why, audience, issuerURL, audience)}
	}
	if tokenissuer.Public(tokens.Current) {
		return register(tokens.Current, fmt.Sprintf("the cluster's service account tokens carry the issuer %s (Authentication/cluster spec.serviceAccountIssuer)", tokens.Current))
	}
	if env.issuerURL != "" {
		return register(env.issuerURL, fmt.Sprintf("the cluster's tokens carry %s, which AWS STS cannot read, so the role trusts the published issuer %s, "+
			"which the cluster's issuer moves to on day 2", tokens.Current, env.issuerURL))
	}
	return &awscall.Failure{Reason: podidentityv1alpha1.ReasonIssuerNotPublished, Message: fmt.Sprintf(
		"the cluster's service account tokens carry the issuer %s, which AWS STS cannot read, and no issuer is published yet "+
			"(WorkloadAccess status.podIdentity.issuerURL is empty; see its IssuerPublisherDegraded condition)", tokens.Current)}
}

// tokensAccepted says whether AWS STS will accept a token of the request's
// ServiceAccount for the role, and if not, why and what fixes it.
func (c *controller) tokensAccepted(ctx context.Context, r role) metav1.Condition {
	no := func(reason, message string) metav1.Condition {
		return metav1.Condition{Type: podidentityv1alpha1.ConditionTokensAccepted, Status: metav1.ConditionFalse, Reason: reason, Message: message}
	}
	tokens := r.trust.tokens
	if r.arn == "" || r.trust.providers == nil {
		return no(podidentityv1alpha1.ReasonRoleNotProvisioned, "there is no IAM role to assume yet: see the Provisioned condition")
	}
	if !tokenissuer.Public(tokens.Current) {
		how := "publish the cluster's issuer first (WorkloadAccess spec.podIdentity), then move the cluster to it"
		if r.publishedIssuer != "" {
			how = fmt.Sprintf("move the cluster's issuer to the published one: `oc patch authentication cluster --type merge -p '{\"spec\":{\"serviceAccountIssuer\":\"%s\"}}'`", r.publishedIssuer)
		}
		return no(podidentityv1alpha1.ReasonClusterIssuerNotPublic, fmt.Sprintf(
			"the cluster's service account tokens carry the issuer %s, whose keys AWS STS cannot fetch, so STS refuses them; %s "+
				"(docs/admission.md, \"The cluster's issuer (day 2)\"); the role trusts %s", tokens.Current, how, r.trust.describe()))
	}
	current := r.trust.current
	if current == nil {
		f := notRegistered(environment{partition: r.partition, defaultAudience: r.audience}, r.account, tokens)
		return no(podidentityv1alpha1.ReasonOIDCProviderNotRegistered, f.Message)
	}
	if !slices.Contains(current.clientIDs, r.audience) {
		return no(podidentityv1alpha1.ReasonAudienceNotRegistered, fmt.Sprintf(
			"the IAM OIDC provider %s does not list the audience %s the webhook projects into the ServiceAccount's tokens; add it: "+
				"`aws iam add-client-id-to-open-id-connect-provider --open-id-connect-provider-arn %s --client-id %s`",
			current.ARN, r.audience, current.ARN, r.audience))
	}
	signing, err := c.signingKeyIDs(ctx)
	if err != nil {
		return no(podidentityv1alpha1.ReasonSigningKeysUnknown, fmt.Sprintf("the keys the cluster signs tokens with could not be read from ConfigMap %s/%s: %v",
			issuer.SigningCertsNamespace, issuer.SigningCertsConfigMap, err))
	}
	served, jwksURI, err := c.issuerKeyIDs(ctx, tokens.Current)
	if err != nil {
		return no(podidentityv1alpha1.ReasonIssuerUnreachable, fmt.Sprintf("reading the issuer %s as AWS STS would: %v; the operator checks again every minute", tokens.Current, err))
	}
	var missing []string
	for _, id := range signing {
		if !slices.Contains(served, id) {
			missing = append(missing, id)
		}
	}
	if len(missing) > 0 {
		how := "add them to the JWKS the issuer serves (on a cluster installed with ccoctl, the keys.json in the bucket ccoctl made; " +
			"OpenShift's procedure for rotating the bound service account signer key writes it)"
		if tokens.Current == r.publishedIssuer {
			how = "the operator publishes them: see the IssuerPublisherDegraded condition of WorkloadAccess cluster"
		}
		return no(podidentityv1alpha1.ReasonSigningKeysNotPublished, fmt.Sprintf(
			"the issuer's JWKS %s lacks the key IDs %s the cluster signs tokens with, so STS cannot verify tokens signed with them; %s",
			jwksURI, strings.Join(missing, ", "), how))
	}
	return metav1.Condition{Type: podidentityv1alpha1.ConditionTokensAccepted, Status: metav1.ConditionTrue, Reason: podidentityv1alpha1.ReasonTokensAccepted, Message: fmt.Sprintf(
		"the ServiceAccount's tokens carry the issuer %s and the audience %s; IAM OIDC provider %s lists that audience, the role trusts it, "+
			"and the issuer's JWKS holds the cluster's signing keys %s", tokens.Current, r.audience, current.ARN, strings.Join(signing, ", "))}
}

// signingKeyIDs are the key IDs of the keys kube-apiserver verifies tokens
// with (the cluster's current signing key among them).
func (c *controller) signingKeyIDs(ctx context.Context) ([]string, error) {
	cm, err := c.configMaps.ConfigMaps(issuer.SigningCertsNamespace).Get(ctx, issuer.SigningCertsConfigMap, metav1.GetOptions{})
	if err != nil {
		return nil, err
	}
	keys, err := issuer.SigningKeys(cm.Data)
	if err != nil {
		return nil, err
	}
	ids := make([]string, 0, len(keys))
	for _, k := range keys {
		ids = append(ids, k.ID)
	}
	return ids, nil
}

// issuerReads remembers, per issuer, what it served and when.
type issuerReads struct {
	mu    sync.Mutex
	reads map[string]issuerRead
}

type issuerRead struct {
	at      time.Time
	keyIDs  []string
	jwksURI string
	err     error
}

// issuerKeyIDs reads the issuer's discovery document and JWKS as AWS STS
// does, at most once per issuerReadTTL.
func (c *controller) issuerKeyIDs(ctx context.Context, issuerURL string) ([]string, string, error) {
	c.issuers.mu.Lock()
	defer c.issuers.mu.Unlock()
	now := c.now()
	if read, ok := c.issuers.reads[issuerURL]; ok && now.Sub(read.at) < issuerReadTTL {
		return read.keyIDs, read.jwksURI, read.err
	}
	read := issuerRead{at: now}
	read.keyIDs, read.jwksURI, read.err = c.readIssuer(ctx, issuerURL)
	if c.issuers.reads == nil {
		c.issuers.reads = map[string]issuerRead{}
	}
	c.issuers.reads[issuerURL] = read
	return read.keyIDs, read.jwksURI, read.err
}

func (c *controller) readIssuer(ctx context.Context, issuerURL string) ([]string, string, error) {
	client := &http.Client{Transport: c.issuerTransport, Timeout: 15 * time.Second}
	discoveryURL := strings.TrimSuffix(issuerURL, "/") + "/" + issuer.DiscoveryPath
	data, err := get(ctx, client, discoveryURL)
	if err != nil {
		return nil, "", err
	}
	jwksURI, err := issuer.ReadDiscovery(data, issuerURL)
	if err != nil {
		return nil, "", fmt.Errorf("%s: %w", discoveryURL, err)
	}
	data, err = get(ctx, client, jwksURI)
	if err != nil {
		return nil, jwksURI, err
	}
	ids, err := issuer.ReadKeyIDs(data)
	if err != nil {
		return nil, jwksURI, fmt.Errorf("%s: %w", jwksURI, err)
	}
	return ids, jwksURI, nil
}

// get reads a public document anonymously, as STS does, bounded in size.
func get(ctx context.Context, client *http.Client, url string) ([]byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, err
	}
	resp, err := client.Do(req)
	if err != nil {
		return nil, fmt.Errorf("GET %s: %w", url, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("GET %s: %s", url, resp.Status)
	}
	data, err := io.ReadAll(io.LimitReader(resp.Body, issuer.MaxDocumentSize+1))
	if err != nil {
		return nil, fmt.Errorf("GET %s: %w", url, err)
	}
	if len(data) > issuer.MaxDocumentSize {
		return nil, fmt.Errorf("GET %s: larger than %d bytes", url, issuer.MaxDocumentSize)
	}
	return data, nil
}

// waitsOnIssuer says whether TokensAccepted waits on something no informer
// watches (IAM, the issuer's documents, the signing keys' ConfigMap).
func waitsOnIssuer(accepted metav1.Condition) bool {
	switch accepted.Reason {
	case podidentityv1alpha1.ReasonOIDCProviderNotRegistered, podidentityv1alpha1.ReasonAudienceNotRegistered,
		podidentityv1alpha1.ReasonSigningKeysNotPublished, podidentityv1alpha1.ReasonSigningKeysUnknown, podidentityv1alpha1.ReasonIssuerUnreachable:
		return true
	}
	return false
}
