package health

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// /readyz is unauthenticated: a failing HTTP check's error names its URL
// redacted, never a password or a token written as the user name (issue
// 28: "/config shows nothing a dump would not", and /readyz neither).
func TestHTTPCheckErrorsRedactURL(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(503) }))
	defer srv.Close()
	host := strings.TrimPrefix(srv.URL, "http://")
	for _, u := range []string{
		"http://S3CRET-tok@" + host + "/api",       // answers 503
		"http://svc:S3CRET-pw@" + host + "/api",    // answers 503
		"http://S3CRET-tok@127.0.0.1:1/api",        // unreachable
		"http://svc:S3CRET-pw@127.0.0.1:1/api?x=1", // unreachable
		"http://svc:S3CRET-pw@127.0.0.1:1/api?token=S3CRET-q",
	} {
		h := New(map[string]Check{"api": HTTPCheck(http.DefaultClient, u)}, nil, Options{CacheFor: time.Millisecond})
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest("GET", "/readyz", nil).WithContext(context.Background()))
		if rec.Code != 503 || strings.Contains(rec.Body.String(), "S3CRET") {
			t.Errorf("%s: /readyz = %d:\n%s", u, rec.Code, rec.Body.String())
		}
	}
}
