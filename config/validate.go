package config

import (
	"strings"

	"github.com/bundle-adapter/bundle-adapter/internal/configfile"
	"github.com/bundle-adapter/bundle-adapter/internal/secret"
)

// checkURL requires an http(s) URL with a host whose user info cannot be
// misread (secret.CheckURL); the error shows the URL masked.
func checkURL(l *configfile.ErrorList, path string, u secret.URL) {
	if err := secret.CheckURL(u.Reveal(), "http(s)", "http", "https"); err != nil {
		l.Add(path, "%v", err)
	}
}

// checkAMQPURL requires an amqp(s) URL with a host whose user info cannot
// be misread; the error shows the URL masked.
func checkAMQPURL(l *configfile.ErrorList, path string, u secret.URL) {
	if err := secret.CheckURL(u.Reveal(), "amqp(s)", "amqp", "amqps"); err != nil {
		l.Add(path, "%v (escape %% @ : / ? # in the password as %%25 %%40 %%3A %%2F %%3F %%23)", err)
	}
}

// checkHeaders refuses a header name that is not an HTTP token and a value
// holding CR, LF or NUL. A bad name is shown only up to its first ':' or
// '=' (a value written into the name, "Authorization: Bearer x", is not
// printed); the error points at its line.
func checkHeaders(l *configfile.ErrorList, path string, h secret.Headers) {
	for name, v := range h {
		p := configfile.JoinPath(path, name)
		if !validHeaderName(name) {
			shown := name
			if i := strings.IndexAny(name, ":="); i >= 0 {
				shown = name[:i] + "..."
			}
			l.AddAt(configfile.JoinPath(path, shown), l.LineOf(p), "is not a valid HTTP header name")
			continue
		}
		if strings.ContainsAny(v.Reveal(), "\r\n\x00") {
			l.Add(p, "must not contain CR, LF or NUL")
		}
	}
}
