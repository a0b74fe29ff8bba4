package clusterreads

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"golang.org/x/time/rate"
)

// waitBriefly is one lookup's charge with a short deadline: a token that
// is not there at once is not there.
func waitBriefly(b *lookupBudget, namespace string) error {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Millisecond)
	defer cancel()
	return b.wait(ctx, namespace)
}

// A lookup the cluster's budget refuses is not made, so it costs its
// namespace nothing: once the cluster has tokens again, the namespace still
// has its whole burst.
func TestARefusedLookupCostsItsNamespaceNothing(t *testing.T) {
	b := newLookupBudget()
	b.cluster = rate.NewLimiter(0, 0) // refuses every lookup
	for i := range 2 * namespaceLookupBurst {
		if err := waitBriefly(b, "tenant"); err == nil || !strings.Contains(err.Error(), "the cluster's") {
			t.Fatalf("lookup %d while the cluster's budget is spent: %v, want it refused by the cluster's budget", i, err)
		}
	}
	b.cluster = rate.NewLimiter(rate.Inf, 0)
	for i := range namespaceLookupBurst {
		if err := waitBriefly(b, "tenant"); err != nil {
			t.Fatalf("lookup %d of the namespace's burst once the cluster has tokens: %v", i, err)
		}
	}
	if err := waitBriefly(b, "tenant"); err == nil || !strings.Contains(err.Error(), "namespace tenant's") {
		t.Errorf("a lookup past the namespace's burst: %v, want refused by its budget", err)
	}
}

// Reviews anyone who reaches the webhook can forge name any namespace: one
// the cluster's budget refuses leaves no bucket behind, and buckets of
// lookups it grants stay bounded however many names there are and however
// slowly their buckets refill.
func TestMadeUpNamespacesKeepTheBudgetsBounded(t *testing.T) {
	const names = 5000
	refused := newLookupBudget()
	refused.cluster = rate.NewLimiter(0, 0)
	refused.namespaceRate = 0.001 // a charged bucket stays charged
	for i := range names {
		_ = waitBriefly(refused, fmt.Sprintf("made-up-%d", i))
	}
	if n := refused.tracked(); n != 0 {
		t.Errorf("%d lookups the cluster refused left %d namespace buckets, want none", names, n)
	}

	granted := newLookupBudget()
	granted.cluster = rate.NewLimiter(rate.Inf, 0)
	granted.namespaceRate = 0.001
	granted.pruneAt = 64
	for i := range names {
		if err := waitBriefly(granted, fmt.Sprintf("made-up-%d", i)); err != nil {
			t.Fatalf("lookup %d, the first of its namespace: %v", i, err)
		}
	}
	if n := granted.tracked(); n > granted.pruneAt {
		t.Errorf("%d granted lookups in as many namespaces left %d buckets, want at most %d", names, n, granted.pruneAt)
	}
}

// BenchmarkLookupBudgetManyNamespaces: granted lookups spread over four
// times as many namespaces as are kept, the map pruned as it fills.
func BenchmarkLookupBudgetManyNamespaces(b *testing.B) {
	budget := newLookupBudget()
	budget.cluster = rate.NewLimiter(rate.Inf, 0)
	budget.namespaceRate = 1e6 // no lookup waits
	names := make([]string, 4*namespaceBudgetsPruneAt)
	for i := range names {
		names[i] = fmt.Sprintf("ns-%d", i)
	}
	ctx := context.Background()
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		if err := budget.wait(ctx, names[i%len(names)]); err != nil {
			b.Fatal(err)
		}
	}
}
