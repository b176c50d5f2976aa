package apistub

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"strings"
)

// hyperfleetFile is HyperFleet adapter's dry-run responses file:
// {"responses": [{"match": {"method": "GET", "urlPattern": "/clusters/.*"},
// "responses": [{"statusCode": 200, "headers": {...}, "body": {...}}]}]}.
type hyperfleetFile struct {
	Responses []struct {
		Match struct {
			Method     string `json:"method"`
			URLPattern string `json:"urlPattern"`
		} `json:"match"`
		Responses []struct {
			StatusCode int               `json:"statusCode"`
			Headers    map[string]string `json:"headers"`
			Body       json.RawMessage   `json:"body"`
		} `json:"responses"`
	} `json:"responses"`
}

// endpoint is one entry of that file: calls whose method matches (or
// method "*") and whose path matches the expression get resps in turn, the
// last one repeated.
type endpoint struct {
	method string
	re     *regexp.Regexp
	resps  []Response
	next   int
}

// isHyperFleetFormat reports a JSON object whose "responses" is a list.
func isHyperFleetFormat(data []byte) bool {
	var probe struct {
		Responses json.RawMessage `json:"responses"`
	}
	if json.Unmarshal(data, &probe) != nil {
		return false
	}
	return strings.HasPrefix(strings.TrimSpace(string(probe.Responses)), "[")
}

// LoadHyperFleet reads HyperFleet adapter's dry-run responses format. The
// expressions are Go regular expressions (RE2: linear time) matched
// anywhere in the request path, as that adapter matches them. A status of
// 0 means 200 and a missing body an empty JSON object; headers are read and
// ignored (the pipeline sees status and body only).
func LoadHyperFleet(r io.Reader, version string) (*Stub, error) {
	var f hyperfleetFile
	dec := json.NewDecoder(r)
	dec.DisallowUnknownFields()
	if err := dec.Decode(&f); err != nil {
		return nil, fmt.Errorf("API responses: %w", err)
	}
	s := New(version, nil)
	s.defaultOK = true
	for i, e := range f.Responses {
		if e.Match.URLPattern == "" || e.Match.Method == "" || len(e.Responses) == 0 {
			return nil, fmt.Errorf("API responses: responses[%d] needs a match.method (or \"*\"), a match.urlPattern and at least one response", i)
		}
		re, err := regexp.Compile(e.Match.URLPattern)
		if err != nil {
			return nil, fmt.Errorf("API responses: responses[%d].match.urlPattern: %w", i, err)
		}
		ep := &endpoint{method: strings.ToUpper(e.Match.Method), re: re}
		for j, r := range e.Responses {
			status := r.StatusCode
			if status == 0 {
				status = http.StatusOK
			}
			if status < 100 || status > 599 {
				return nil, fmt.Errorf("API responses: responses[%d].responses[%d]: status %d is not an HTTP status", i, j, status)
			}
			body := r.Body
			if len(body) == 0 || string(body) == "null" {
				body = json.RawMessage(`{}`)
			}
			ep.resps = append(ep.resps, Response{Status: status, Body: body})
		}
		s.patterns = append(s.patterns, ep)
	}
	return s, nil
}

// matchPattern answers from the first endpoint that matches; the caller
// holds s.mu.
func (s *Stub) matchPattern(method, path string) (Response, bool) {
	for _, ep := range s.patterns {
		if (ep.method == "*" || ep.method == method) && ep.re.MatchString(path) {
			r := ep.resps[min(ep.next, len(ep.resps)-1)]
			ep.next++
			return r, true
		}
	}
	return Response{}, false
}
