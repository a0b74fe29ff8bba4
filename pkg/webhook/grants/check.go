package grants

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
)

// Defaults bounding one check. A typical template asks a handful of
// questions; the cap turns an object whose expansion would take longer than
// the webhook's timeout into a clear refusal instead of a timeout.
const (
	DefaultConcurrency = 8
	DefaultMaxReviews  = 1000
	// maxNamed is how many missing permissions a denial names; the rest are
	// counted.
	maxNamed = 3
)

// Checker decides requests. Authorizer, Templates, Instances and
// Namespaces are required.
type Checker struct {
	Authorizer Authorizer
	Templates  Templates
	// Instances finds the ScopeInstances a ScopeTemplate's subjects are
	// bound by.
	Instances Instances
	// Namespaces reads the namespaces an object lists: each must exist.
	Namespaces Namespaces
	// Concurrency bounds the questions in flight; zero means DefaultConcurrency.
	Concurrency int
	// MaxReviews caps the questions one request may ask; zero means
	// DefaultMaxReviews.
	MaxReviews int
}

// Request is one admission request for a ScopeTemplate, ScopeInstance,
// APIAccessPolicy or IAMRoleRequest.
type Request struct {
	Group, Resource string
	// Operation is CREATE or UPDATE; anything else is admitted (nothing is
	// granted by deleting or connecting), but for the DELETE of an
	// IAMRoleRequest, which can decide what becomes of its role's trust.
	Operation string
	// Object and OldObject are the objects' JSON; OldObject only on UPDATE
	// and DELETE (where Object is empty).
	Object, OldObject []byte
	Requester         Requester
}

// Reason says why a request was refused.
type Reason string

const (
	// Escalation: the object grants something the requester does not hold.
	Escalation Reason = "Escalation"
	// Invalid: the object cannot be read or checked as it is.
	Invalid Reason = "Invalid"
	// TooManyPermissions: checking would take more questions than one
	// request may ask.
	TooManyPermissions Reason = "TooManyPermissions"
	// NamespacesNotFound: the object lists namespaces that do not exist or
	// are being deleted.
	NamespacesNotFound Reason = "NamespacesNotFound"
	// CheckFailed: the check could not finish (API server error, timeout);
	// retrying may succeed. The request is refused: the check fails closed.
	CheckFailed Reason = "CheckFailed"
)

// Decision is the answer to a request.
type Decision struct {
	Allowed  bool
	Reason   Reason
	Message  string
	Warnings []string
	// Reviews is how many questions the Authorizer was asked.
	Reviews int
}

// Check decides whether the requester may make the object what the request
// says. On UPDATE only a change of spec is checked, and then everything the
// new object grants: a change of labels, finalizers or annotations grants
// nothing, so controllers and users without the object's permissions may
// still make it. Then every namespace the object lists must exist: one
// deleted since an unchanged spec was written is the controllers' to
// report, not a reason to refuse a label. IAMRoleRequests are judged by
// what moves their role's trust, a delete included (checkRoleRequest).
func (c *Checker) Check(ctx context.Context, req Request) Decision {
	if isRoleRequest(req) {
		return c.checkRoleRequest(ctx, req)
	}
	if req.Operation != "CREATE" && req.Operation != "UPDATE" {
		return Decision{Allowed: true}
	}
	obj, err := decode(req.Group, req.Resource, req.Object)
	if err != nil {
		return Decision{Reason: Invalid, Message: err.Error()}
	}
	var old object
	if req.Operation == "UPDATE" && len(req.OldObject) > 0 {
		if old, err = decode(req.Group, req.Resource, req.OldObject); err == nil && sameSpec(old, obj) {
			return Decision{Allowed: true}
		}
	}
	what := fmt.Sprintf("%s %q", obj.kind(), displayName(obj.meta()))
	asked := 0
	if si, ok := obj.(*scopeInstance); ok && si.Spec.ScopeTemplateName != "" {
		// Before the template is read: a denial must not tell its rules, or
		// whether it exists, to whoever may not read it.
		d, ok := c.mayReadTemplate(ctx, what, si.Spec.ScopeTemplateName, req.Requester)
		if !ok {
			return d
		}
		asked = d.Reviews
	}
	d := c.spent(asked).checkGrants(ctx, what, obj, old, req.Requester)
	d.Reviews += asked
	if !d.Allowed {
		return d
	}
	if refused, ok := c.checkNamespaces(ctx, what, obj, req.Requester); !ok {
		refused.Reviews, refused.Warnings = d.Reviews, d.Warnings
		return refused
	}
	return d
}

