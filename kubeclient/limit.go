package kubeclient

import (
	"fmt"
	"io"
	"net/http"
)

// errResponseTooLarge marks a response body longer than
// Options.MaxResponseBytes: the server (or something in between) sent more
// than any answer the adapter asks for can need.
var errResponseTooLarge = fmt.Errorf("response body too large")

// limitBodies wraps a transport so that no response body is read past max
// bytes: the read fails with errResponseTooLarge instead.
func limitBodies(max int64) func(http.RoundTripper) http.RoundTripper {
	return func(rt http.RoundTripper) http.RoundTripper {
		return roundTripperFunc(func(req *http.Request) (*http.Response, error) {
			resp, err := rt.RoundTrip(req)
			if err != nil || resp.Body == nil {
				return resp, err
			}
			resp.Body = &limitedBody{rc: resp.Body, left: max, max: max}
			return resp, nil
		})
	}
}

type roundTripperFunc func(*http.Request) (*http.Response, error)

func (f roundTripperFunc) RoundTrip(req *http.Request) (*http.Response, error) { return f(req) }

type limitedBody struct {
	rc        io.ReadCloser
	left, max int64
}

func (b *limitedBody) Read(p []byte) (int, error) {
	if b.left <= 0 {
		// One byte more tells a body of exactly max bytes from a longer one.
		var one [1]byte
		n, err := b.rc.Read(one[:])
		if n > 0 {
			return 0, fmt.Errorf("%w: more than %d bytes", errResponseTooLarge, b.max)
		}
		return 0, err
	}
	if int64(len(p)) > b.left {
		p = p[:b.left]
	}
	n, err := b.rc.Read(p)
	b.left -= int64(n)
	return n, err
}

func (b *limitedBody) Close() error { return b.rc.Close() }
