package upgrade

import (
	"context"
	"fmt"
	"strconv"
	"sync"
	"time"

	configv1 "github.com/openshift/api/config/v1"
	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/openshift/cluster-workload-access-operator/test/framework"
)

// stamped is something seen at a time.
type stamped struct {
	At   time.Time
	What string
	// Revision is the object's resourceVersion then (see revision).
	Revision int64
}

func (s stamped) String() string { return s.At.Format("15:04:05.000") + " " + s.What }

// clusterOperatorWatch records every change of clusteroperator/workload-access
// as a watch delivers it: each time Degraded or Progressing is True, and
// each operator version reported.
type clusterOperatorWatch struct {
	cancel context.CancelFunc
	done   sync.WaitGroup

	mu          sync.Mutex
	degraded    []stamped
	progressing []stamped
	versions    []stamped
}

func watchClusterOperator() *clusterOperatorWatch {
	ctx, cancel := context.WithCancel(context.Background())
	w := &clusterOperatorWatch{cancel: cancel}
	w.done.Add(1)
	go func() {
		defer w.done.Done()
		resourceVersion := ""
		for ctx.Err() == nil {
			watcher, err := env.config.ConfigV1().ClusterOperators().Watch(ctx, metav1.ListOptions{
				FieldSelector: "metadata.name=" + framework.ClusterOperatorName, ResourceVersion: resourceVersion})
			if err != nil {
				time.Sleep(100 * time.Millisecond)
				continue
			}
			for event := range watcher.ResultChan() {
				co, ok := event.Object.(*configv1.ClusterOperator)
				if !ok {
					// An error event (the version expired): start over.
					resourceVersion = ""
					break
				}
				resourceVersion = co.ResourceVersion
				w.record(co)
			}
			watcher.Stop()
		}
	}()
	return w
}

func (w *clusterOperatorWatch) record(co *configv1.ClusterOperator) {
	now := time.Now()
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, c := range co.Status.Conditions {
		if c.Status != configv1.ConditionTrue {
			continue
		}
		seen := stamped{At: now, What: fmt.Sprintf("%s: %s", c.Reason, c.Message)}
		switch c.Type {
		case configv1.OperatorDegraded:
			w.degraded = append(w.degraded, seen)
		case configv1.OperatorProgressing:
			w.progressing = append(w.progressing, seen)
		}
	}
	for _, v := range co.Status.Versions {
		if v.Name != "operator" {
			continue
		}
		if n := len(w.versions); n == 0 || w.versions[n-1].What != v.Version {
			w.versions = append(w.versions, stamped{At: now, What: v.Version, Revision: revision(co.ResourceVersion)})
		}
	}
}

// stop ends the watch and returns what it saw.
func (w *clusterOperatorWatch) stop() (degraded, progressing, versions []stamped) {
	w.cancel()
	w.done.Wait()
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.degraded, w.progressing, w.versions
}

// versionSince is the first report of version at or after since (zero if
// never).
func versionSince(versions []stamped, version string, since time.Time) stamped {
	for _, v := range versions {
		if v.What == version && !v.At.Before(since) {
			return v
		}
	}
	return stamped{}
}

// deploymentWatch watches the webhook Deployment and records when (and at
// which resourceVersion) it first reads as rolled out to an image.
type deploymentWatch struct {
	cancel context.CancelFunc
	done   sync.WaitGroup
	mu     sync.Mutex
	at     time.Time
	rv     int64
}

func watchRollout(image string) *deploymentWatch {
	ctx, cancel := context.WithCancel(context.Background())
	w := &deploymentWatch{cancel: cancel}
	w.done.Add(1)
	go func() {
		defer w.done.Done()
		resourceVersion := ""
		for ctx.Err() == nil {
			watcher, err := env.kube.AppsV1().Deployments(framework.OperandNamespace).Watch(ctx, metav1.ListOptions{
				FieldSelector: "metadata.name=" + framework.WebhookName, ResourceVersion: resourceVersion})
			if err != nil {
				time.Sleep(100 * time.Millisecond)
				continue
			}
			for event := range watcher.ResultChan() {
				d, ok := event.Object.(*appsv1.Deployment)
				if !ok {
					resourceVersion = ""
					break
				}
				resourceVersion = d.ResourceVersion
				if rolledOut(d, image) == nil {
					w.mu.Lock()
					w.at, w.rv = time.Now(), revision(d.ResourceVersion)
					w.mu.Unlock()
					watcher.Stop()
					return
				}
			}
			watcher.Stop()
		}
	}()
	return w
}

// rolledOutAt is when, and at which revision, the rollout was first seen
// complete (zero if not yet).
func (w *deploymentWatch) rolledOutAt() (time.Time, int64) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.at, w.rv
}

func (w *deploymentWatch) stop() { w.cancel(); w.done.Wait() }

// revision reads a resourceVersion as the etcd revision it is on this
// control plane (one etcd): the order in which writes of any two objects
// were committed, which arrival times of two watches do not give.
func revision(resourceVersion string) int64 {
	n, _ := strconv.ParseInt(resourceVersion, 10, 64)
	return n
}
