package config

import (
	"fmt"
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
