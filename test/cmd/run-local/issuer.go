package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/openshift/cluster-workload-access-operator/test/framework/issuerfront"
	"github.com/openshift/cluster-workload-access-operator/test/s3server"
)

// issuerSide is the S3 server with IAM and STS, and where the issuer is
// served: in a network namespace of its own when the machine allows it (the
// whole chain works), else on this machine's loopback (no pod gets
// credentials; chainErr says why).
type issuerSide struct {
	s3 *s3server.Server
	// endpoint is what the operator publishes through; the issuer is
	// <endpoint>/<bucket>.
	endpoint string
	// curlFlags are what curl needs to read the issuer's URL from here.
	curlFlags string
	// route says how the operator reaches the issuer's front, when not
	// directly.
	route string
	// thumbprint pins the front's CA in the IAM OIDC provider; empty when
	// the issuer is not served over HTTPS on port 443 (frontErr says why).
	thumbprint string
	frontErr   error
	// operatorEnv is what the operator needs to reach and trust the front.
	operatorEnv []string
	gateway     *gateway
	chainErr    error
	// done is closed when the gateway exits; nil without one.
	done <-chan struct{}
	stop func()
}

func startIssuerSide(ctx context.Context, dir, s3Binary string) (*issuerSide, error) {
	g, err := startGateway(ctx, dir, s3Binary)
	if err == nil {
		return &issuerSide{
			s3: g.S3, endpoint: g.IssuerEndpoint, gateway: g, done: g.Done(), stop: g.Stop,
			curlFlags:  "--proxy " + g.ProxyURL + " --cacert " + g.CAFile + " ",
			thumbprint: g.Thumbprint,
			route: fmt.Sprintf("\n  front:     %s, in a network namespace of its own; the operator reaches it\n"+
				"             through the proxy %s (its HTTPS_PROXY), which connects only there", g.IssuerEndpoint, g.ProxyURL),
			operatorEnv: []string{"SSL_CERT_FILE=" + g.CAFile, "HTTPS_PROXY=" + g.ProxyURL},
		}, nil
	}
	if ctx.Err() != nil {
		return nil, err
	}
	// Without the namespace, as far as this machine allows: IAM registers
	// the issuer when it is served over HTTPS on 127.0.0.1:443.
	side := &issuerSide{chainErr: err}
	_ = os.RemoveAll(filepath.Join(dir, "s3")) // whatever the gateway left
	if side.s3, err = s3server.Start(ctx, s3server.Options{Dir: filepath.Join(dir, "s3"), Binary: s3Binary, IAM: true}); err != nil {
		return nil, err
	}
	side.endpoint = side.s3.Endpoint
	front, err := issuerfront.Start(dir, issuerAddress, side.s3.Endpoint)
	if err != nil {
		side.frontErr = err
		side.stop = side.s3.Stop
		return side, nil
	}
	side.endpoint, side.thumbprint = front.URL, front.Thumbprint
	side.curlFlags = fmt.Sprintf("--cacert %s ", front.CAFile)
	side.operatorEnv = []string{"SSL_CERT_FILE=" + front.CAFile}
	side.stop = func() { front.Stop(); side.s3.Stop() }
	return side, nil
}
