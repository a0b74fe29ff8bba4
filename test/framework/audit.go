package framework

import (
	"bufio"
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"slices"
	"strings"
	"time"
)

// AuditEvent is the part of an API server audit event the tests read.
type AuditEvent struct {
	Verb       string `json:"verb"`
	RequestURI string `json:"requestURI"`
	Stage      string `json:"stage"`
	User       struct {
		Username string
		// Extra holds authentication.kubernetes.io/credential-id: the
		// token's JTI, which tells apart processes of one ServiceAccount
		// each given its own token.
		Extra map[string][]string `json:"extra"`
	} `json:"user"`
	ObjectRef *struct {
		Resource    string `json:"resource"`
		Namespace   string `json:"namespace"`
		Name        string `json:"name"`
		APIGroup    string `json:"apiGroup"`
		Subresource string `json:"subresource"`
	} `json:"objectRef"`
	ResponseStatus *struct{ Code int } `json:"responseStatus"`
	Received       time.Time           `json:"requestReceivedTimestamp"`
}

func (e AuditEvent) String() string {
	if e.ObjectRef == nil {
		return e.Verb
	}
	r := e.ObjectRef
	res := r.Resource
	if r.Subresource != "" {
		res += "/" + r.Subresource
	}
	return fmt.Sprintf("%s %s.%s %s/%s (HTTP %d)", e.Verb, res, r.APIGroup, r.Namespace, r.Name, e.code())
}

// CredentialID is the id of the token the request came with, "" if none.
func (e AuditEvent) CredentialID() string {
	if ids := e.User.Extra["authentication.kubernetes.io/credential-id"]; len(ids) > 0 {
		return ids[0]
	}
	return ""
}

// Code is the HTTP status of the response, 0 if none was recorded.
func (e AuditEvent) Code() int { return e.code() }

func (e AuditEvent) code() int {
	if e.ResponseStatus == nil {
		return 0
	}
	return e.ResponseStatus.Code
}

// Requests lists every completed request username sent after since.
func Requests(auditLog, username string, since time.Time) ([]AuditEvent, error) {
	return requestsAt(auditLog, username, since, "ResponseComplete")
}

// WatchesStarted lists the watches username opened after since: a watch is
// complete only once it ends, so Requests misses those still open (an
// informer's, whose initial list is itself a watch where the server allows).
func WatchesStarted(auditLog, username string, since time.Time) ([]AuditEvent, error) {
	events, err := requestsAt(auditLog, username, since, "ResponseStarted")
	var watches []AuditEvent
	for _, e := range events {
		if e.Verb == "watch" {
			watches = append(watches, e)
		}
	}
	return watches, err
}

func requestsAt(auditLog, username string, since time.Time, stage string) ([]AuditEvent, error) {
	return readAudit(auditLog, username, since, func(e AuditEvent) bool { return e.Stage == stage })
}

// readAudit lists the events of auditLog by username after since that keep
// accepts.
func readAudit(auditLog, username string, since time.Time, keep func(AuditEvent) bool) ([]AuditEvent, error) {
	f, err := os.Open(auditLog)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var events []AuditEvent
	scanner := bufio.NewScanner(f)
	scanner.Buffer(make([]byte, 1<<20), 16<<20)
	for scanner.Scan() {
		var e AuditEvent
		if err := json.Unmarshal(scanner.Bytes(), &e); err != nil {
			return nil, err
		}
		if e.User.Username == username && !e.Received.Before(since) && keep(e) {
			events = append(events, e)
		}
	}
	return events, scanner.Err()
}

// IsWrite reports whether the request changed (or tried to change) state.
func (e AuditEvent) IsWrite() bool {
	switch e.Verb {
	case "create", "update", "patch", "delete", "deletecollection", "apply":
		return true
	}
	return false
}

// Writes lists the mutating requests username sent after since, except to
// the resources in ignore (see WritesExcept).
func Writes(auditLog, username string, since time.Time, ignore ...string) ([]AuditEvent, error) {
	events, err := Requests(auditLog, username, since)
	if err != nil {
		return nil, err
	}
	return WritesExcept(events, ignore...), nil
}

// WritesExcept keeps the mutating requests among events, except those to the
// resources in ignore (e.g. the leader-election lease and events, which a
// healthy idle operator writes by design).
func WritesExcept(events []AuditEvent, ignore ...string) []AuditEvent {
	var writes []AuditEvent
	for _, e := range events {
		if !e.IsWrite() || (e.ObjectRef != nil && slices.Contains(ignore, e.ObjectRef.Resource)) {
			continue
		}
		writes = append(writes, e)
	}
	return writes
}

// CountByResource summarises events as "verb resource[/subresource]" → n.
func CountByResource(events []AuditEvent) map[string]int {
	counts := map[string]int{}
	for _, e := range events {
		key := e.Verb
		if e.ObjectRef != nil {
			key += " " + e.ObjectRef.Resource
			if e.ObjectRef.Subresource != "" {
				key += "/" + e.ObjectRef.Subresource
			}
		}
		counts[key]++
	}
	return counts
}

// Listings lists the requests username sent after since that read a whole
// collection: every LIST, and every WATCH that starts by sending the whole
// collection (sendInitialEvents=true, how client-go's informers list since
// its WatchListClient feature). A watch answered is counted when its
// response starts, not when it ends, so watches still open are counted
// too; one refused once, when it ends (a refused watch is audited at both
// stages, with the same status).
func Listings(auditLog, username string, since time.Time) ([]AuditEvent, error) {
	return readAudit(auditLog, username, since, func(e AuditEvent) bool {
		switch {
		case e.Verb == "list" && e.Stage == "ResponseComplete":
			return true
		case e.Verb == "watch" && strings.Contains(e.RequestURI, "sendInitialEvents=true"):
			refused := e.code() >= 400
			return (e.Stage == "ResponseStarted" && !refused) || (e.Stage == "ResponseComplete" && refused)
		}
		return false
	})
}

// Listed is what a listing call lists: resource, namespace and selectors,
// so informers are told apart by what they list. Several informers listing
// the same thing share one key.
func (e AuditEvent) Listed() string {
	key := e.Verb
	if e.ObjectRef != nil {
		key = e.ObjectRef.Resource
		if e.ObjectRef.APIGroup != "" {
			key += "." + e.ObjectRef.APIGroup
		}
		if e.ObjectRef.Namespace != "" {
			key += " in " + e.ObjectRef.Namespace
		}
	}
	if u, err := url.Parse(e.RequestURI); err == nil {
		for _, selector := range []string{"labelSelector", "fieldSelector"} {
			if v := u.Query().Get(selector); v != "" {
				key += " " + selector + "=" + v
			}
		}
	}
	return key
}
