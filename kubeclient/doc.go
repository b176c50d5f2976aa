// Package kubeclient implements adapter.Kube on a Kubernetes API server with
// client-go's dynamic client: the kubernetes transport
// (transport.client: kubernetes), where each resource of a task config is one
// object applied straight to a cluster.
//
// Kinds are resolved to resources through discovery, cached in memory for
// the life of the Client and fetched again (at most every 10 s) when a kind
// is not in the cache, so a CRD installed after start is found. Writes go
// under one field manager (Options.FieldManager): Create is a POST, Apply a
// server-side apply with forced conflicts guarded by the uid and
// resourceVersion of a read made just before (see Apply: it never creates),
// Delete carries the propagation policy and returns once accepted.
//
// Every error names the operation, apiVersion, kind, namespace and name and
// keeps the API server's message; it wraps the adapter sentinel the status
// means (see sentinelFor). Responses are bounded: one body by
// Options.MaxResponseBytes, one List by Options.MaxListItems.
//
// The contract every adapter.Kube passes is in kubeclient/kubecontract; the
// in-memory implementation used by tests and dry-run is kubeclient/memkube.
package kubeclient
