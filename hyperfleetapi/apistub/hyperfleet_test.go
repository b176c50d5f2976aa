package apistub

import (
	"context"
	"strings"
	"testing"

	"github.com/bundle-adapter/bundle-adapter/adapter"
)

// HyperFleet adapter's responses format: the first endpoint whose method
// (or "*") and expression match answers, its responses in turn and the last
// one repeated; status 0 is 200; what matches nothing answers 200 {}.
func TestLoadHyperFleetFormat(t *testing.T) {
	const file = `{"responses": [
	  {"match": {"method": "GET", "urlPattern": "/clusters/c1$"},
	   "responses": [{"statusCode": 503}, {"statusCode": 200, "body": {"id": "c1"}}]},
	  {"match": {"method": "*", "urlPattern": "/statuses"}, "responses": [{"statusCode": 0}]}
	]}`
	s, err := Load(strings.NewReader(file), "v1")
	if err != nil {
		t.Fatal(err)
	}
	steps := []struct {
		method, url string
		status      int
		body        string
	}{
		{"GET", "/clusters/c1", 503, ""},
		{"GET", "/clusters/c1", 200, `{"id": "c1"}`},
		{"GET", "/clusters/c1", 200, `{"id": "c1"}`},
		{"PUT", "/clusters/c1/statuses", 200, "{}"},
		{"GET", "/clusters/other", 200, "{}"},
	}
	for i, st := range steps {
		resp, err := s.Do(context.Background(), adapter.APIRequest{Method: st.method, URL: st.url})
		if err != nil || resp.Status != st.status || (st.body != "" && string(resp.Body) != st.body) {
			t.Errorf("step %d %s %s: %d %s %v, want %d %s", i, st.method, st.url, resp.Status, resp.Body, err, st.status, st.body)
		}
	}
}

func TestLoadHyperFleetFormatErrors(t *testing.T) {
	tests := []struct{ file, want string }{
		{`{"responses": [{"match": {"method": "GET", "urlPattern": "("}, "responses": [{}]}]}`, "responses[0].match.urlPattern"},
		{`{"responses": [{"match": {"urlPattern": "/x"}, "responses": [{}]}]}`, "needs a match.method"},
		{`{"responses": [{"match": {"method": "GET", "urlPattern": "/x"}, "responses": []}]}`, "at least one response"},
		{`{"responses": [{"match": {"method": "GET", "urlPattern": "/x"}, "responses": [{"statusCode": 99}]}]}`, "not an HTTP status"},
	}
	for _, tt := range tests {
		if _, err := Load(strings.NewReader(tt.file), "v1"); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: error %v, want %q", tt.file, err, tt.want)
		}
	}
}
