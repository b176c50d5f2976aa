package stacktest

import "net/http"

// Request is one request the API received under ClustersPath.
type Request struct {
	Method, Path string
	// Traceparent is the request's W3C traceparent header ("" when none).
	Traceparent string
}

// maxRequests bounds the requests kept (load runs send many): past it, the
// older half is dropped.
const maxRequests = 10000

func (a *API) record(r *http.Request) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if len(a.requests) >= maxRequests {
		a.requests = append(a.requests[:0], a.requests[maxRequests/2:]...)
	}
	a.requests = append(a.requests, Request{Method: r.Method, Path: r.URL.Path, Traceparent: r.Header.Get("traceparent")})
}

// Requests lists the requests received under ClustersPath, in order (the
// latest maxRequests at most).
func (a *API) Requests() []Request {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]Request(nil), a.requests...)
}
