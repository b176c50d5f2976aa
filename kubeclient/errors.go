package kubeclient

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"syscall"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"

	"github.com/bundle-adapter/bundle-adapter/adapter"
	"github.com/bundle-adapter/bundle-adapter/kubeclient/kubeerr"
)

// classify wraps err of operation op on ref with the adapter sentinel it
// means (worded as Kubernetes', see kubeerr) and with op, kind, namespace and name; the original error (and the
// API server's message in it) stays in the chain. An error with no sentinel
// (401, 403: retrying cannot help, nor is the request malformed) is wrapped
// with the context only.
func classify(op string, ref adapter.KubeRef, err error) error {
	if err == nil {
		return nil
	}
	where := fmt.Sprintf("kubernetes %s %s", op, describe(ref))
	if s := sentinelFor(err); s != nil && !errors.Is(err, s) {
		return kubeerr.Wrap(s, "%s: %w", where, err)
	}
	return fmt.Errorf("%s: %w", where, err)
}

// sentinelFor maps an error of client-go (or of the mapper) to an adapter
// sentinel: 404 ErrNotFound; 409 AlreadyExists ErrAlreadyExists; 400, 405,
// 406, 413, 415, 422 and an unknown kind ErrInvalid; 429, 5xx, timeouts and
// transport failures ErrUnavailable. A 409 Conflict (the object changed
// since it was read) is ErrUnavailable: a fresh read and a new try succeed.
func sentinelFor(err error) error {
	for _, s := range []error{adapter.ErrNotFound, adapter.ErrAlreadyExists, adapter.ErrUnderDeletion, adapter.ErrInvalid, adapter.ErrUnavailable} {
		if errors.Is(err, s) {
			return s
		}
	}
	switch {
	case errors.Is(err, context.Canceled):
		return nil
	case meta.IsNoMatchError(err), errors.Is(err, errResponseTooLarge):
		return adapter.ErrInvalid
	case apierrors.IsNotFound(err):
		return adapter.ErrNotFound
	case apierrors.IsAlreadyExists(err):
		return adapter.ErrAlreadyExists
	case apierrors.IsConflict(err):
		return adapter.ErrUnavailable
	case apierrors.IsBadRequest(err), apierrors.IsInvalid(err), apierrors.IsMethodNotSupported(err),
		apierrors.IsNotAcceptable(err), apierrors.IsUnsupportedMediaType(err), apierrors.IsRequestEntityTooLargeError(err):
		return adapter.ErrInvalid
	case apierrors.IsUnauthorized(err), apierrors.IsForbidden(err):
		return nil
	case apierrors.IsTooManyRequests(err), apierrors.IsServerTimeout(err), apierrors.IsTimeout(err),
		apierrors.IsInternalError(err), apierrors.IsServiceUnavailable(err), apierrors.IsUnexpectedServerError(err):
		return adapter.ErrUnavailable
	}
	if code := statusCode(err); code >= http.StatusInternalServerError {
		return adapter.ErrUnavailable
	}
	if transportFailure(err) {
		return adapter.ErrUnavailable
	}
	return nil
}

func statusCode(err error) int {
	var st apierrors.APIStatus
	if errors.As(err, &st) {
		return int(st.Status().Code)
	}
	return 0
}

// transportFailure reports an error of the connection rather than an answer
// of the server: refused, reset, timed out, cut short, unresolvable.
func transportFailure(err error) bool {
	var netErr net.Error
	var dnsErr *net.DNSError
	var opErr *net.OpError
	return errors.Is(err, context.DeadlineExceeded) ||
		errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) ||
		errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE) ||
		errors.As(err, &netErr) || errors.As(err, &dnsErr) || errors.As(err, &opErr)
}

func describe(ref adapter.KubeRef) string {
	if ref.Namespace == "" {
		return fmt.Sprintf("%s %s %s", ref.APIVersion, ref.Kind, ref.Name)
	}
	return fmt.Sprintf("%s %s %s/%s", ref.APIVersion, ref.Kind, ref.Namespace, ref.Name)
}