// spent is c with asked questions fewer left to ask: the cap is per request.
func (c *Checker) spent(asked int) *Checker {
	if asked == 0 {
		return c
	}
	left := *c
	left.MaxReviews = max(1, c.maxReviews()-asked)
	return &left
}

// mayReadTemplate asks whether r may get the template an instance names;
// ok is false with the refusal when not.
func (c *Checker) mayReadTemplate(ctx context.Context, what, name string, r Requester) (Decision, bool) {
	p := readTemplate(name)
	allowed, err := c.allowed(ctx, r, question{n: &need{p: p}})
	if err != nil {
		return failed(what, r, err, 1), false
	}
	if !allowed {
		return Decision{Reason: Escalation, Reviews: 1, Message: fmt.Sprintf(
			"%s names ScopeTemplate %q, which %s may not read (%s cluster-wide); only a requester who may read a ScopeTemplate may bind it",
			what, name, describeRequester(r), describePermission(p))}, false
	}
	return Decision{Reviews: 1}, true
}

// checkGrants decides whether r holds what obj grants, where, and what
// writing it needs; old is what it replaces, nil on CREATE.
func (c *Checker) checkGrants(ctx context.Context, what string, obj, old object, r Requester) Decision {
	gs, warnings, err := obj.grants(ctx, c, old)
	if err != nil {
		var ref refusal
		if errors.As(err, &ref) {
			return Decision{Reason: Invalid, Message: fmt.Sprintf("%s cannot be checked: %s", what, ref.message)}
		}
		return failed(what, r, err, 0)
	}
	asked := 0
	if why := unknowable(gs); why != "" {
		d := c.checkBindAny(ctx, what, why, r, warnings)
		if !d.Allowed {
			return d
		}
		// What it grants is settled; what writing it needs is not.
		asked = d.Reviews
		gs = slices.DeleteFunc(gs, func(g grant) bool { return g.unknowable != "" })
	}
	d := c.spent(asked).checkNeeds(ctx, what, gs, r, warnings)
	d.Reviews += asked
	return d
}

// checkNeeds asks whether r holds every permission gs give or need.
func (c *Checker) checkNeeds(ctx context.Context, what string, gs []grant, r Requester, warnings []string) Decision {
	needs, err := expand(gs, c.maxReviews())
	if err != nil {
		return Decision{Reason: TooManyPermissions, Message: fmt.Sprintf("%s %v; split it into smaller objects, or ask an administrator who holds all of it cluster-wide to create it", what, err)}
	}
	missing, reviews, err := c.ask(ctx, r, needs)
	if err != nil {
		var ref refusal
		if errors.As(err, &ref) {
			return Decision{Reason: TooManyPermissions, Reviews: reviews, Message: fmt.Sprintf("%s %s; split it into smaller objects, or ask an administrator who holds all of it cluster-wide to create it", what, ref.message)}
		}
		return failed(what, r, err, reviews)
	}
	if len(missing) > 0 {
		return Decision{Reason: Escalation, Message: denial(what, r, missing), Warnings: warnings, Reviews: reviews}
	}
	return Decision{Allowed: true, Warnings: warnings, Reviews: reviews}
}

// unknowable says why what gs grant cannot be known now, or "".
func unknowable(gs []grant) string {
	for _, g := range gs {
		if g.unknowable != "" {
			return g.unknowable
		}
	}
	return ""
}

