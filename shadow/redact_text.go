package shadow

import (
	"regexp"

	"github.com/bundle-adapter/bundle-adapter/internal/secret"
)

// A disagreement's values are free text written by another adapter (a
// condition's message, a data field, an error): a credential inside one
// is hidden before it is logged, wherever it stands in the text.

var (
	// credentialAssign is "NAME=VALUE", "NAME: VALUE" or the JSON
	// "\"NAME\": \"VALUE\"" where NAME holds a credential word.
	credentialAssign = regexp.MustCompile(`(?i)([A-Za-z0-9_.-]*(?:token|password|passwd|secret|key|auth|credential|cert)[A-Za-z0-9_.-]*)("?\s*[=:]\s*)("[^"]*"|'[^']*'|[^\s,;&"'}\]]+)`)
	// authScheme is an HTTP authorization scheme and its credentials.
	authScheme = regexp.MustCompile(`(?i)\b(bearer|basic|token)(\s+)[A-Za-z0-9._~+/=-]+`)
)

// redactText hides, in s, the value of every NAME=VALUE, NAME: VALUE or
// JSON member whose name holds a credential word, the credentials after an
// authorization scheme (Bearer, Basic), and a URL's password
// (secret.RedactURL).
func redactText(s string) string {
	s = secret.RedactURL(s)
	s = authScheme.ReplaceAllString(s, "${1}${2}"+secret.Redacted)
	return credentialAssign.ReplaceAllStringFunc(s, func(m string) string {
		sub := credentialAssign.FindStringSubmatch(m)
		if sub[3] == secret.Redacted || sub[3] == `"`+secret.Redacted+`"` {
			return m
		}
		return sub[1] + sub[2] + secret.Redacted
	})
}
