package maestroclient

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"regexp"
	"strconv"
	"strings"

	"github.com/openshift-online/maestro/pkg/api/openapi"
	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/bundle-adapter/bundle-adapter/adapter"
)

// errVersionConflict marks an update computed from a stale observed bundle.
// It wraps adapter.ErrUnavailable (a fresh read and a new try succeed) but is
// not retried inside the client, which would send the same stale patch.
var errVersionConflict = fmt.Errorf("%w: version conflict, the bundle changed since it was read", adapter.ErrUnavailable)

// maestroCode matches the service error code Maestro puts in messages,
// such as "maestro-6: the resource is under deletion".
var maestroCode = regexp.MustCompile(`(?i)\bmaestro-(\d+):`)

// textRules map message fragments of the server and the libraries to a
// sentinel, first match wins. The gRPC publish path carries no status code:
// the server's answer reaches the client only as text.
var textRules = []struct {
	fragment string
	sentinel error
}{
	{"fk_resources_consumers", adapter.ErrConsumerNotRegistered},
	{"violates foreign key constraint", adapter.ErrConsumerNotRegistered},
	{"under deletion", adapter.ErrUnderDeletion},
	{"already exists", adapter.ErrAlreadyExists},
	{"resource version is not the latest", errVersionConflict},
	{"context deadline exceeded", adapter.ErrUnavailable},
	{"connection refused", adapter.ErrUnavailable},
	{"cloudevents client is not ready", adapter.ErrUnavailable},
	{"code = unavailable", adapter.ErrUnavailable},
	{"code = deadlineexceeded", adapter.ErrUnavailable},
	{"connection reset", adapter.ErrUnavailable},
	{"broken pipe", adapter.ErrUnavailable},
	{": eof", adapter.ErrUnavailable},
	{"unexpected eof", adapter.ErrUnavailable},
	{"no such host", adapter.ErrUnavailable},
	{"i/o timeout", adapter.ErrUnavailable},
	{"advisory lock", adapter.ErrUnavailable},
}

// classify maps an error of the work client (create, patch, delete) to an
// adapter sentinel, wrapping the original for its message.
func classify(err error) error {
	if err == nil || errors.Is(err, context.Canceled) {
		return err
	}
	if errors.Is(err, context.DeadlineExceeded) {
		return fmt.Errorf("%w: %w", adapter.ErrUnavailable, err)
	}
	if s := sentinelFor(err); s != nil {
		return fmt.Errorf("%w: %w", s, err)
	}
	return err
}

// waitEnded is the error of a call whose context ended while it waited for
// what (a read slot, the shared work client, the write budget): a deadline
// is ErrUnavailable, as a request that timed out is (the event is
// redelivered later); a cancellation is context.Canceled without a
// sentinel. Every wait of this package on a context ends through it
// (TestEveryWaitEndsClassified), and a retry's backoff wraps the last
// failure instead (call).
func waitEnded(what string, err error) error {
	if errors.Is(err, context.Canceled) {
		return fmt.Errorf("%s: %w", what, err)
	}
	return fmt.Errorf("%w: %s: %w", adapter.ErrUnavailable, what, err)
}

// permanent lists fragments of refusals no retry can fix and no sentinel
// describes: authentication and authorization (but see authorizerUnavailable).
var permanent = []string{"unauthorized", "unauthenticated", "failed to authorize", "forbidden"}

func sentinelFor(err error) error {
	msg := strings.ToLower(err.Error())
	if authorizerUnavailable(msg) {
		return adapter.ErrUnavailable
	}
	for _, p := range permanent {
		if strings.Contains(msg, p) {
			return nil
		}
	}
	for _, r := range textRules {
		if strings.Contains(msg, r.fragment) {
			return r.sentinel
		}
	}
	if m := maestroCode.FindStringSubmatch(msg); m != nil {
		code, _ := strconv.Atoi(m[1])
		return sentinelForMaestroCode(code)
	}
	return sentinelForStatus(err)
}

// sentinelForMaestroCode maps Maestro's ServiceErrorCode (pkg/errors).
func sentinelForMaestroCode(code int) error {
	switch code {
	case 7:
		return adapter.ErrNotFound
	case 8, 17, 21, 23:
		return adapter.ErrInvalid
	case 9, 26:
		return adapter.ErrUnavailable
	}
	return nil
}

// sentinelForStatus maps the Kubernetes status errors the work client builds.
func sentinelForStatus(err error) error {
	switch {
	case apierrors.IsNotFound(err):
		return adapter.ErrNotFound
	case apierrors.IsAlreadyExists(err):
		return adapter.ErrAlreadyExists
	case apierrors.IsInvalid(err), apierrors.IsBadRequest(err):
		return adapter.ErrInvalid
	case apierrors.IsConflict(err):
		return errVersionConflict
	}
	var status apierrors.APIStatus
	if errors.As(err, &status) && status.Status().Code >= http.StatusInternalServerError {
		return adapter.ErrUnavailable
	}
	return nil
}

// classifyHTTP maps a REST call failure. resp is nil on transport errors.
func classifyHTTP(resp *http.Response, err error) error {
	if errors.Is(err, context.Canceled) {
		return err
	}
	if resp == nil {
		return fmt.Errorf("%w: %w", adapter.ErrUnavailable, err)
	}
	err = fmt.Errorf("HTTP %d: %s", resp.StatusCode, restReason(err))
	switch code := resp.StatusCode; {
	case code == http.StatusNotFound:
		return fmt.Errorf("%w: %w", adapter.ErrNotFound, err)
	case code == http.StatusBadRequest:
		return fmt.Errorf("%w: %w", adapter.ErrInvalid, err)
	case code >= 500, code == http.StatusTooManyRequests, code == http.StatusRequestTimeout:
		return fmt.Errorf("%w: %w", adapter.ErrUnavailable, err)
	}
	return err
}

// restReason extracts Maestro's reason from a REST error body.
func restReason(err error) string {
	var apiErr *openapi.GenericOpenAPIError
	if errors.As(err, &apiErr) {
		if m, ok := apiErr.Model().(openapi.Error); ok && m.Reason != nil {
			return *m.Reason
		}
	}
	return err.Error()
}