// checkBindAny decides an object whose grants cannot be known now: only a
// requester who may bind any ClusterRole, and so grant anything, may make it.
func (c *Checker) checkBindAny(ctx context.Context, what, why string, r Requester, warnings []string) Decision {
	allowed, err := c.allowed(ctx, r, question{n: &need{p: bindAnyClusterRole}})
	if err != nil {
		return failed(what, r, err, 1)
	}
	if !allowed {
		return Decision{Reason: Escalation, Reviews: 1, Message: fmt.Sprintf(
			"%s %s, so what it grants cannot be checked now: only a requester who may bind any ClusterRole (%s cluster-wide) may make it, which %s may not; you can only grant what you hold",
			what, why, describePermission(bindAnyClusterRole), describeRequester(r))}
	}
	return Decision{Allowed: true, Warnings: warnings, Reviews: 1}
}

func (c *Checker) maxReviews() int  { return cmp.Or(c.MaxReviews, DefaultMaxReviews) }
func (c *Checker) concurrency() int { return max(1, cmp.Or(c.Concurrency, DefaultConcurrency)) }

func failed(what string, r Requester, err error, reviews int) Decision {
	return Decision{Reason: CheckFailed, Reviews: reviews, Message: fmt.Sprintf(
		"could not check whether %s holds everything %s grants: %v; it is refused until the check succeeds (no one may grant more than they hold); retry",
		describeRequester(r), what, err)}
}

// need is one permission an object grants, and where.
type need struct {
	// order is the permission's place in the object, for stable messages.
	order   int
	p       Permission
	cluster bool
	// in are the namespace lists of the grants that give it in namespaces,
	// shared with the grants: a permission many grants give over many
	// namespaces costs a slice header per grant, not a copy of each list.
	in [][]string
	// fromGrant is the last grant whose namespaces were added: the rules of
	// one grant share them, and a permission repeated there adds them once.
	fromGrant int
	// writes: the object does not grant it; writing what it makes needs it.
	writes bool
}

// inSeveral says whether n is granted in more than one namespace.
func (n *need) inSeveral() bool {
	var first string
	found := false
	for _, list := range n.in {
		for _, ns := range list {
			switch {
			case !found:
				first, found = ns, true
			case ns != first:
				return true
			}
		}
	}
	return false
}

// namespaces are the distinct namespaces n is granted in, sorted; false
// when there are more than limit.
func (n *need) namespaces(limit int) ([]string, bool) {
	seen := map[string]bool{}
	for _, list := range n.in {
		for _, ns := range list {
			if seen[ns] {
				continue
			}
			if len(seen) == limit {
				return nil, false
			}
			seen[ns] = true
		}
	}
	return slices.Sorted(maps.Keys(seen)), true
}

// expand turns grants into the distinct permissions they give, each with
// where it is given. It refuses more distinct permissions than max: each
// costs at least one question. Hostile input is bounded: a rule's lists
// are read without repeats, and a rule that alone expands past max is
// refused before it is expanded.
func expand(gs []grant, max int) ([]*need, error) {
	tooMany := fmt.Errorf("grants more than %d distinct permissions, more than one request may check", max)
	type key struct {
		p      Permission
		writes bool
	}
	index := map[key]*need{}
	var needs []*need
	var writes bool // the grant being expanded's
	add := func(p Permission, gi int, namespaces []string) error {
		n, ok := index[key{p, writes}]
		if !ok {
			if len(needs) >= max {
				return tooMany
			}
			n = &need{order: len(needs), p: p, fromGrant: -1, writes: writes}
			index[key{p, writes}] = n
			needs = append(needs, n)
		}
		if len(namespaces) == 0 {
			// No namespace is everywhere: the controllers bind cluster-wide
			// for an empty list as for none.
			n.cluster = true
			return nil
		}
		if n.fromGrant != gi {
			n.fromGrant = gi
			n.in = append(n.in, namespaces)
		}
		return nil
	}
	for gi, g := range gs {
		writes = g.writes
		for _, rule := range g.rules {
			verbs, urls := distinct(rule.Verbs), distinct(rule.NonResourceURLs)
			groups, resources := distinct(rule.APIGroups), distinct(rule.Resources)
			names := distinct(rule.ResourceNames)
			if len(names) == 0 {
				names = []string{""}
			}
			if !within(max, len(urls), len(verbs)) || !within(max, len(groups), len(resources), len(verbs), len(names)) {
				return nil, tooMany
			}
			for _, url := range urls {
				for _, verb := range verbs {
					// Non-resource URLs are cluster-wide: no namespace holds them.
					if err := add(Permission{Verb: verb, NonResourceURL: url}, gi, nil); err != nil {
						return nil, err
					}
				}
			}
			for _, group := range groups {
				for _, resource := range resources {
					resource, sub, _ := strings.Cut(resource, "/")
					for _, verb := range verbs {
						for _, name := range names {
							p := Permission{Verb: verb, Group: group, Resource: resource, Subresource: sub, Name: name}
							if err := add(p, gi, g.namespaces); err != nil {
								return nil, err
							}
						}
					}
				}
			}
		}
	}
	for _, n := range needs {
		if n.cluster {
			n.in = nil
		}
	}
	return needs, nil
}

