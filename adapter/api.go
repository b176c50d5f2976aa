package adapter

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
)

// API is the boundary to the HyperFleet API.
//
// Do sends one request and returns the response whatever its status code;
// implementations retry transport failures and 5xx answers within their own
// bounded policy, and the error is non-nil only when no response was
// obtained. URL is absolute, or relative ("/clusters/x"), which the
// implementation resolves against its base URL and API prefix.
type API interface {
	Do(ctx context.Context, req APIRequest) (APIResponse, error)
}

// APIRequest is one call described by a task config api_call.
type APIRequest struct {
	Method  string
	URL     string
	Body    []byte
	Headers map[string]string
	// Timeout and RetryAttempts override the client's defaults when non-zero.
	Timeout       int64 // nanoseconds
	RetryAttempts int
}

// APIResponse is the status and body of an answered request.
type APIResponse struct {
	Status int
	Body   []byte
}

// APIError is a non-2xx answer. Transient reports whether retrying later may
// help (5xx, 429, 408).
type APIError struct {
	Method, URL string
	Status      int
	Body        string
}

func (e *APIError) Error() string {
	body := e.Body
	if len(body) > 200 {
		body = body[:200] + "..."
	}
	return fmt.Sprintf("HyperFleet API %s %s answered %d: %s", e.Method, e.URL, e.Status, body)
}

// Transient reports whether the failure may pass on its own.
func (e *APIError) Transient() bool {
	return e.Status >= 500 || e.Status == 429 || e.Status == 408
}

func checkStatus(req APIRequest, resp APIResponse) error {
	if resp.Status >= 200 && resp.Status < 300 {
		return nil
	}
	return &APIError{Method: req.Method, URL: req.URL, Status: resp.Status, Body: string(resp.Body)}
}

// ReasonResourceNotFound is the skip reason (adapter.skipReason) when the
// HyperFleet API answers 404 for the event's resource: it was deleted.
const ReasonResourceNotFound = "ResourceNotFound"

// brokenEndpointCode is the HyperFleet API's problem-details code of a 404
// that matched no route: the URL is wrong, not the resource gone.
const brokenEndpointCode = "HYPERFLEET-NTF-000"

// IsResourceNotFound reports whether err is a 404 answer meaning the
// resource does not exist, as hyperfleet-adapter decides it: every 404
// (also one whose body a proxy stripped) except a problem-details body with
// code HYPERFLEET-NTF-000 (no route matched: a misconfigured URL, which
// stays an error).
func IsResourceNotFound(err error) bool {
	var apiErr *APIError
	if !errors.As(err, &apiErr) || apiErr.Status != 404 {
		return false
	}
	var pd struct {
		Code string `json:"code"`
	}
	if json.Unmarshal([]byte(apiErr.Body), &pd) == nil && pd.Code == brokenEndpointCode {
		return false
	}
	return true
}

// isTransient classifies an error for redelivery: Maestro unavailable, API
// transport failures and transient statuses, timeouts.
func isTransient(err error) bool {
	if err == nil {
		return false
	}
	var apiErr *APIError
	if errors.As(err, &apiErr) {
		return apiErr.Transient()
	}
	if errors.Is(err, ErrUnavailable) || errors.Is(err, context.DeadlineExceeded) {
		return true
	}
	var transport *TransportError
	return errors.As(err, &transport)
}

// TransportError wraps a failure to reach the HyperFleet API at all.
type TransportError struct{ Err error }

func (e *TransportError) Error() string { return "HyperFleet API unreachable: " + e.Err.Error() }
func (e *TransportError) Unwrap() error { return e.Err }

// RefusedError is a request that was never sent because it could never be
// right: its URL leaves the configured HyperFleet API (another origin, a
// ".." segment, outside the API prefix), is not a valid URL, or carries a
// header value no HTTP server accepts. Sending it again cannot help: it is
// permanent, never transient, and the event that produced it is
// dead-lettered. Reason never contains credentials.
type RefusedError struct {
	Method, URL string
	Reason      string
}

func (e *RefusedError) Error() string {
	return fmt.Sprintf("HyperFleet API %s %.200q refused, not sent: %s", e.Method, e.URL, e.Reason)
}
