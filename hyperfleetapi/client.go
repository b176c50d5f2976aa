// Package hyperfleetapi is the HTTP implementation of adapter.API: the
// HyperFleet API client with URL resolution, bearer-token auth from a file,
// a per-request timeout and bounded retries of transient failures.
package hyperfleetapi

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"

	"github.com/bundle-adapter/bundle-adapter/adapter"
	"github.com/bundle-adapter/bundle-adapter/config"
)

// Options configures a Client. Defaults: version v1, timeout 10s, 3
// attempts, exponential backoff starting at 200ms.
type Options struct {
	BaseURL       string
	Version       string
	Timeout       time.Duration
	RetryAttempts int
	// RetryBackoff is exponential, linear or constant.
	RetryBackoff string
	// BaseDelay is the first retry delay; every delay is capped at
	// MaxDelay.
	BaseDelay time.Duration
	// MaxDelay caps every retry delay; zero or above MaxRetryDelay means
	// MaxRetryDelay.
	MaxDelay time.Duration
	// DefaultHeaders are set on every request to the configured API (never
	// to another allowed origin); a request's own headers win.
	DefaultHeaders map[string]string
	// TokenPath names a file holding a bearer token; it is read again when
	// it changes (token rotation). Empty: no Authorization header. The token
	// is only ever sent to BaseURL's origin, under the API prefix.
	TokenPath string
	// TokenCacheTTL is how long a token read from TokenPath is used before
	// the file is looked at again. Zero: on every request.
	TokenCacheTTL time.Duration
	// AllowedOrigins lists other origins (scheme://host[:port]) that
	// absolute task-config URLs may name; they never get the token. Any other
	// origin is refused (see Resolver).
	AllowedOrigins []string
	// UserAgent is sent with every request; default DefaultUserAgent
	// (serve sends bundle-adapter/<version>).
	UserAgent string
	// HTTPClient defaults to a client with no overall timeout (each request
	// is bounded by Timeout through its context) that keeps up to 64 idle
	// connections to the API (net/http's default of 2 made a busy adapter
	// open a new connection for a third of its calls).
	HTTPClient *http.Client
	// Tracer, when set, sends every attempt in a span ("HTTP GET", ...)
	// and Propagator sets its trace context headers (traceparent) on the
	// request; the URL and body are never changed. Nil: no span, no header.
	Tracer     trace.Tracer
	Propagator propagation.TextMapPropagator
}

// Client sends requests to the HyperFleet API. Safe for concurrent use.
type Client struct {
	o        Options
	token    *tokenFile
	resolver *Resolver
}

// DefaultUserAgent is Options.UserAgent's default.
const DefaultUserAgent = "bundle-adapter"

// New returns a client; it does not contact the server.
func New(o Options) *Client {
	if o.UserAgent == "" {
		o.UserAgent = DefaultUserAgent
	}
	if o.Version == "" {
		o.Version = "v1"
	}
	if o.Timeout <= 0 {
		o.Timeout = 10 * time.Second
	}
	if o.RetryAttempts < 1 {
		o.RetryAttempts = 3
	}
	if o.BaseDelay <= 0 {
		o.BaseDelay = 200 * time.Millisecond
	}
	if o.MaxDelay <= 0 || o.MaxDelay > MaxRetryDelay {
		o.MaxDelay = MaxRetryDelay
	}
	if o.HTTPClient == nil {
		t := http.DefaultTransport.(*http.Transport).Clone()
		t.MaxIdleConnsPerHost = 64
		o.HTTPClient = &http.Client{Transport: t}
	}
	c := &Client{o: o, resolver: NewResolver(o.BaseURL, o.Version, o.AllowedOrigins)}
	hc := *o.HTTPClient
	hc.CheckRedirect = c.checkRedirect(o.HTTPClient.CheckRedirect)
	c.o.HTTPClient = &hc
	if o.TokenPath != "" {
		c.token = &tokenFile{path: o.TokenPath, ttl: o.TokenCacheTTL}
	}
	return c
}

// ResolvePath is the URL path a task-config URL is sent to: absolute URLs
// and paths that already start with /api/ are kept, other relative paths
// get /api/hyperfleet/<version> prefixed.
func ResolvePath(version, u string) string {
	if strings.HasPrefix(u, "http://") || strings.HasPrefix(u, "https://") || strings.HasPrefix(u, "/api/") {
		return u
	}
	if version == "" {
		version = "v1"
	}
	return "/api/hyperfleet/" + version + "/" + strings.TrimPrefix(u, "/")
}

