package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// The deliberately broken adapters of SOAK_BROKEN are the product binary
// behind a proxy that lies to it, so the product holds no sabotage switch:
//
//   - ackearly stands in front of the recording HyperFleet API and answers
//     200 to a status PUT the API answered 503: the adapter acks an event
//     whose status was never recorded, and the checker must report it lost;
//   - nowait stands in front of Maestro's REST API (the adapter's reads)
//     and hides every bundle being deleted (404 for one, dropped from a
//     list): the adapter creates while the old work still exists, and the
//     checker's "creates refused" invariant must catch it.
const (
	brokenAckEarly = "ackearly"
	brokenNoWait   = "nowait"
)

// maxProxiedBody bounds the answer a broken proxy reads to rewrite.
const maxProxiedBody = 256 << 20

// brokenProxy is a started lying proxy: URL is what the adapter is given
// in place of the real server's.
type brokenProxy struct {
	URL string
	srv *http.Server
}

func (p *brokenProxy) close() { _ = p.srv.Close() }

// startBroken starts the proxy of the named broken variant in front of
// target. An unknown name is an error naming it.
func startBroken(name, target string) (*brokenProxy, error) {
	h, err := brokenHandler(name, target)
	if err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second, IdleTimeout: time.Minute}
	go func() { _ = srv.Serve(ln) }()
	return &brokenProxy{URL: "http://" + ln.Addr().String(), srv: srv}, nil
}

// brokenHandler is the lying reverse proxy of the named variant to target.
func brokenHandler(name, target string) (http.Handler, error) {
	u, err := url.Parse(target)
	if err != nil || u.Scheme == "" || u.Host == "" {
		return nil, fmt.Errorf("broken proxy %s: target %q is not an absolute URL", name, target)
	}
	p := httputil.NewSingleHostReverseProxy(u)
	switch name {
	case brokenAckEarly:
		p.ModifyResponse = ackEarly
	case brokenNoWait:
		director := p.Director
		p.Director = func(r *http.Request) {
			director(r)
			r.Header.Del("Accept-Encoding") // answers to rewrite come plain
		}
		p.ModifyResponse = noWait
	default:
		return nil, fmt.Errorf("--broken must be %s or %s, not %q", brokenAckEarly, brokenNoWait, name)
	}
	return p, nil
}

// ackEarly turns a 503 answer to a status PUT into 200 {}.
func ackEarly(resp *http.Response) error {
	r := resp.Request
	if r.Method != http.MethodPut || !strings.HasSuffix(r.URL.Path, "/statuses") ||
		resp.StatusCode != http.StatusServiceUnavailable {
		return nil
	}
	replaceBody(resp, http.StatusOK, []byte(`{}`))
	return nil
}

// bundlesPath is Maestro's REST collection of resource bundles.
const bundlesPath = "/api/maestro/v1/resource-bundles"

// noWait hides the bundles being deleted from Maestro's 200 answers to
// GETs of one bundle (404) or of a list (items dropped, size and total
// lowered by as many).
func noWait(resp *http.Response) error {
	r := resp.Request
	if r.Method != http.MethodGet || resp.StatusCode != http.StatusOK {
		return nil
	}
	single := strings.HasPrefix(r.URL.Path, bundlesPath+"/")
	if !single && r.URL.Path != bundlesPath {
		return nil
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxProxiedBody))
	_ = resp.Body.Close()
	if err != nil {
		return err
	}
	if single {
		if deleting(body) {
			replaceBody(resp, http.StatusNotFound, []byte(`{"kind":"Error","reason":"soak nowait: hidden while deleting"}`))
			return nil
		}
		replaceBody(resp, http.StatusOK, body)
		return nil
	}
	out, err := dropDeleting(body)
	if err != nil {
		return fmt.Errorf("soak nowait: %s: %w", r.URL, err)
	}
	replaceBody(resp, http.StatusOK, out)
	return nil
}

// deleting says whether a resource bundle carries deleted_at or a
// metadata.deletionTimestamp.
func deleting(bundle []byte) bool {
	var b struct {
		DeletedAt *string `json:"deleted_at"`
		Metadata  struct {
			DeletionTimestamp *string `json:"deletionTimestamp"`
		} `json:"metadata"`
	}
	if json.Unmarshal(bundle, &b) != nil {
		return false
	}
	return b.DeletedAt != nil && *b.DeletedAt != "" ||
		b.Metadata.DeletionTimestamp != nil && *b.Metadata.DeletionTimestamp != ""
}

// dropDeleting removes the bundles being deleted from a list answer and
// lowers its size and total by as many; every other member stays as
// Maestro wrote it.
func dropDeleting(body []byte) ([]byte, error) {
	var list map[string]json.RawMessage
	if err := json.Unmarshal(body, &list); err != nil {
		return nil, err
	}
	var items []json.RawMessage
	if err := json.Unmarshal(list["items"], &items); err != nil {
		return nil, fmt.Errorf("items: %w", err)
	}
	kept := items[:0]
	for _, it := range items {
		if !deleting(it) {
			kept = append(kept, it)
		}
	}
	dropped := len(items) - len(kept)
	if dropped == 0 {
		return body, nil
	}
	var err error
	if list["items"], err = json.Marshal(kept); err != nil {
		return nil, err
	}
	for _, k := range []string{"size", "total"} {
		if err := lower(list, k, dropped); err != nil {
			return nil, err
		}
	}
	return json.Marshal(list)
}

// lower subtracts n from the number list[key]; an absent key stays absent.
func lower(list map[string]json.RawMessage, key string, n int) error {
	raw, ok := list[key]
	if !ok {
		return nil
	}
	v, err := strconv.Atoi(string(raw))
	if err != nil {
		return fmt.Errorf("%s: %w", key, err)
	}
	list[key] = json.RawMessage(strconv.Itoa(max(v-n, 0)))
	return nil
}

// replaceBody makes resp answer code with body.
func replaceBody(resp *http.Response, code int, body []byte) {
	if resp.Body != nil && code != resp.StatusCode {
		_ = resp.Body.Close()
	}
	resp.StatusCode = code
	resp.Status = fmt.Sprintf("%d %s", code, http.StatusText(code))
	resp.Body = io.NopCloser(bytes.NewReader(body))
	resp.ContentLength = int64(len(body))
	resp.Header.Set("Content-Length", strconv.Itoa(len(body)))
	resp.Header.Del("Content-Encoding")
	resp.Header.Set("Content-Type", "application/json")
}

// brokenWiring puts the proxy of o.broken, if any, between the adapter and
// its server: it returns the options and API URL the adapter's config is
// written from, and a stop for the proxy. Without o.broken it changes
// nothing.
func brokenWiring(o *options, apiURL string) (*options, string, func(), error) {
	if o.broken == "" {
		return o, apiURL, func() {}, nil
	}
	target := apiURL
	if o.broken == brokenNoWait {
		target = o.maestroREST
	}
	p, err := startBroken(o.broken, target)
	if err != nil {
		return nil, "", nil, err
	}
	fmt.Printf("soak: deliberately broken adapter (%s): its %s goes through %s\n", o.broken, target, p.URL)
	wired := *o
	if o.broken == brokenNoWait {
		wired.maestroREST = p.URL
		return &wired, apiURL, p.close, nil
	}
	return &wired, p.URL, p.close, nil
}
