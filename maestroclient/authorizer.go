package maestroclient

import "strings"

// authorizerFailed prefixes Maestro's answer to a publish it could not
// authorize: with mTLS or token authentication every publish is a
// Kubernetes SubjectAccessReview, and a failed review is answered as
// "failed to authorize the request: <cause>" (gRPC code Unknown).
const authorizerFailed = "failed to authorize the request:"

// authorizerTransient lists causes of a failed review that go away when the
// authorizing API server is back: transport failures and its 5xx and 429
// answers (lower case, as Kubernetes status errors print them).
var authorizerTransient = []string{
	"connection refused", "connection reset", "broken pipe", "i/o timeout", "no such host",
	": eof", "unexpected eof", "context deadline exceeded", "client.timeout exceeded", "tls handshake timeout",
	"the server is currently unable to handle the request",            // 503
	"the server has received too many requests",                       // 429
	"internal error occurred",                                         // 500
	"the server was unable to return a response in the time allotted", // 504
}

// authorizerUnavailable reports whether msg (lower case) is Maestro failing
// to reach its authorizer, which a retry can fix, as opposed to a denial
// ("unauthorized to publish ...") or a review the API server refused
// ("... is forbidden"), which no retry fixes.
func authorizerUnavailable(msg string) bool {
	_, cause, ok := strings.Cut(msg, authorizerFailed)
	if !ok {
		return false
	}
	for _, f := range authorizerTransient {
		if strings.Contains(cause, f) {
			return true
		}
	}
	return false
}
