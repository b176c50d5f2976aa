package secret

import (
	"fmt"
	"net/url"
	"slices"
	"strings"
)

// CheckURL refuses raw unless it is a URL of one of schemes (kind names
// them in the error: "http(s)") with a host
// whose user info cannot be misread: it parses, parsing what it prints
// gives it back, and no '@' follows its authority (a password holding
// '/', '?', '#' or '@' must be percent-encoded: %2F %3F %23 %40). The error
// shows the URL masked (MaskURL), never its password.
func CheckURL(raw, kind string, schemes ...string) error {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" || !slices.Contains(schemes, strings.ToLower(u.Scheme)) {
		return fmt.Errorf("must be an %s URL with a host, not %q", kind, MaskURL(raw))
	}
	return checkUserInfo(raw, u)
}

// CheckAddress refuses an address (host:port, a gRPC target, an OTLP
// endpoint) whose user info could be misread: any '@' must sit in the user
// info of a URL that passes CheckURL's rules. An address without '@' is
// not checked here.
func CheckAddress(raw string) error {
	if !strings.Contains(raw, "@") {
		return nil
	}
	u, err := url.Parse(raw)
	if err != nil || u.Opaque != "" || u.Host == "" {
		return fmt.Errorf("holds an '@' outside the user info of a URL (a host:port address has none; escape '@' as %%40), not %q", MaskURL(raw))
	}
	return checkUserInfo(raw, u)
}

// checkUserInfo refuses an '@' after the authority and a URL that does not
// round-trip through parsing.
func checkUserInfo(raw string, u *url.URL) error {
	if _, clean := parseClean(raw); !clean {
		return fmt.Errorf("has an '@' after its host: a password holding / ? # or @ must percent-encode them (%%2F %%3F %%23 %%40), not %q", MaskURL(raw))
	}
	again, err := url.Parse(u.String())
	if err != nil || again.String() != u.String() || again.User.String() != u.User.String() || again.Host != u.Host {
		return fmt.Errorf("does not read back the same once printed (escape reserved characters), not %q", MaskURL(raw))
	}
	return nil
}
