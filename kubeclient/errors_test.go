package kubeclient

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"

	"github.com/bundle-adapter/bundle-adapter/adapter"
)

var cmRef = adapter.KubeRef{APIVersion: "v1", Kind: "ConfigMap", Namespace: "ns1", Name: "cm1"}

// TestStatusMapping: each answer of the API server maps to the sentinel the
// adapter.Kube contract names, and the error keeps kind, namespace, name and
// the server's message.
func TestStatusMapping(t *testing.T) {
	cases := []struct {
		code   int
		reason metav1.StatusReason
		want   error // nil: no sentinel
	}{
		{http.StatusNotFound, metav1.StatusReasonNotFound, adapter.ErrNotFound},
		{http.StatusConflict, metav1.StatusReasonAlreadyExists, adapter.ErrAlreadyExists},
		{http.StatusConflict, metav1.StatusReasonConflict, adapter.ErrUnavailable},
		{http.StatusBadRequest, metav1.StatusReasonBadRequest, adapter.ErrInvalid},
		{http.StatusUnprocessableEntity, metav1.StatusReasonInvalid, adapter.ErrInvalid},
		{http.StatusRequestEntityTooLarge, metav1.StatusReasonRequestEntityTooLarge, adapter.ErrInvalid},
		{http.StatusUnsupportedMediaType, metav1.StatusReasonUnsupportedMediaType, adapter.ErrInvalid},
		{http.StatusTooManyRequests, metav1.StatusReasonTooManyRequests, adapter.ErrUnavailable},
		{http.StatusInternalServerError, metav1.StatusReasonInternalError, adapter.ErrUnavailable},
		{http.StatusServiceUnavailable, metav1.StatusReasonServiceUnavailable, adapter.ErrUnavailable},
		{http.StatusGatewayTimeout, metav1.StatusReasonTimeout, adapter.ErrUnavailable},
		{http.StatusBadGateway, "", adapter.ErrUnavailable},
		{http.StatusUnauthorized, metav1.StatusReasonUnauthorized, nil},
		{http.StatusForbidden, metav1.StatusReasonForbidden, nil},
	}
	for _, c := range cases {
		t.Run(http.StatusText(c.code)+"/"+string(c.reason), func(t *testing.T) {
			f := newFakeServer(t, func(w http.ResponseWriter, r *http.Request) {
				writeStatus(w, c.code, c.reason, "server says no-"+http.StatusText(c.code))
			})
			_, err := f.client(t, Options{Timeout: 5 * time.Second}).Get(context.Background(), cmRef)
			if err == nil {
				t.Fatal("Get succeeded")
			}
			for _, s := range []error{adapter.ErrNotFound, adapter.ErrAlreadyExists, adapter.ErrInvalid, adapter.ErrUnavailable, adapter.ErrUnderDeletion} {
				if got, want := errors.Is(err, s), s == c.want; got != want {
					t.Errorf("errors.Is(err, %q) = %v, want %v; err: %v", s, got, want, err)
				}
			}
			for _, part := range []string{"get", "ConfigMap", "ns1/cm1", "server says no"} {
				if !strings.Contains(err.Error(), part) {
					t.Errorf("error %q lacks %q", err, part)
				}
			}
		})
	}
}

func TestTransportFailureIsUnavailable(t *testing.T) {
	f := newFakeServer(t, nil)
	c := f.client(t, Options{Timeout: 2 * time.Second})
	f.srv.Close()
	_, err := c.Get(context.Background(), cmRef)
	if !errors.Is(err, adapter.ErrUnavailable) {
		t.Errorf("Get against a closed server: %v, want ErrUnavailable", err)
	}
}

func TestTimeoutIsUnavailable(t *testing.T) {
	release := make(chan struct{})
	f := newFakeServer(t, func(w http.ResponseWriter, r *http.Request) { <-release })
	defer close(release)
	c, err := NewForConfig(&rest.Config{Host: f.srv.URL}, Options{Timeout: 300 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.Get(context.Background(), cmRef)
	if !errors.Is(err, adapter.ErrUnavailable) {
		t.Errorf("Get of a server that never answers: %v, want ErrUnavailable", err)
	}
}

func TestUnknownKindIsInvalid(t *testing.T) {
	f := newFakeServer(t, nil)
	c := f.client(t, Options{})
	ref := adapter.KubeRef{APIVersion: "example.com/v1", Kind: "Gadget", Namespace: "ns1", Name: "g"}
	_, err := c.Get(context.Background(), ref)
	if !errors.Is(err, adapter.ErrInvalid) || !strings.Contains(err.Error(), "Gadget") {
		t.Errorf("Get of an unknown kind: %v, want ErrInvalid naming Gadget", err)
	}
}

func TestNamespacedKindWithoutNamespaceIsInvalid(t *testing.T) {
	f := newFakeServer(t, nil)
	ref := cmRef
	ref.Namespace = ""
	_, err := f.client(t, Options{}).Get(context.Background(), ref)
	if !errors.Is(err, adapter.ErrInvalid) || !strings.Contains(err.Error(), "namespace") {
		t.Errorf("Get of a ConfigMap without namespace: %v, want ErrInvalid about the namespace", err)
	}
}
