package stacktest

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
)

func TestRegisterConsumers(t *testing.T) {
	for _, tc := range []struct {
		name    string
		status  int
		wantErr string
	}{
		{"created", http.StatusCreated, ""},
		{"ok", http.StatusOK, ""},
		{"exists", http.StatusConflict, ""},
		{"refused", http.StatusBadRequest, "register consumer c1: HTTP 400: no"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var mu sync.Mutex
			var got []string
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				var body struct{ Name string }
				if r.Method != http.MethodPost || r.URL.Path != "/api/maestro/v1/consumers" ||
					json.NewDecoder(r.Body).Decode(&body) != nil {
					t.Errorf("unexpected request %s %s", r.Method, r.URL.Path)
				}
				mu.Lock()
				got = append(got, body.Name)
				mu.Unlock()
				w.WriteHeader(tc.status)
				_, _ = w.Write([]byte("no"))
			}))
			defer srv.Close()
			err := RegisterConsumers(context.Background(), srv.URL, []string{"c1", "c2"})
			if tc.wantErr == "" && err != nil || tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)) {
				t.Fatalf("err = %v, want %q", err, tc.wantErr)
			}
			want := "c1,c2"
			if tc.wantErr != "" {
				want = "c1"
			}
			if strings.Join(got, ",") != want {
				t.Fatalf("registered %v, want %s", got, want)
			}
		})
	}
}
