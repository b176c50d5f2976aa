package adapter

import (
	"context"
	"sync/atomic"
)

// requestCounts are the client calls of one event, by client
// (Result.MaestroRequests, Result.KubeRequests).
type requestCounts struct {
	maestro, kube atomic.Int64
}

type requestCounterKey struct{}

func withRequestCounts(ctx context.Context, n *requestCounts) context.Context {
	return context.WithValue(ctx, requestCounterKey{}, n)
}

// countRequests is the Interceptor that counts every call of either
// client in the counts its context carries; calls outside an event are
// not counted.
func countRequests(ctx context.Context, c Call) (context.Context, func(error)) {
	if n, ok := ctx.Value(requestCounterKey{}).(*requestCounts); ok {
		if c.Client == ClientKubernetes {
			n.kube.Add(1)
		} else {
			n.maestro.Add(1)
		}
	}
	return ctx, nil
}