// distinct is xs without repeats, in their first order.
func distinct(xs []string) []string {
	if len(xs) < 2 {
		return xs
	}
	seen := make(map[string]bool, len(xs))
	out := make([]string, 0, len(xs))
	for _, x := range xs {
		if !seen[x] {
			seen[x] = true
			out = append(out, x)
		}
	}
	return out
}

// within says whether the product of counts is at most max, without
// overflowing.
func within(max int, counts ...int) bool {
	product := 1
	for _, c := range counts {
		if c == 0 {
			return true
		}
		if product > max/c {
			return false
		}
		product *= c
	}
	return product <= max
}

// question is one Authorizer call: a permission, where.
type question struct {
	n         *need
	namespace string
}

// missing is a permission the requester does not hold where it is granted.
type missing struct {
	n         *need
	namespace string
}

// ask finds what the requester lacks, and says how many questions it asked.
func (c *Checker) ask(ctx context.Context, r Requester, needs []*need) ([]missing, int, error) {
	needs, shortcut, err := c.unlessHeldOutright(ctx, r, needs)
	if err != nil {
		return nil, shortcut, err
	}
	lacking, reviews, err := c.askEach(ctx, r, needs)
	return lacking, shortcut + reviews, err
}

// outrightAfter is how many questions a request must need before it first
// asks whether the requester holds everything.
const outrightAfter = 16

// Everything a holder of every verb on every resource (or non-resource URL)
// cluster-wide holds: RBAC matches a literal "*" only with a rule that grants
// "*", so "allowed" here covers every narrower permission in every namespace.
var (
	allResources    = Permission{Verb: "*", Group: "*", Resource: "*"}
	allNonResources = Permission{Verb: "*", NonResourceURL: "*"}
)

// unlessHeldOutright settles a request that needs many questions with one
// or two when the requester holds everything cluster-wide, as a cluster
// admin does: a policy over 300 CRDs otherwise asks 600 (docs/performance.md).
// It returns the needs still to ask and how many questions it asked.
func (c *Checker) unlessHeldOutright(ctx context.Context, r Requester, needs []*need) ([]*need, int, error) {
	// Each need costs at least one question: cluster-wide, or in its one
	// namespace.
	questions, nonResource := len(needs), 0
	for _, n := range needs {
		if n.p.NonResourceURL != "" {
			nonResource++
		}
	}
	if questions < outrightAfter {
		return needs, 0, nil
	}
	asked := 0
	for _, all := range []struct {
		p           Permission
		nonResource bool
		count       int
	}{{allResources, false, len(needs) - nonResource}, {allNonResources, true, nonResource}} {
		if all.count == 0 {
			continue
		}
		allowed, err := c.allowed(ctx, r, question{n: &need{p: all.p}})
		asked++
		if err != nil {
			return nil, asked, err
		}
		if allowed {
			needs = slices.DeleteFunc(slices.Clone(needs), func(n *need) bool { return (n.p.NonResourceURL != "") == all.nonResource })
		}
	}
	return needs, asked, nil
}

