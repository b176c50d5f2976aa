// Package secret holds the types a config value that can carry a
// credential is decoded into: String (a token, a password, a header
// value), URL (a URL or address that may hold user info) and Headers
// (HTTP headers whose values are secret).
//
// Contract: every printed form of these types redacts. String, GoString,
// Format (every fmt verb, %v %+v %#v %s %q %x %d included), MarshalJSON,
// MarshalYAML, MarshalText and slog's LogValue never write the value; a
// URL keeps its scheme, user name, host and path and hides the password
// (or a lone user name, often a token) and the values of query parameters
// named like credentials. The value is held behind a pointer, so even fmt's
// reflection fallback (%p, bad verbs) prints an address, never the text.
// The value itself is read only through Reveal, at the one place that
// uses it (the HTTP client, the AMQP dial).
//
// CheckURL and CheckAddress refuse, with the password masked, a value
// whose user info could be misread: a URL that does not round-trip through
// url.Parse, or has an '@' after its authority or in an opaque part
// ("amqp://user:1234/S3CRET@host/" parses as host "user", port 1234).
package secret
