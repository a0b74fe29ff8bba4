package webhook

import (
	"net"
	"net/http"
	"sync"

	"golang.org/x/time/rate"
	"k8s.io/utils/lru"
)

// clientLimiter gives each client address its own token bucket, so one
// client that sends many requests runs out of its own budget, not
// everyone's. It remembers at most size addresses, least recently seen out
// first: memory stays bounded whatever the clients do, and a client that
// cycles through more addresses than that gets a fresh bucket for each,
// which only the server's own client limits (the API server's QPS) bound.
type clientLimiter struct {
	rate  rate.Limit
	burst int

	mu      sync.Mutex
	buckets *lru.Cache
}

func newClientLimiter(perSecond rate.Limit, burst, size int) *clientLimiter {
	return &clientLimiter{rate: perSecond, burst: burst, buckets: lru.New(size)}
}

// allow takes a token from the bucket of r's client address.
func (l *clientLimiter) allow(r *http.Request) bool {
	client := clientAddress(r)
	l.mu.Lock()
	defer l.mu.Unlock()
	bucket, ok := l.buckets.Get(client)
	if !ok {
		bucket = rate.NewLimiter(l.rate, l.burst)
		l.buckets.Add(client, bucket)
	}
	return bucket.(*rate.Limiter).Allow()
}

// clientAddress is the client's IP address, without the port: a client opens as
// many connections, and so ports, as it likes.
func clientAddress(r *http.Request) string {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return r.RemoteAddr
	}
	return host
}
