// Package apistub is a canned HyperFleet API (adapter.API) for the dry-run
// command and unit tests: it answers from a table keyed by "METHOD /path"
// and records every call.
//
// Unmatched GETs answer 404 like the real API for an unknown resource;
// unmatched PUT, POST and PATCH answer 200 with an empty JSON object. A
// responses file in HyperFleet adapter's dry-run format (LoadHyperFleet)
// matches by method and regular expression instead, answers an endpoint's
// responses in turn (the last one repeated), and answers 200 with an empty
// JSON object to whatever it does not match, as that adapter's dry-run does.
package apistub

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"

	"github.com/bundle-adapter/bundle-adapter/adapter"
	"github.com/bundle-adapter/bundle-adapter/config"
	"github.com/bundle-adapter/bundle-adapter/hyperfleetapi"
)

// Response is one canned answer.
type Response struct {
	Status int             `json:"status"`
	Body   json.RawMessage `json:"body,omitempty"`
}

// Call is one recorded request. Body is the JSON body decoded (nil when
// empty, the raw text when not JSON). Its JSON form (dry-run's report)
// carries the body exactly as sent, so no number is rounded through
// float64 on the way (RawBody).
type Call struct {
	Method string `json:"method"`
	Path   string `json:"path"`
	Body   any    `json:"body"`
	raw    []byte
}

// RawBody is the body as sent.
func (c Call) RawBody() []byte { return c.raw }

// MarshalJSON prints the call with its body as sent when that is JSON
// (compacted), and as Body otherwise.
func (c Call) MarshalJSON() ([]byte, error) {
	type plain Call
	var buf bytes.Buffer
	if len(c.raw) == 0 || json.Compact(&buf, c.raw) != nil {
		return json.Marshal(plain(c))
	}
	return json.Marshal(struct {
		plain
		Body json.RawMessage `json:"body"`
	}{plain(c), buf.Bytes()})
}

// DefaultBaseURL is the base URL a stub resolves relative URLs against
// until UseBaseURL names the configured one.
const DefaultBaseURL = "http://hyperfleet-api.stub"

// Stub is safe for concurrent use. It refuses what the real client refuses
// (hyperfleetapi.Resolver): such a call is not recorded and fails with an
// *adapter.RefusedError.
type Stub struct {
	version   string
	resolver  *hyperfleetapi.Resolver
	mu        sync.Mutex
	responses map[string]Response
	patterns  []*endpoint // HyperFleet adapter's format, tried in order
	defaultOK bool        // unmatched calls answer 200 {} (HyperFleet's format)
	calls     []Call
	failNext  map[string]int
}

// New returns a stub resolving relative URLs with API version (v1 when "").
func New(version string, responses map[string]Response) *Stub {
	if responses == nil {
		responses = map[string]Response{}
	}
	return &Stub{version: version, responses: responses, failNext: map[string]int{},
		resolver: hyperfleetapi.NewResolver(DefaultBaseURL, version, nil)}
}

// UseBaseURL resolves and checks URLs as a client configured with baseURL
// and allowedOrigins would. Call it before the first Do.
func (s *Stub) UseBaseURL(baseURL string, allowedOrigins []string) {
	s.resolver = hyperfleetapi.NewResolver(baseURL, s.version, allowedOrigins)
}

// Load reads a responses file: this adapter's format,
// {"GET /api/hyperfleet/v1/clusters/c1": {"status": 200, "body": {...}}}, or
// HyperFleet adapter's dry-run format, {"responses": [...]} (LoadHyperFleet).
func Load(r io.Reader, version string) (*Stub, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("API responses: %w", err)
	}
	if isHyperFleetFormat(data) {
		return LoadHyperFleet(bytes.NewReader(data), version)
	}
	var m map[string]Response
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&m); err != nil {
		return nil, fmt.Errorf("API responses: %w", err)
	}
	for k, v := range m {
		method, path, ok := strings.Cut(k, " ")
		if !ok || method != strings.ToUpper(method) || !strings.HasPrefix(path, "/") {
			return nil, fmt.Errorf("API responses: key %q must look like \"GET /api/hyperfleet/v1/clusters/c1\"", k)
		}
		if v.Status < 100 || v.Status > 599 {
			return nil, fmt.Errorf("API responses: %q: status %d is not an HTTP status", k, v.Status)
		}
	}
	return New(version, m), nil
}

// Set replaces the answer for "METHOD /path".
func (s *Stub) Set(key string, r Response) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.responses[key] = r
}

// FailNext makes the next n calls to "METHOD /path" answer status 503.
func (s *Stub) FailNext(key string, n int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.failNext[key] = n
}

// Calls returns the recorded calls in order.
func (s *Stub) Calls() []Call {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Call(nil), s.calls...)
}

// Do answers from the table.
func (s *Stub) Do(_ context.Context, req adapter.APIRequest) (adapter.APIResponse, error) {
	u, sameOrigin, err := s.resolver.Resolve(req.URL)
	if err != nil {
		return adapter.APIResponse{}, &adapter.RefusedError{Method: req.Method, URL: config.RedactURL(req.URL), Reason: err.Error()}
	}
	path := u.String()
	if sameOrigin {
		path = u.EscapedPath()
		if u.RawQuery != "" {
			path += "?" + u.RawQuery
		}
	}
	key := req.Method + " " + path
	s.mu.Lock()
	defer s.mu.Unlock()
	s.calls = append(s.calls, Call{Method: req.Method, Path: path, Body: decodeBody(req.Body), raw: bytes.Clone(req.Body)})
	if s.failNext[key] > 0 {
		s.failNext[key]--
		return adapter.APIResponse{Status: http.StatusServiceUnavailable, Body: []byte(`{"reason":"injected failure"}`)}, nil
	}
	if r, ok := s.responses[key]; ok {
		return adapter.APIResponse{Status: r.Status, Body: []byte(r.Body)}, nil
	}
	if r, ok := s.matchPattern(req.Method, path); ok {
		return adapter.APIResponse{Status: r.Status, Body: []byte(r.Body)}, nil
	}
	if !s.defaultOK && (req.Method == http.MethodGet || req.Method == http.MethodDelete) {
		return adapter.APIResponse{Status: http.StatusNotFound, Body: []byte(`{"reason":"not found"}`)}, nil
	}
	return adapter.APIResponse{Status: http.StatusOK, Body: []byte(`{}`)}, nil
}

func decodeBody(b []byte) any {
	if len(b) == 0 {
		return nil
	}
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		return string(b)
	}
	return v
}
