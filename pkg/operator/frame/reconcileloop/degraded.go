package reconcileloop

import (
	"context"
	"fmt"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"sort"
	"strings"
	"sync"

	"github.com/openshift/library-go/pkg/operator/v1helpers"

	"github.com/openshift/cluster-workload-access-operator/pkg/operator/frame/conditions"
)

// maxNamed is how many failing objects the Degraded message names.
const maxNamed = 3

// Failures is one controller's <Name>Degraded condition, computed from
// every object rather than from the last sync: library-go's
// WithSyncDegradedOnError would let one object that syncs clear the
// condition another failing object had set.
type Failures struct {
	controller     string
	kind           string
	operatorClient v1helpers.OperatorClient

	lock    sync.Mutex
	failing map[string]error
}

// NewFailures reports on controllerName+"Degraded"; kind (e.g.
// "ClusterBundle") names the failing objects in its message.
func NewFailures(controllerName, kind string, operatorClient v1helpers.OperatorClient) *Failures {
	return &Failures{
		controller:     controllerName,
		kind:           kind,
		operatorClient: operatorClient,
		failing:        map[string]error{},
	}
}

// Record notes how syncing key ended, applies the condition (a no-op when
// that changed nothing), and returns err so the queue retries key with
// backoff.
//
// A conflict (the object changed while it synced: another writer, or the
// cache behind the API) is retried, and is neither a failure nor a
// success: Degraded is for sustained failure, and one conflict is not, nor
// does it end an earlier failure.
func (f *Failures) Record(ctx context.Context, key string, err error) error {
	if apierrors.IsConflict(err) {
		return err
	}
	f.lock.Lock()
	if err != nil {
		f.failing[key] = err
	} else {
		delete(f.failing, key)
	}
	condition := f.conditionLocked()
	f.lock.Unlock()
	if updateErr := conditions.Apply(ctx, f.operatorClient, f.controller, condition); updateErr != nil {
		if err != nil {
			return fmt.Errorf("%w (and updating %sDegraded: %v)", err, f.controller, updateErr)
		}
		return updateErr
	}
	return err
}

// Clear forgets every failure, for when objects are no longer managed.
func (f *Failures) Clear(ctx context.Context) error {
	f.lock.Lock()
	f.failing = map[string]error{}
	condition := f.conditionLocked()
	f.lock.Unlock()
	return conditions.Apply(ctx, f.operatorClient, f.controller, condition)
}

func (f *Failures) conditionLocked() conditions.Condition {
	if len(f.failing) == 0 {
		return conditions.Degraded(f.controller, "", nil)
	}
	keys := make([]string, 0, len(f.failing))
	for key := range f.failing {
		keys = append(keys, key)
	}
	sort.Strings(keys)
	named := make([]string, 0, maxNamed)
	for _, key := range keys[:min(len(keys), maxNamed)] {
		// API errors name the object and the verb, never the data.
		named = append(named, fmt.Sprintf("%s %s: %v", f.kind, key, f.failing[key]))
	}
	message := strings.Join(named, "; ")
	if more := len(keys) - len(named); more > 0 {
		message += fmt.Sprintf("; and %d more", more)
	}
	verb := "fail"
	if len(keys) == 1 {
		verb = "fails"
	}
	return conditions.Degraded(f.controller, "SyncError", fmt.Errorf("%d %s %s to sync: %s", len(keys), plural(f.kind, len(keys)), verb, message))
}

// plural is kind as a count of n says it: APIAccessPolicy, APIAccessPolicies.
func plural(kind string, n int) string {
	switch {
	case n == 1:
		return kind
	case strings.HasSuffix(kind, "y"):
		return strings.TrimSuffix(kind, "y") + "ies"
	default:
		return kind + "s"
	}
}
