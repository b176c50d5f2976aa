package secret

import (
	"fmt"
	"strings"
	"testing"
)

// Hostile URLs (issue 28, finding 8 and its variants): CheckURL accepts
// exactly those whose user info cannot be misread; whatever it says, no
// printed form (RedactURL, MaskURL, URL's String, the error) shows the
// secret, "S3CRET" or its tail "CRET".
func TestHostileURLs(t *testing.T) {
	tests := []struct {
		raw    string
		accept bool
	}{
		{"amqp://user:S3CRET@h/", true},
		{"amqp://user:1234/S3CRET@h/", false},
		{"amqp://user:12?S3CRET@h/", false},
		{"amqp://user:12#S3CRET@h/", false},
		{"amqp://user:p@S3CRET@h/", true}, // Go and amqp091 read the last '@' of the authority: password "p@S3CRET"
		{"amqp://user:S3CRET%2Fx@h/", true},
		{"amqp://user:S3CRET%40x@h/", true},
		{"amqp://user:%zzS3CRET@h/", false},
		{"amqps://S3CRET@h/", true},
		{"https://S3CRET:@h/", true}, // the user name is the key
		{"https://user:S3CRET@[::1]:443/", true},
		{"https://user:1/S3CRET@[::1]:443/", false},
		{"https://user:S3CRET@h/p?q=a@b", false},
		{"https://user:S3CRET@h/#frag@x", false},
		{"amqp:user:S3CRET@h", false},
		{"amqp:/user:S3CRET@h", false},
		{"amqp:///user:S3CRET@h", false},
		{"user:S3CRET@h:5672", false},
		{"//user:S3CRET@h/", false},
		{"AMQP://user:S3CRET@h/", true},
		{"amqp://user:S3CRET@h:5672/vhost?heartbeat=10", true},
		{"https://h/?access_token=S3CRET", true},
		{"https://h/x?api_key=S3CRET&page=2", true},
		{"https://user:S3CRET@h/\n", false},
		{" https://user:S3CRET@h/", false},
		{"https://user:S3CRET@h@evil/", true}, // password "S3CRET@h", host evil, as every Go client reads it
		{"https://us%3Aer:S3CRET@h/", true},
		{"https://user:S3CRÉT@h/", false},
		{"amqp://user:S3CRET@h:notaport/", false},
		{"amqp://user:S3\tCRET@h/", false},
		{"https://user:S3CRET@h:8443/a@b", false},
		{"https://user:S3%43RET@h/", true}, // %43 is C: the decoded password is the secret
		{"amqp://user:S3CRET@h/%2Fvhost", true},
		{"https://[::1]:443/S3CRET@h", false}, // "https://[::1]:443" + path: could be user "[::1]", password "443/S3CRET"
	}
	for _, tt := range tests {
		err := CheckURL(tt.raw, "http(s) or amqp(s)", "http", "https", "amqp", "amqps")
		if (err == nil) != tt.accept {
			t.Errorf("CheckURL(%q) = %v, want accepted %v", tt.raw, err, tt.accept)
		}
		for name, text := range map[string]string{
			"RedactURL": RedactURL(tt.raw), "MaskURL": MaskURL(tt.raw), "URL.String": NewURL(tt.raw).String(),
			"%#v": fmt.Sprintf("%#v", NewURL(tt.raw)), "error": fmt.Sprint(err), "CheckAddress": fmt.Sprint(CheckAddress(tt.raw)),
		} {
			if strings.Contains(text, "CRET") || strings.Contains(text, "%43RET") {
				t.Errorf("%s of %q shows the secret: %q", name, tt.raw, text)
			}
		}
	}
}

// Addresses (a gRPC target, a Pub/Sub or OTLP endpoint) pass without '@';
// with one, only as the user info of a clean URL.
func TestCheckAddress(t *testing.T) {
	for raw, ok := range map[string]bool{
		"127.0.0.1:8090": true, "maestro-grpc.maestro.svc:8090": true, "dns:///maestro:8090": true, "[::1]:8090": true,
		"http://otel:4317": true, "https://u:pw@otel:4317": true,
		"user:S3CRET@maestro:8090": false, "https://u:1/S3CRET@otel:4317": false, "S3CRET@maestro:8090": false,
	} {
		err := CheckAddress(raw)
		if (err == nil) != ok || err != nil && strings.Contains(err.Error(), "S3CRET") {
			t.Errorf("CheckAddress(%q) = %v, want ok %v and no secret", raw, err, ok)
		}
	}
}

// RedactURL keeps what is not a credential readable.
func TestRedactURLKeepsTheRest(t *testing.T) {
	for in, want := range map[string]string{
		"amqp://guest:guest@h:5672/":     "amqp://guest:REDACTED@h:5672/",
		"https://tok3n@h/x":              "https://REDACTED@h/x",
		"https://h/a@b":                  "https://h/a@b",
		"ops@example.com":                "ops@example.com",
		"https://h/x?page=2&token=t":     "https://h/x?page=2&token=REDACTED",
		"https://h/x?page=2":             "https://h/x?page=2",
		"amqp://user:1234/S3CRET@host/":  "amqp://user:REDACTED@host/",
		"amqp:user:pass@h":               "amqp:REDACTED@h",
		"http://svc:p@ss/w@rd@[::1":      "http://svc:REDACTED@[::1",
		"https://[::1]:443/S3CRET@h":     "https://REDACTED@h",
		"https://user:S3CRET@h:8443/a@b": "https://user:REDACTED@b",
		"plain":                          "plain",
	} {
		if got := RedactURL(in); got != want {
			t.Errorf("RedactURL(%q) = %q, want %q", in, got, want)
		}
	}
}
