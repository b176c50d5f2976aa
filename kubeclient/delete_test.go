package kubeclient

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"testing"

	"github.com/bundle-adapter/bundle-adapter/adapter"
)

func TestDeletePropagation(t *testing.T) {
	cases := []struct {
		given, sent string
		want        error
	}{
		{"", "Background", nil},
		{"Background", "Background", nil},
		{"Foreground", "Foreground", nil},
		{"Orphan", "Orphan", nil},
		{"background", "", adapter.ErrInvalid},
		{"Sideways", "", adapter.ErrInvalid},
	}
	for _, c := range cases {
		t.Run("propagation="+c.given, func(t *testing.T) {
			var sent string
			var requests int
			f := newFakeServer(t, func(w http.ResponseWriter, r *http.Request) {
				requests++
				var opts struct{ PropagationPolicy string }
				raw, _ := io.ReadAll(r.Body)
				_ = json.Unmarshal(raw, &opts)
				sent = opts.PropagationPolicy
				writeJSON(w, http.StatusOK, configMapJSON("ns1", "cm1", nil))
			})
			err := f.client(t, Options{}).Delete(context.Background(), cmRef, c.given)
			if !errors.Is(err, c.want) || (c.want == nil) != (err == nil) {
				t.Fatalf("Delete: %v, want %v", err, c.want)
			}
			if c.want != nil {
				if requests != 0 {
					t.Errorf("an invalid propagation still sent %d requests", requests)
				}
				return
			}
			if sent != c.sent {
				t.Errorf("propagationPolicy sent %q, want %q", sent, c.sent)
			}
		})
	}
}

// A uid in the ref travels as the delete's precondition; the API server's
// refusal (409 Conflict, another object holds the name) is ErrNotFound.
func TestDeleteUIDPrecondition(t *testing.T) {
	var sent string
	f := newFakeServer(t, func(w http.ResponseWriter, r *http.Request) {
		var opts struct {
			Preconditions struct{ UID *string }
		}
		raw, _ := io.ReadAll(r.Body)
		_ = json.Unmarshal(raw, &opts)
		if opts.Preconditions.UID == nil {
			sent = ""
			writeJSON(w, http.StatusOK, configMapJSON("ns1", "cm1", nil))
			return
		}
		sent = *opts.Preconditions.UID
		writeStatus(w, http.StatusConflict, "Conflict", "Precondition failed: UID in precondition: "+sent+", UID in object meta: other")
	})
	c := f.client(t, Options{})
	if err := c.Delete(context.Background(), cmRef, ""); err != nil || sent != "" {
		t.Fatalf("Delete without uid: %v, precondition %q sent", err, sent)
	}
	ref := cmRef
	ref.UID = "uid-old"
	err := c.Delete(context.Background(), ref, "")
	if sent != "uid-old" {
		t.Errorf("precondition uid sent %q, want uid-old", sent)
	}
	if !errors.Is(err, adapter.ErrNotFound) || errors.Is(err, adapter.ErrUnavailable) {
		t.Errorf("Delete refused by the uid precondition: %v, want ErrNotFound only", err)
	}
}
