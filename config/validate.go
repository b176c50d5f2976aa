package config

import (
	"github.com/bundle-adapter/bundle-adapter/internal/configfile"
	"net/url"
)

func checkURL(l *configfile.ErrorList, path, raw string) {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" || (u.Scheme != "http" && u.Scheme != "https") {
		l.Add(path, "must be an http(s) URL with a host, not %q", RedactURL(raw))
	}
}

// checkAMQPURL requires an amqp(s) URL with a host; the error shows the
// URL redacted.
func checkAMQPURL(l *configfile.ErrorList, path, raw string) {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" || (u.Scheme != "amqp" && u.Scheme != "amqps") {
		l.Add(path, "must be an amqp(s) URL with a host (escape %% @ : / in the password as %%25 %%40 %%3A %%2F), not %q", RedactURL(raw))
	}
}
