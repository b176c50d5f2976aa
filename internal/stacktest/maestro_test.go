package stacktest

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
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

// ListBundles pages through the bundles matching the search, hands each
// over as Maestro sent it, and asks for the first page alone when only the
// total is wanted.
func TestListBundles(t *testing.T) {
	for _, tc := range []struct {
		name      string
		total     int
		status    int
		each      bool
		wantItems []string
		wantPages []string
		wantErr   string
	}{
		{name: "two pages", total: 3, status: http.StatusOK, each: true,
			wantItems: []string{`{"n":1}`, `{"n":2}`, `{"n":3}`}, wantPages: []string{"1", "2"}},
		{name: "total alone", total: 3, status: http.StatusOK, wantPages: []string{"1"}},
		{name: "none", total: 0, status: http.StatusOK, each: true, wantPages: []string{"1"}},
		{name: "refused", status: http.StatusBadRequest, each: true, wantPages: []string{"1"},
			wantErr: "list resource bundles: HTTP 400: bad search"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var pages []string
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				q := r.URL.Query()
				if r.URL.Path != "/api/maestro/v1/resource-bundles" || q.Get("search") != "source='s'" || q.Get("size") != "2" {
					t.Errorf("request %s", r.URL)
				}
				pages = append(pages, q.Get("page"))
				if tc.status != http.StatusOK {
					http.Error(w, "bad search", tc.status)
					return
				}
				var items []string
				for i := 1; i <= tc.total; i++ {
					if q.Get("page") == map[bool]string{true: "1", false: "2"}[i <= 2] {
						items = append(items, fmt.Sprintf(`{"n":%d}`, i))
					}
				}
				fmt.Fprintf(w, `{"total":%d,"items":[%s]}`, tc.total, strings.Join(items, ","))
			}))
			defer srv.Close()
			var got []string
			var each func(Bundle)
			if tc.each {
				each = func(b Bundle) { got = append(got, string(b.Raw)) }
			}
			total, err := ListBundles(context.Background(), srv.URL, "source='s'", 2, each)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err %v, want %q", err, tc.wantErr)
				}
			} else if err != nil || total != tc.total {
				t.Fatalf("ListBundles = %d, %v; want %d", total, err, tc.total)
			}
			if !slices.Equal(got, tc.wantItems) || !slices.Equal(pages, tc.wantPages) {
				t.Errorf("items %q pages %q, want %q %q", got, pages, tc.wantItems, tc.wantPages)
			}
		})
	}
}

// A listed bundle reads its name, consumer, deletion and conditions.
func TestListBundlesDecodes(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `{"total":1,"items":[{"id":"u1","consumer_name":"c1","deleted_at":"2026-01-01T00:00:00Z",
			"metadata":{"name":"x-setup","annotations":{"a":"b"}},
			"status":{"conditions":[{"type":"Applied","status":"True"},{"type":"Available","status":"False"}]}}]}`)
	}))
	defer srv.Close()
	var got []Bundle
	if _, err := ListBundles(context.Background(), srv.URL, "source='s'", 10, func(b Bundle) { got = append(got, b) }); err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 {
		t.Fatalf("got %d bundles", len(got))
	}
	b := got[0]
	if b.ID != "u1" || b.Consumer != "c1" || b.DeletedAt == "" || b.Metadata.Name != "x-setup" || b.Metadata.Annotations["a"] != "b" ||
		b.Condition("Applied") != "True" || b.Condition("Available") != "False" || b.Condition("Deleted") != "" || len(b.Raw) == 0 {
		t.Errorf("got %+v", b)
	}
}
