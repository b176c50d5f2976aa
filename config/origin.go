package config

import (
	"fmt"
	"github.com/bundle-adapter/bundle-adapter/internal/configfile"
	"net"
	"net/url"
	"strings"
)

// ParseOrigin checks that s is exactly an origin, scheme://host[:port]
// with scheme http or https, and returns it normalized (lower case, default
// port dropped).
func ParseOrigin(s string) (string, error) {
	u, err := url.Parse(s)
	if err != nil || u.Host == "" || (u.Scheme != "http" && u.Scheme != "https") || u.User != nil ||
		strings.TrimSuffix(u.Path, "/") != "" || u.RawQuery != "" || u.Fragment != "" || u.Opaque != "" {
		return "", fmt.Errorf("must be an origin such as https://api.example.com:8443 (scheme, host and optional port only)")
	}
	return Origin(u), nil
}

// Origin is scheme://host[:port], lower case, without a default port.
func Origin(u *url.URL) string {
	scheme, host := strings.ToLower(u.Scheme), strings.ToLower(u.Hostname())
	port := u.Port()
	if (scheme == "http" && port == "80") || (scheme == "https" && port == "443") {
		port = ""
	}
	if port != "" {
		host = net.JoinHostPort(host, port)
	} else if strings.Contains(host, ":") {
		host = "[" + host + "]"
	}
	return scheme + "://" + host
}

// checkAPIOrigins reports every api_call url whose literal start names an
// origin ("https://host/...{{ .x }}") that is neither base_url's nor in
// allowed_origins: the HyperFleet API client would refuse it on every
// event. URLs that start with a value are checked when sent.
func (c *Config) checkAPIOrigins(taskFile string) configfile.Errors {
	api := c.Adapter.Clients.HyperfleetAPI
	base, err := url.Parse(api.BaseURL.Reveal())
	if api.BaseURL.IsZero() || err != nil {
		return nil
	}
	allowed := map[string]bool{Origin(base): true}
	for _, o := range api.AllowedOrigins {
		if n, err := ParseOrigin(o.Reveal()); err == nil {
			allowed[n] = true
		}
	}
	var errs configfile.Errors
	for _, a := range c.Task.APICalls() {
		o, ok := literalOrigin(a.URL.Src)
		if ok && !allowed[o] {
			errs = append(errs, configfile.FieldError{File: taskFile, Path: a.URL.Path, Msg: fmt.Sprintf(
				"origin %s is neither clients.hyperfleet_api.base_url's (%s) nor listed in clients.hyperfleet_api.allowed_origins",
				o, Origin(base))})
		}
	}
	return errs
}

// literalOrigin is the origin an absolute URL template names in its
// literal text before any action, if its authority is complete there.
func literalOrigin(src string) (string, bool) {
	lit, _, _ := strings.Cut(src, "{{")
	lower := strings.ToLower(lit)
	if !strings.HasPrefix(lower, "http://") && !strings.HasPrefix(lower, "https://") {
		return "", false
	}
	rest := lit[strings.Index(lit, "://")+3:]
	end := strings.IndexAny(rest, "/?#")
	if end < 0 && len(lit) < len(src) {
		return "", false // the host continues into a value
	}
	if end >= 0 {
		lit = lit[:len(lit)-len(rest)+end]
	}
	u, err := url.Parse(lit)
	if err != nil || u.Host == "" {
		return "", false
	}
	return Origin(u), true
}