// askEach asks about each need. Cluster-wide first, for what is granted
// cluster-wide or in more than one namespace (a holder of it cluster-wide
// holds it everywhere); then per namespace only for what is not held
// cluster-wide and granted only in namespaces. A permission granted in one
// namespace is asked there directly. Missing cluster-wide grants end the
// check: they already refuse the request.
func (c *Checker) askEach(ctx context.Context, r Requester, needs []*need) ([]missing, int, error) {
	var first []question
	for _, n := range needs {
		if n.cluster || n.inSeveral() {
			first = append(first, question{n: n})
		}
	}
	if len(first) > c.maxReviews() {
		return nil, 0, refusal{fmt.Sprintf("needs %d cluster-wide permission checks, more than the %d one request may ask", len(first), c.maxReviews())}
	}
	denied, err := c.answer(ctx, r, first)
	reviews := len(first)
	if err != nil {
		return nil, reviews, err
	}
	heldClusterWide := map[*need]bool{}
	for _, q := range first {
		heldClusterWide[q.n] = true
	}
	var lacking []missing
	for _, q := range denied {
		heldClusterWide[q.n] = false
		if q.n.cluster {
			lacking = append(lacking, missing(q))
		}
	}
	if len(lacking) > 0 {
		return sortMissing(lacking), reviews, nil
	}
	var second []question
	for _, n := range needs {
		if n.cluster || heldClusterWide[n] {
			continue
		}
		namespaces, ok := n.namespaces(c.maxReviews() - reviews - len(second))
		if !ok {
			return nil, reviews, refusal{fmt.Sprintf("needs more permission checks in namespaces after %d cluster-wide ones than the %d one request may ask",
				reviews, c.maxReviews())}
		}
		for _, ns := range namespaces {
			second = append(second, question{n: n, namespace: ns})
		}
	}
	denied, err = c.answer(ctx, r, second)
	reviews += len(second)
	if err != nil {
		return nil, reviews, err
	}
	for _, q := range denied {
		lacking = append(lacking, missing(q))
	}
	return sortMissing(lacking), reviews, nil
}

// answer asks every question, at most Concurrency at once, and returns those
// denied. The first error stops the questions not asked yet and is returned;
// so is the context's end before every question is answered.
func (c *Checker) answer(ctx context.Context, r Requester, questions []question) ([]question, error) {
	if len(questions) == 0 {
		return nil, nil
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var (
		mu       sync.Mutex
		denied   []question
		answered int
		firstErr error
		wg       sync.WaitGroup
	)
	next := make(chan question)
	for range min(c.concurrency(), len(questions)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for q := range next {
				allowed, err := c.allowed(ctx, r, q)
				mu.Lock()
				switch {
				case err != nil:
					if firstErr == nil {
						firstErr = err
					}
					cancel()
				case !allowed:
					denied = append(denied, q)
					answered++
				default:
					answered++
				}
				mu.Unlock()
			}
		}()
	}
feed:
	for _, q := range questions {
		select {
		case next <- q:
		case <-ctx.Done():
			break feed
		}
	}
	close(next)
	wg.Wait()
	if firstErr != nil {
		return nil, firstErr
	}
	if answered < len(questions) {
		return nil, fmt.Errorf("%d of %d permission checks unanswered: %w", len(questions)-answered, len(questions), context.Cause(ctx))
	}
	return denied, nil
}

// allowed asks one question; a panic becomes an error, since on a
// goroutine of its own it would end the process.
func (c *Checker) allowed(ctx context.Context, r Requester, q question) (allowed bool, err error) {
	defer func() {
		if v := recover(); v != nil {
			allowed, err = false, fmt.Errorf("the access check failed internally: %v", v)
		}
	}()
	return c.Authorizer.Allowed(ctx, r, q.namespace, q.n.p)
}

func sortMissing(ms []missing) []missing {
	slices.SortFunc(ms, func(a, b missing) int {
		return cmp.Or(cmp.Compare(a.n.order, b.n.order), cmp.Compare(a.namespace, b.namespace))
	})
	return ms
}
