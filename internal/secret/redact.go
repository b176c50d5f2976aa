package secret

import (
	"net/url"
	"strings"
)

// credentialParams are the query parameter names (lower case, substrings)
// whose values RedactURL hides: "?access_token=", "?api_key=", "?sig=".
var credentialParams = []string{"token", "password", "passwd", "secret", "key", "auth", "credential", "sig"}

// RedactURL hides the credentials of anything that looks like a URL with
// user info: "amqp://guest:REDACTED@host/" keeps the user name and hides
// the password, "https://REDACTED@host" hides a lone user name or one with
// an empty password ("https://key:@host"; often a token), and values of query parameters named like credentials
// (credentialParams) are hidden. A string whose user info could be misread
// (it does not parse, is opaque, or has an '@' after its authority, such
// as "amqp://user:1234/S3CRET@host/") is redacted by its shape: what sits
// between "://" (or the start) and the last "@" is hidden when it holds a
// ':'. Other strings are returned unchanged ("https://h/a@b",
// "ops@example.com").
func RedactURL(s string) string {
	if !strings.ContainsAny(s, "@?") {
		return s
	}
	u, clean := parseClean(s)
	switch {
	case clean && u.User != nil:
		if pw, has := u.User.Password(); has && pw != "" {
			u.User = url.UserPassword(u.User.Username(), Redacted)
		} else { // a lone user name, or "key:" with an empty password: the name is the secret
			u.User = url.User(Redacted)
		}
		redactQuery(u)
		return u.String()
	case clean:
		if redactQuery(u) {
			return u.String()
		}
		return s
	case !strings.Contains(s, "@"):
		return s
	}
	return redactShape(s, false)
}

// MaskURL is RedactURL for a value that is refused or may be misread:
// everything between "://" (or the start) and the last "@" is hidden,
// keeping only a user name that is plainly one ("user:REDACTED@host").
func MaskURL(s string) string {
	if u, clean := parseClean(s); clean {
		_ = u
		return RedactURL(s)
	}
	if !strings.Contains(s, "@") {
		return RedactURL(s)
	}
	return redactShape(s, true)
}

// parseClean parses s and reports whether its user info is unambiguous: it
// parses, is hierarchical with a host, and has no '@' outside its user info.
func parseClean(s string) (*url.URL, bool) {
	u, err := url.Parse(s)
	if err != nil || u.Opaque != "" || u.Host == "" {
		return nil, false
	}
	_, rest, ok := strings.Cut(s, "://")
	if !ok {
		return nil, false
	}
	end := strings.IndexAny(rest, "/?#")
	if end < 0 {
		end = len(rest)
	}
	if strings.Contains(rest[end:], "@") {
		return nil, false
	}
	return u, true
}

// redactShape hides user info by the string's shape alone. strict hides
// whatever precedes the last '@'; otherwise only a part holding ':' is
// taken for credentials.
func redactShape(s string, strict bool) string {
	start := 0
	if i := strings.Index(s, "://"); i >= 0 {
		start = i + 3
	}
	rest := s[start:]
	at := strings.LastIndex(rest, "@")
	if at < 0 {
		return s
	}
	user, _, hasPass := strings.Cut(rest[:at], ":")
	switch {
	case !hasPass && !strict:
		return s // "ops@example.com", "https://h/a@b": no credentials
	case hasPass && user != "" && !strings.ContainsAny(user, "/?#@%[]"):
		return s[:start] + user + ":" + Redacted + rest[at:]
	default:
		return s[:start] + Redacted + rest[at:]
	}
}

// redactQuery hides the values of credential-named query parameters and
// reports whether it changed any.
func redactQuery(u *url.URL) bool {
	if u.RawQuery == "" {
		return false
	}
	q, err := url.ParseQuery(u.RawQuery)
	if err != nil {
		u.RawQuery = Redacted
		return true
	}
	changed := false
	for k, vs := range q {
		if !credentialName(k) {
			continue
		}
		for i := range vs {
			vs[i] = Redacted
		}
		changed = true
	}
	if changed {
		u.RawQuery = q.Encode()
	}
	return changed
}

func credentialName(k string) bool {
	k = strings.ToLower(k)
	for _, c := range credentialParams {
		if strings.Contains(k, c) {
			return true
		}
	}
	return false
}
