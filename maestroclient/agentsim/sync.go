package agentsim

import (
	"context"
	"fmt"
	"log/slog"
	"strconv"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	workv1 "open-cluster-management.io/api/work/v1"
)

// maxRetries bounds the retries of one queued bundle name.
const maxRetries = 8

// work handles queued bundle names until the queue shuts down.
func (a *Agent) work(ctx context.Context) {
	for {
		name, quit := a.queue.Get()
		if quit {
			return
		}
		a.process(ctx, name)
		a.queue.Done(name)
	}
}

func (a *Agent) process(ctx context.Context, name string) {
	err := a.sync(ctx, name)
	if err == nil {
		a.queue.Forget(name)
		return
	}
	if a.queue.NumRequeues(name) < maxRetries {
		a.log.Debug("retrying bundle", "name", name, "error", err)
		a.queue.AddRateLimited(name)
		return
	}
	level := slog.LevelError
	if apierrors.IsNotFound(err) { // deleted meanwhile
		level = slog.LevelDebug
	}
	a.log.Log(ctx, level, "giving up on bundle", "name", name, "error", err)
	a.queue.Forget(name)
}

// sync answers the current state of a bundle. sdk-go notifies watchers
// before it updates its cache, which the agent client's Patch reads: a cache
// older than the informer's view is retried.
func (a *Agent) sync(ctx context.Context, name string) error {
	seen, err := a.lister.Get(name)
	if apierrors.IsNotFound(err) {
		return nil // deleted meanwhile
	}
	if err != nil {
		return err
	}
	w, err := a.works.Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		return err
	}
	if version(w) < version(seen) {
		return fmt.Errorf("agent cache at version %s, informer at %s", w.ResourceVersion, seen.ResourceVersion)
	}
	if w.DeletionTimestamp != nil {
		return a.onDelete(ctx, w)
	}
	return a.onApply(ctx, w)
}

// version is the agent cache's resource version of w, a counter.
func version(w *workv1.ManifestWork) int64 {
	v, _ := strconv.ParseInt(w.ResourceVersion, 10, 64)
	return v
}