// Do sends the request, retrying transport failures and 5xx/429/408 answers
// up to the attempt limit with backoff. It returns the last answer whatever
// its status; the error is an *adapter.RefusedError when the request is
// never sent (see Resolver; a header value with a control character), an
// *adapter.TransportError when no answer was obtained at all, or ctx ended.
func (c *Client) Do(ctx context.Context, req adapter.APIRequest) (adapter.APIResponse, error) {
	if err := c.resolver.Err(); err != nil {
		return adapter.APIResponse{}, &adapter.TransportError{Err: err}
	}
	u, withToken, err := c.resolver.Resolve(req.URL)
	if err == nil {
		err = checkHeaders(req.Headers)
	}
	if err != nil {
		return adapter.APIResponse{}, &adapter.RefusedError{Method: req.Method, URL: config.RedactURL(req.URL), Reason: err.Error()}
	}
	return c.send(ctx, req, u.String(), withToken)
}

func (c *Client) send(ctx context.Context, req adapter.APIRequest, target string, withToken bool) (adapter.APIResponse, error) {
	attempts := c.o.RetryAttempts
	if req.RetryAttempts > 0 {
		attempts = req.RetryAttempts
	}
	var resp adapter.APIResponse
	var err error
	for i := 0; i < attempts; i++ {
		if i > 0 {
			if werr := sleep(ctx, c.delay(i)); werr != nil {
				break
			}
		}
		resp, err = c.tracedOnce(ctx, i, req, target, withToken)
		if err == nil && !retryable(resp.Status) {
			return resp, nil
		}
	}
	if err != nil {
		return resp, &adapter.TransportError{Err: err}
	}
	return resp, nil
}

// checkRedirect wraps the HTTP client's redirect policy (net/http's default:
// at most 10) so a redirect never carries the bearer token out of the API:
// net/http keeps Authorization for the same host on another port, or a
// path outside the API prefix.
func (c *Client) checkRedirect(next func(*http.Request, []*http.Request) error) func(*http.Request, []*http.Request) error {
	return func(req *http.Request, via []*http.Request) error {
		if next != nil {
			if err := next(req, via); err != nil {
				return err
			}
		} else if len(via) >= 10 {
			return errors.New("stopped after 10 redirects")
		}
		if !c.resolver.TokenAllowed(req.URL) {
			req.Header.Del("Authorization")
			for k := range c.o.DefaultHeaders {
				req.Header.Del(k)
			}
		}
		return nil
	}
}

func retryable(status int) bool { return status >= 500 || status == 429 || status == 408 }

func (c *Client) delay(attempt int) time.Duration {
	return min(retryDelay(c.o.RetryBackoff, c.o.BaseDelay, attempt), c.o.MaxDelay)
}

func (c *Client) once(ctx context.Context, req adapter.APIRequest, target string, withToken bool) (adapter.APIResponse, error) {
	timeout := c.o.Timeout
	if req.Timeout > 0 {
		timeout = time.Duration(req.Timeout)
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	hreq, err := http.NewRequestWithContext(ctx, req.Method, target, bytes.NewReader(req.Body))
	if err != nil {
		return adapter.APIResponse{}, err
	}
	if err := c.setHeaders(hreq, req, withToken); err != nil {
		return adapter.APIResponse{}, err
	}
	c.inject(ctx, hreq.Header)
	hresp, err := c.o.HTTPClient.Do(hreq)
	if err != nil {
		return adapter.APIResponse{}, err
	}
	defer hresp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(hresp.Body, 10<<20))
	if err != nil {
		return adapter.APIResponse{}, fmt.Errorf("reading answer: %w", err)
	}
	return adapter.APIResponse{Status: hresp.StatusCode, Body: body}, nil
}

// setHeaders sets the request's headers; the bearer token only when
// withToken (the request goes to the configured API).
func (c *Client) setHeaders(hreq *http.Request, req adapter.APIRequest, withToken bool) error {
	if len(req.Body) > 0 {
		hreq.Header.Set("Content-Type", "application/json")
	}
	hreq.Header.Set("Accept", "application/json")
	hreq.Header.Set("User-Agent", c.o.UserAgent)
	if withToken {
		for k, v := range c.o.DefaultHeaders {
			hreq.Header.Set(k, v)
		}
	}
	for k, v := range req.Headers {
		hreq.Header.Set(k, v)
	}
	if c.token == nil || !withToken {
		return nil
	}
	tok, err := c.token.read()
	if err != nil {
		return err
	}
	hreq.Header.Set("Authorization", "Bearer "+tok)
	return nil
}

func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
