package stschain

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/smithy-go"
	smithyhttp "github.com/aws/smithy-go/transport/http"
)

// podCommand is the first argument that makes the test binary the
// workload of a pod (runPod) instead of running tests.
const podCommand = "stschain-pod"

// podResult is what the workload reports on stdout.
type podResult struct {
	// CredentialSource is the provider the default chain found credentials
	// with (aws.Credentials.Source).
	CredentialSource string `json:"credentialSource,omitempty"`
	// CredentialError is why it found none.
	CredentialError *apiError `json:"credentialError,omitempty"`
	// Objects are the GetObject results, by "bucket/key".
	Objects map[string]objectResult `json:"objects,omitempty"`
}

type objectResult struct {
	Body  string    `json:"body,omitempty"`
	Error *apiError `json:"error,omitempty"`
}

// apiError is an AWS error reduced to what the tests compare.
type apiError struct {
	Code    string `json:"code"`
	Status  int    `json:"status,omitempty"`
	Message string `json:"message"`
}

func (e *apiError) String() string {
	if e == nil {
		return "no error"
	}
	return fmt.Sprintf("HTTP %d %s: %s", e.Status, e.Code, e.Message)
}

func toAPIError(err error) *apiError {
	out := &apiError{Code: "(none)", Message: err.Error()}
	var api smithy.APIError
	if errors.As(err, &api) {
		out.Code = api.ErrorCode()
	}
	var response *smithyhttp.ResponseError
	if errors.As(err, &response) {
		out.Status = response.HTTPStatusCode()
	}
	return out
}

// runPod is the pod's workload: the AWS SDK's default configuration and
// credential chain, from nothing but the environment, then GetObject for
// each "bucket/key" argument.
func runPod(objects []string) int {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	result := podResult{Objects: map[string]objectResult{}}
	cfg, err := config.LoadDefaultConfig(ctx)
	if err != nil {
		fmt.Fprintf(os.Stderr, "loading the AWS configuration: %v\n", err)
		return 2
	}
	creds, err := cfg.Credentials.Retrieve(ctx)
	if err != nil {
		result.CredentialError = toAPIError(err)
	} else {
		result.CredentialSource = creds.Source
		// Path-style: the endpoint is an address, not a name with buckets under it.
		client := s3.NewFromConfig(cfg, func(o *s3.Options) { o.UsePathStyle = true })
		for _, object := range objects {
			bucket, key, _ := strings.Cut(object, "/")
			out, err := client.GetObject(ctx, &s3.GetObjectInput{Bucket: &bucket, Key: &key})
			if err != nil {
				result.Objects[object] = objectResult{Error: toAPIError(err)}
				continue
			}
			body, err := io.ReadAll(out.Body)
			out.Body.Close()
			if err != nil {
				result.Objects[object] = objectResult{Error: toAPIError(err)}
				continue
			}
			result.Objects[object] = objectResult{Body: string(body)}
		}
	}
	if err := json.NewEncoder(os.Stdout).Encode(result); err != nil {
		return 2
	}
	return 0
}

// runWorkload runs the workload (this binary, runPod) with exactly env and
// in dir, as the container's process would run, and returns its report.
func runWorkload(ctx context.Context, dir string, env []string, objects ...string) (*podResult, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, exe, append([]string{podCommand}, objects...)...)
	cmd.Env, cmd.Dir = env, dir
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("the workload failed: %v\n%s%s", err, stdout.String(), stderr.String())
	}
	var result podResult
	if err := json.Unmarshal(stdout.Bytes(), &result); err != nil {
		return nil, fmt.Errorf("the workload's report %q: %w\n%s", stdout.String(), err, stderr.String())
	}
	return &result, nil
}
