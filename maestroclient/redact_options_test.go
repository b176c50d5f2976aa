package maestroclient

import (
	"strings"
	"testing"
)

// Options errors name the REST URL redacted: never its password, a token
// written as its user name, or a password holding an unescaped / (issue 28,
// finding 8: "http://m:8000/S3CRET@maestro:8000" parses as host m).
func TestOptionsErrorsRedactURL(t *testing.T) {
	for _, raw := range []string{
		"http://svc:S3CRET-m@maestro:8000", "https://S3CRET-m@maestro:8000", "ftp://svc:S3CRET-m@maestro",
		"http://svc:1/S3CRET-m@maestro:8000", "http://svc:S3CRET-m@[::1",
	} {
		for _, insecure := range []bool{false, true} {
			o := Options{HTTPURL: raw}
			o.HTTP.Insecure = insecure
			if err := o.validateURL(); err != nil && strings.Contains(err.Error(), "S3CRET") {
				t.Errorf("validateURL(%q, insecure %v) = %v", raw, insecure, err)
			}
		}
	}
}
