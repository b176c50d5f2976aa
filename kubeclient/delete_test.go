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
