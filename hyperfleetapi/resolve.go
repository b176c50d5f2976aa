package hyperfleetapi

import (
	"fmt"
	"net/url"
	"strings"

	"github.com/bundle-adapter/bundle-adapter/config"
)

// Resolver turns a rendered task-config URL into the absolute URL it is
// sent to, and refuses any URL that leaves the configured HyperFleet API.
//
// The contract, for a URL u after ResolvePath:
//
//   - u must parse, hold no control character, no user info and no
//     fragment;
//   - no path segment, once percent-decoded, may be "." or "..", and no
//     segment but the last may be empty (an empty value rendered into a
//     path); this holds for every origin;
//   - a relative URL, or an absolute one on the base URL's origin, must
//     stay under the base URL's path + /api/hyperfleet/<version>; it is the
//     only kind of request that carries the bearer token;
//   - an absolute URL on another origin is refused unless that origin
//     (scheme://host[:port]) is listed in the allowed origins; requests to
//     an allowed origin are sent without the token, whatever they are.
//
// A Resolver is immutable and safe for concurrent use.
type Resolver struct {
	base    *url.URL // nil when the base URL is unusable
	baseErr error
	origin  string
	root    string // base path + /api/hyperfleet/<version>, no trailing slash
	version string
	allowed map[string]bool
}

// NewResolver returns a resolver for the API at baseURL. An unusable
// baseURL (config validation rejects it first) makes every Resolve fail.
// allowedOrigins are scheme://host[:port] strings; see config.ParseOrigin.
func NewResolver(baseURL, version string, allowedOrigins []string) *Resolver {
	if version == "" {
		version = "v1"
	}
	r := &Resolver{version: version, allowed: map[string]bool{}}
	for _, o := range allowedOrigins {
		if n, err := config.ParseOrigin(o); err == nil {
			r.allowed[n] = true
		}
	}
	u, err := url.Parse(baseURL)
	if err != nil || u.Host == "" || (u.Scheme != "http" && u.Scheme != "https") || u.User != nil {
		r.baseErr = fmt.Errorf("the HyperFleet API base URL is not an http(s) URL with a host and without credentials")
		return r
	}
	r.base, r.origin = u, config.Origin(u)
	r.root = strings.TrimSuffix(u.EscapedPath(), "/") + "/api/hyperfleet/" + version
	return r
}

// Err is the reason the base URL is unusable, nil when it is fine. It is
// a configuration problem, not the request's: the client reports it as a
// transport failure (retried, as when the API is unreachable), not as a
// refusal that would dead-letter the event.
func (r *Resolver) Err() error { return r.baseErr }

// Resolve returns the absolute URL raw is sent to and whether the request
// may carry the bearer token, or an error saying why it is refused.
func (r *Resolver) Resolve(raw string) (*url.URL, bool, error) {
	if r.baseErr != nil {
		return nil, false, r.baseErr
	}
	if i := strings.IndexFunc(raw, isCtl); i >= 0 {
		return nil, false, fmt.Errorf("the URL holds a control character (%q at byte %d)", raw[i], i)
	}
	p := ResolvePath(r.version, raw)
	absolute := strings.HasPrefix(p, "http://") || strings.HasPrefix(p, "https://")
	if !absolute {
		p = strings.TrimSuffix(r.base.Scheme+"://"+r.base.Host+r.base.EscapedPath(), "/") + p
	}
	u, err := url.Parse(p)
	if err != nil {
		return nil, false, fmt.Errorf("not a valid URL: %s", unwrapURLError(err))
	}
	if err := checkShape(u, p); err != nil {
		return nil, false, err
	}
	o := config.Origin(u)
	if o != r.origin {
		if !r.allowed[o] {
			return nil, false, fmt.Errorf("origin %s is not the HyperFleet API's (%s); list it in clients.hyperfleet_api.allowed_origins to allow it", o, r.origin)
		}
		return u, false, nil
	}
	if !r.TokenAllowed(u) {
		return nil, false, fmt.Errorf("path %.200q is outside the HyperFleet API (%s/)", u.EscapedPath(), r.root)
	}
	return u, true, nil
}

// TokenAllowed reports whether a request to u may carry the bearer token:
// u is on the base URL's origin, under the API prefix, with no dot or
// empty segment, credentials or fragment. The client asks it again for
// every redirect.
func (r *Resolver) TokenAllowed(u *url.URL) bool {
	if r.baseErr != nil || config.Origin(u) != r.origin || checkShape(u, u.String()) != nil {
		return false
	}
	path := u.EscapedPath()
	return path == r.root || strings.HasPrefix(path, r.root+"/")
}

// checkShape refuses credentials, fragments and dot or empty segments. The
// segments are those of the decoded path, so an escaped "%2e%2e" or a value
// "../x" escaped into one segment ("..%2Fx") is refused too: a server that
// decodes before routing would otherwise walk out of the API.
func checkShape(u *url.URL, raw string) error {
	switch {
	case u.User != nil:
		return fmt.Errorf("the URL carries credentials (user info)")
	case u.Opaque != "" || u.Host == "":
		return fmt.Errorf("the URL has no host")
	case u.Fragment != "" || strings.Contains(raw, "#"):
		return fmt.Errorf("the URL has a fragment (#...), which is never sent: an unescaped '#' in a value?")
	}
	segs := strings.Split(u.Path, "/")
	for i, s := range segs {
		switch {
		case s == "." || s == "..":
			return fmt.Errorf("the URL path has a %q segment, which could leave the API", s)
		case s == "" && i > 0 && i < len(segs)-1:
			return fmt.Errorf("the URL path has an empty segment (an empty value?)")
		}
	}
	return nil
}

func isCtl(r rune) bool { return r < 0x20 || r == 0x7f }

// unwrapURLError drops the URL that url.Parse puts in its errors: it may
// hold credentials, and the caller names the URL itself.
func unwrapURLError(err error) error {
	if ue, ok := err.(*url.Error); ok {
		return ue.Err
	}
	return err
}

// checkHeaders refuses header values no server accepts (CR, LF, NUL and
// other control characters but tab): net/http would fail the request on
// every attempt, and a value rendered from an event must not add headers.
func checkHeaders(h map[string]string) error {
	for k, v := range h {
		if strings.ContainsFunc(v, func(r rune) bool { return r != '\t' && isCtl(r) }) {
			return fmt.Errorf("header %s holds a control character", k)
		}
	}
	return nil
}
