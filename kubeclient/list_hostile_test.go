package kubeclient

import (
	"context"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/bundle-adapter/bundle-adapter/adapter"
)

// A server that keeps answering with a continue token holds no worker
// (issue 28 #11): List follows at most maxListPages pages, and a token it
// was already given ends it at once, each as ErrInvalid naming why.
func TestListContinueLoops(t *testing.T) {
	cases := []struct {
		name  string
		token func(n int64) string
		items int
		want  string
	}{
		{"empty pages, new token each", func(n int64) string { return "t" + strconv.FormatInt(n, 10) }, 0, "pages"},
		{"empty pages, the same token", func(int64) string { return "again" }, 0, "continue token"},
		{"one item a page, new token each", func(n int64) string { return "t" + strconv.FormatInt(n, 10) }, 1, "pages"},
		{"tokens cycling", func(n int64) string { return "t" + strconv.FormatInt(n%3, 10) }, 0, "continue token"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var requests atomic.Int64
			f := newFakeServer(t, func(w http.ResponseWriter, r *http.Request) {
				n := requests.Add(1)
				var items []any
				for i := 0; i < c.items; i++ {
					items = append(items, configMapJSON("ns1", "cm-"+strconv.FormatInt(n, 10)+"-"+strconv.Itoa(i), map[string]any{}))
				}
				writeJSON(w, http.StatusOK, map[string]any{"apiVersion": "v1", "kind": "ConfigMapList",
					"metadata": map[string]any{"continue": c.token(n)}, "items": items})
			})
			done := make(chan error, 1)
			go func() {
				_, err := f.client(t, Options{MaxListItems: 1000}).List(context.Background(), cmRef, map[string]string{"app": "x"})
				done <- err
			}()
			select {
			case err := <-done:
				if !errors.Is(err, adapter.ErrInvalid) || !strings.Contains(err.Error(), c.want) {
					t.Fatalf("List: %v, want ErrInvalid containing %q", err, c.want)
				}
				if n := requests.Load(); n > maxListPages(1000)+1 {
					t.Errorf("%d requests, want at most %d", n, maxListPages(1000)+1)
				}
			case <-time.After(10 * time.Second):
				t.Fatalf("List still paging after 10s (%d requests)", requests.Load())
			}
		})
	}
}
