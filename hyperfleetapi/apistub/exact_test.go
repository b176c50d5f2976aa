package apistub

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/bundle-adapter/bundle-adapter/adapter"
)

// A recorded call prints its body's numbers exactly as sent (issue 28
// #13: dry-run's report showed observed_generation 9007199254740993 as
// ...992, a float64 round trip).
func TestCallPrintsNumbersExactly(t *testing.T) {
	s := New("v1", nil)
	for _, body := range []string{
		`{"observed_generation":9007199254740993}`,
		`{"n":-9223372036854775808,"m":9223372036854775807}`,
		`{"big":18446744073709551616,"f":0.1,"e":1e400}`,
	} {
		if _, err := s.Do(context.Background(), adapter.APIRequest{Method: "PUT", URL: "/x", Body: []byte(body)}); err != nil {
			t.Fatal(err)
		}
	}
	for i, c := range s.Calls() {
		out, err := json.Marshal(c)
		if err != nil {
			t.Fatalf("call %d: %v", i, err)
		}
		for _, n := range []string{"9007199254740993", "-9223372036854775808", "9223372036854775807", "18446744073709551616", "1e400"} {
			if strings.Contains(string(c.RawBody()), n) && !strings.Contains(string(out), n) {
				t.Errorf("call %d printed %s, lost %s", i, out, n)
			}
		}
	}
}
