package maestroclient

import (
	"net/http"
	"strings"
	"testing"
)

// An error names Maestro's reason, or else the status with the start of a
// plain-text body; JSON, HTML and binary bodies are not quoted.
func TestErrorReason(t *testing.T) {
	long := strings.Repeat("é", maxReasonText+10)
	for _, tt := range []struct{ name, body, want string }{
		{"maestro error", `{"kind":"Error","reason":"resource bundle not found"}`, "resource bundle not found"},
		{"plain text", "Client sent an HTTP request to an HTTPS server.\n", "400 Bad Request: Client sent an HTTP request to an HTTPS server."},
		{"empty", "", "400 Bad Request"},
		{"other json", `{"message":"x"}`, "400 Bad Request"},
		{"html", "<html>proxy error</html>", "400 Bad Request"},
		{"binary", "\xff\xfe\x00", "400 Bad Request"},
		{"long text", long, "400 Bad Request: " + strings.Repeat("é", maxReasonText) + "..."},
	} {
		t.Run(tt.name, func(t *testing.T) {
			resp := &http.Response{StatusCode: 400, Status: "400 Bad Request"}
			if got := errorReason(resp, []byte(tt.body)); got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}
