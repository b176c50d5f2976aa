package maestroclient

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"testing"

	"github.com/openshift-online/maestro/pkg/api/openapi"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"
	cloudeventserrors "open-cluster-management.io/sdk-go/pkg/cloudevents/clients/errors"

	"github.com/bundle-adapter/bundle-adapter/adapter"
)

var gr = schema.GroupResource{Group: "work.open-cluster-management.io", Resource: "manifestworks"}

// publishErr builds the error the work client returns when Maestro refuses a
// published event: the server's text inside a gRPC Unknown status.
func publishErr(serverText string) error {
	return cloudeventserrors.NewPublishError(gr, "b", fmt.Errorf("rpc error: code = Unknown desc = %s", serverText))
}

func TestClassify(t *testing.T) {
	tests := []struct {
		name string
		err  error
		want error // nil: no sentinel
	}{
		{"fk violation (measured)", publishErr(`failed to create resource: maestro-9: Unable to create Resource: ERROR: insert or update on table "resources" violates foreign key constraint "fk_resources_consumers" (SQLSTATE 23503)`), adapter.ErrConsumerNotRegistered},
		{"update while deleting (measured)", publishErr("failed to update resource: maestro-6: the resource is under deletion, id: x"), adapter.ErrUnderDeletion},
		{"stale version (measured)", publishErr("failed to update resource: maestro-6: the resource version is not the latest, the latest version: 2"), errVersionConflict},
		{"create race on the server", publishErr("failed to create resource: maestro-6: This Resource already exists"), adapter.ErrAlreadyExists},
		{"exists in the client's read", apierrors.NewAlreadyExists(gr, "b"), adapter.ErrAlreadyExists},
		{"patch of a missing bundle", apierrors.NewNotFound(gr, "b"), adapter.ErrNotFound},
		{"client-side validation", apierrors.NewInvalid(schema.GroupKind{Group: gr.Group, Kind: "ManifestWork"}, "b", nil), adapter.ErrInvalid},
		{"server-side validation", publishErr("failed to create resource: maestro-8: the manifest bundle in the resource is invalid"), adapter.ErrInvalid},
		{"server general error", publishErr("failed to create resource: maestro-9: Unable to create Resource: boom"), adapter.ErrUnavailable},
		{"advisory lock", publishErr("failed to update resource: maestro-26: Database advisory lock error"), adapter.ErrUnavailable},
		{"grpc down", cloudeventserrors.NewPublishError(gr, "b", errors.New("the cloudevents client is not ready")), adapter.ErrUnavailable},
		{"grpc unavailable", cloudeventserrors.NewPublishError(gr, "b", errors.New("rpc error: code = Unavailable desc = connection error")), adapter.ErrUnavailable},
		{"rest down in the client's read", apierrors.NewInternalError(errors.New(`Get "http://127.0.0.1:8000/x": dial tcp 127.0.0.1:8000: connect: connection refused`)), adapter.ErrUnavailable},
		{"other internal error", apierrors.NewInternalError(errors.New("something odd")), adapter.ErrUnavailable},
		{"forbidden", publishErr("unauthorized to publish the event from source s"), nil},
		{"deadline", fmt.Errorf("publish: %w", context.DeadlineExceeded), adapter.ErrUnavailable},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := classify(tt.err)
			if !errors.Is(got, tt.err) {
				t.Errorf("classify lost the original error: %v", got)
			}
			for _, s := range []error{adapter.ErrNotFound, adapter.ErrAlreadyExists, adapter.ErrUnderDeletion,
				adapter.ErrConsumerNotRegistered, adapter.ErrUnavailable, adapter.ErrInvalid} {
				if want := tt.want != nil && errors.Is(tt.want, s); errors.Is(got, s) != want {
					t.Errorf("errors.Is(%v, %v) = %v, want %v", got, s, !want, want)
				}
			}
		})
	}
	if err := classify(context.Canceled); err != context.Canceled {
		t.Errorf("cancellation must pass through, got %v", err)
	}
	if classify(nil) != nil {
		t.Error("nil must stay nil")
	}
}

func TestClassifyHTTP(t *testing.T) {
	body := &openapi.GenericOpenAPIError{}
	tests := []struct {
		code int
		want error
	}{
		{http.StatusNotFound, adapter.ErrNotFound},
		{http.StatusBadRequest, adapter.ErrInvalid},
		{http.StatusInternalServerError, adapter.ErrUnavailable},
		{http.StatusServiceUnavailable, adapter.ErrUnavailable},
		{http.StatusTooManyRequests, adapter.ErrUnavailable},
		{http.StatusForbidden, nil},
	}
	for _, tt := range tests {
		t.Run(http.StatusText(tt.code), func(t *testing.T) {
			err := classifyHTTP(&http.Response{StatusCode: tt.code}, body)
			if tt.want == nil {
				if errors.Is(err, adapter.ErrUnavailable) || errors.Is(err, adapter.ErrNotFound) {
					t.Errorf("got %v, want no sentinel", err)
				}
				return
			}
			if !errors.Is(err, tt.want) {
				t.Errorf("got %v, want %v", err, tt.want)
			}
		})
	}
	if err := classifyHTTP(nil, errors.New("dial tcp: connection refused")); !errors.Is(err, adapter.ErrUnavailable) {
		t.Errorf("transport error: got %v", err)
	}
}
